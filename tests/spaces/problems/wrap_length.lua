-- A buffer whose length wraps past 64 bits at large n (issue 17): refused.
problem {
  name = "wrap_length",
  sizes = { { "n", "size_t" } },
  buffers = { { "y", "float", role = "out", length = function(s) return s.n * s.n * 16 end } },
  args = { "y", "n" },
  signature = { "y", "n" },
  verify = "exact",
  cost = function(s) return { bytes = 4 * s.n } end,
  tune = { { n = 4294967297 } },
}
