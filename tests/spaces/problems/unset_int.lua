-- unset_when_zero on an int buffer (no NaN to fill it with): refused.
problem {
  name = "unset_int",
  sizes = { { "n", "int" } },
  scalars = { { "a", "float", value = 2, special = { 0 } } },
  buffers = { { "x", "int", role = "in", length = "n", init = { "uniform", -1, 1 }, unset_when_zero = "a" }, { "y", "float", role = "out", length = "n" } },
  args = { "x", "y", "a", "n" },
  signature = { "x", "y", "a", "n" },
  verify = "exact",
  cost = function(s) return { bytes = 8 * s.n } end,
  tune = { { n = 1000 } },
}
