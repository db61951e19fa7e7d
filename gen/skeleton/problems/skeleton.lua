-- The problem skeleton (written by bartune new; yours to change): y = a x + b
-- on n floats, each element one fmaf, verified bit for bit against the CPU
-- reference in templates/skeleton/reference.c.
problem {
  name = "skeleton",
  sizes = { { "n", "size_t" } },
  scalars = { { "a", "float", value = 1.5 }, { "b", "float", value = -0.25 } },
  buffers = {
    { "x", "float", role = "in", length = "n", init = { "uniform", -1, 1 } },
    { "y", "float", role = "out", length = "n" },
  },
  args = { "x", "y", "a", "b", "n" },        -- the kernel's parameters, in order
  signature = { "x", "y", "a", "b", "n" },   -- bartune_skeleton(x, y, a, b, n, stream)
  verify = "exact",
  cost = function(s) return { bytes = 8 * s.n, fma = s.n } end,
  tune = { { n = 1 << 26 } },
}
