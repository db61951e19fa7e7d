-- An int scalar given 1.5: refused where the problem is read (issue 17).
problem {
  name = "int_scalar",
  sizes = { { "n", "int" } },
  scalars = { { "k", "int", value = 1.5 } },
  buffers = { { "y", "float", role = "out", length = "n" } },
  args = { "y", "k", "n" },
  signature = { "y", "k", "n" },
  verify = "exact",
  cost = function(s) return { bytes = 4 * s.n } end,
  tune = { { n = 1000 } },
}
