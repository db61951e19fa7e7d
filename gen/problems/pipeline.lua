-- The seed's workload (seeds/000): out[i] = f^64(in[i]), f(v) = fmaf(v, 0.999f, 0.0013f).
-- The CPU reference is templates/pipeline/reference.c.
problem {
  name = "pipeline",
  sizes = { { "n", "size_t" } },
  buffers = {
    -- the second input set spans magnitudes 2^-30 to 2^30 (fp16 fails there)
    { "in", "float", role = "in", length = "n", init = { "uniform", -4, 4 }, init2 = { "logmag", 2 ^ -30, 2 ^ 30 } },
    { "out", "float", role = "out", length = "n" },
  },
  args = { "in", "out", "n" },        -- the kernel's parameters
  signature = { "in", "out", "n" },   -- bartune_pipeline(in, out, n, stream)
  verify = "exact",                   -- fmaf in the same order on both sides: bit for bit
  -- The least one call can cost: read 4 B and write 4 B per element, 64 FMAs each.
  cost = function(s) return { bytes = 8 * s.n, fma = 64 * s.n } end,
  tune = { { n = 1 << 28 } },
  -- What the header's kernels are called at besides 2^28 (the host peels an
  -- unaligned head, so the kernel sees 16-byte aligned pointers): one
  -- element, an odd n, a partial last tile with offset (aligned) pointers.
  checks = {
    { n = 1 },
    { n = 1000003 },
    { n = 4099, offsets = { ["in"] = 4, out = 4 } },
  },
}
