-- unset_when_zero naming no scalar: refused where the problem is read.
problem {
  name = "unset_unknown",
  sizes = { { "n", "int" } },
  scalars = { { "a", "float", value = 2, special = { 0 } } },
  buffers = { { "x", "float", role = "in", length = "n", init = { "uniform", -1, 1 }, unset_when_zero = "beta" }, { "y", "float", role = "out", length = "n" } },
  args = { "x", "y", "a", "n" },
  signature = { "x", "y", "a", "n" },
  verify = "exact",
  cost = function(s) return { bytes = 8 * s.n } end,
  tune = { { n = 1000 } },
}
