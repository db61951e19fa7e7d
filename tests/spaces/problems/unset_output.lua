-- unset_when_zero on an output (never read): refused.
problem {
  name = "unset_output",
  sizes = { { "n", "int" } },
  scalars = { { "a", "float", value = 2, special = { 0 } } },
  buffers = { { "x", "float", role = "in", length = "n", init = { "uniform", -1, 1 } }, { "y", "float", role = "out", length = "n", unset_when_zero = "a" } },
  args = { "x", "y", "a", "n" },
  signature = { "x", "y", "a", "n" },
  verify = "exact",
  cost = function(s) return { bytes = 8 * s.n } end,
  tune = { { n = 1000 } },
}
