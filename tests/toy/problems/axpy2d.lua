-- A second problem, written with files under tests/ only: y = a * x + y on
-- a rows x cols matrix, with an inout buffer, a scalar and a 2-D grid. Its
-- CPU reference is tests/toy/templates/axpy2d/reference.c.
problem {
  name = "axpy2d",
  sizes = { { "rows", "int" }, { "cols", "int" } },
  scalars = { { "a", "float", value = 1.75, range = { -4, 4 }, special = { 0, 1, -1 } } },
  buffers = {
    { "x", "float", role = "in", length = function(s) return s.rows * s.cols end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -20, 2 ^ 20 } },
    { "y", "float", role = "inout", length = function(s) return s.rows * s.cols end, init = { "uniform", -2, 2 },
      init2 = { "logmag", 2 ^ -20, 2 ^ 20 } },
  },
  args = { "x", "y", "a", "rows", "cols" },
  signature = { "a", "x", "y", "rows", "cols" },
  -- A kernel may fuse a * x + y (one rounding) or not (two); the reference
  -- in double bounds both: |y' - (a x + y)| <= gamma_2 (|a x| + |y|), with
  -- gamma_2 = 2u / (1 - 2u), u = 2^-24 (Higham, Accuracy and Stability of
  -- Numerical Algorithms, 3.1).
  verify = "bound",
  cost = function(s) return { bytes = 12 * s.rows * s.cols, fma = s.rows * s.cols } end,
  tune = { { rows = 1000, cols = 3001 }, { rows = 4096, cols = 4096 } },
  -- what the header serves besides the tuned sizes: one element, partial
  -- blocks in both dimensions, the tuned rows with an odd width
  checks = function(s)
    return { { rows = 1, cols = 1 }, { rows = 37, cols = 129 }, { rows = s.rows, cols = 31 } }
  end,
}
