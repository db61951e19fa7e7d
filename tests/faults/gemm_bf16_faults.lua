-- Fault injection for gemm_bf16: bartune's own Hopper kernel
-- (templates/gemm_bf16.cu) at one configuration, correct beside variants
-- that go wrong the ways a tensor-core pipeline does, which the bound of
-- problems/gemm_bf16.lua must catch. Run with --templates tests/faults
-- (see gpu_faults.sh); CI compiles them (faults_compile.sh).
space {
  name = "gemm_bf16_faults",
  template = "gemm_bf16.cu",
  problem = "gemm_bf16",
  arch_specific = true,
  -- partial tiles in M, N and K; ldc odd (the scalar stores)
  sizes = { { M = 300, N = 200, K = 1000, lda = 1000, ldb = 208, ldc = 203 } },
}

param("fault", {
  "none",
  "drop_k",        -- the last k-slice of 16 is never multiplied
  "read_twice",    -- k-tile 1 is loaded from k-tile 0's place
  "no_full_wait",  -- consumers read a stage without waiting for its copies
  "fp16",          -- the bf16 inputs multiplied as fp16
  "truncate",      -- C rounded toward zero, not to nearest: inside the bound, less accurate
  "beta_reads_c",  -- C read where beta is 0 too (the odd-ldc stores): NaN where C is unset
  "none_again",    -- correct, after the faults
  "scratch",       -- correct: split-K through scratch memory (4 CTAs a tile, one per grid row)
  "scratch_short", -- the same, the tile's last CTA adding all its slices but the last
  "spread",        -- correct: the same with every CTA of a tile adding its share (scratch_sum = spread)
  "spread_short",  -- the same, each CTA adding all the slices of its share but the last
  "split_scratch", -- correct: clusters of 2 summing in shared memory, 2 such a tile through scratch
  "split_scratch_short", -- the same, the last cluster of a row slice leaving the last slot out
  "b_rows",        -- correct: 64-column tiles in clusters of 2, each CTA multicasting half of B's box
  "b_rows_light",  -- correct: the same with fences = light (the producer's tail, no barrier at the end)
  "split_scratch_light", -- correct: split_scratch with fences = light (a relaxed barrier at each end)
  "spread_pairs",  -- correct: spread with one warpgroup's tiles in clusters of 2 along M (B multicast), fences = light
  "spread_pairs_short", -- the same, each CTA adding all the slices of its share but the last
  "spread_crowd",  -- spread, its launch saying more CTAs wait for each other than any device holds at once
})
local pairs_m = function(c) return c.fault == "spread_pairs" or c.fault == "spread_pairs_short" end
local spread = function(c)
  return c.fault == "spread" or c.fault == "spread_short" or c.fault == "spread_crowd" or pairs_m(c)
end
local two_level = function(c)
  return c.fault == "split_scratch" or c.fault == "split_scratch_short" or c.fault == "split_scratch_light"
end
local scratch = function(c)
  return c.fault == "scratch" or c.fault == "scratch_short" or spread(c) or two_level(c)
end

derive(function(c)
  c.kind, c.bn, c.wm, c.consumers, c.schedule, c.producer = "wgmma", 128, 64, 2, "cooperative", "warpgroup"
  c.regs, c.stages, c.cluster, c.grid, c.raster, c.epilogue = "none", 3, 1, "persistent", "row", "direct"
  c.split, c.c_early, c.scratch_split, c.b_rows = 1, "off", scratch(c) and 4 or 1, 64
  if two_level(c) then c.split, c.scratch_split = 2, 2 end
  if c.fault == "b_rows" or c.fault == "b_rows_light" then c.bn, c.cluster, c.b_rows = 64, 2, 32 end
  if pairs_m(c) then c.consumers, c.producer, c.cluster = 1, "warp", 2 end
  c.fences = (c.fault:find("_light$") or pairs_m(c)) and "light" or "full"
  c.scratch_sum = spread(c) and "spread" or "last"
  c.overlap, c.stream_k, c.inflight, c.cluster_n = "off", "off", 1, 1
  if scratch(c) then c.grid = "tile" end
  c.order, c.rows, c.threads, c.min_cc, c.epilogue_batch = "named", 128, 384, 90, math.min(16, c.bn // 8)
  if pairs_m(c) then c.rows, c.threads = 64, 160 end
  c.smem_bytes = 2048 + c.stages * (c.rows + c.bn) * 128
end)
launch(function(c, s, dev)
  -- (units of c.cluster tiles along M, as the template counts them)
  local units = ceil_div(ceil_div(s.M, c.rows), c.cluster) * ceil_div(s.N, c.bn)
  local ctas = units * c.cluster * c.split  -- a counter per CTA of a row (gen/gemm_bf16.lua's launch)
  local counters = ceil_div(ctas, 64) * 64 * 4
  local ss = c.scratch_split
  local grid = c.scratch_sum == "spread" and { ctas * ss } or ss > 1 and { ctas, ss }
    or { min(units, dev.sms // c.cluster) * c.cluster }
  return { grid = grid, block = { c.threads }, smem = c.smem_bytes,
    resident = 1, min_cc = 90,
    scratch = ss > 1 and counters + ctas * ss * c.rows * c.bn * 4 or nil, scratch_zero = ss > 1 and counters or nil,
    scratch_zero_kept = ss > 1 or nil, together = c.fault == "spread_crowd" and 1 << 30 or c.scratch_sum == "spread" and ss * c.cluster or nil,
    tensor_maps = {
      { buffer = "A", dims = { s.K, s.M }, strides = { s.lda * 2 }, box = { 64, c.rows }, swizzle = 128 },
      { buffer = "B", dims = { s.N, s.K }, strides = { s.ldb * 2 }, box = { 64, c.b_rows }, swizzle = 128 },
    } }
end)
