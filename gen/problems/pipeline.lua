-- The seed's workload (seeds/000): out[i] = f^64(in[i]), f(v) = fmaf(v, 0.999f, 0.0013f).
-- The CPU reference is templates/pipeline/reference.c.
problem {
  name = "pipeline",
  sizes = { { "n", "size_t" } },
  buffers = {
    { "in", "float", role = "in", length = "n", init = { "uniform", -4, 4 } },
    { "out", "float", role = "out", length = "n" },
  },
  args = { "in", "out", "n" },        -- the kernel's parameters
  signature = { "in", "out", "n" },   -- bartune_pipeline(in, out, n, stream)
  verify = "exact",                   -- fmaf in the same order on both sides: bit for bit
  -- The least one call can cost: read 4 B and write 4 B per element, 64 FMAs each.
  cost = function(s) return { bytes = 8 * s.n, fma = 64 * s.n } end,
  tune = { { n = 1 << 28 } },
}
