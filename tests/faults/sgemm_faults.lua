-- Fault injection for sgemm: a correct variant beside variants that go wrong
-- the ways a GEMM does, which the bound rule of problems/sgemm.lua must
-- catch. Built from bartune's own sgemm pieces (templates/sgemm/*.cuh) with
-- a schedule of its own in tests/faults/sgemm_faults.cu. Run with
-- --templates tests/faults (see gpu_faults.sh).
space {
  name = "sgemm_faults",
  template = "sgemm_faults.cu",
  problem = "sgemm",
  -- odd sizes and leading dimensions: every edge and the scalar load path
  sizes = { { M = 300, N = 201, K = 1000, lda = 1003, ldb = 205, ldc = 203 } },
}

param("fault", {
  "none",
  "drop_k",          -- the last k of the sum is never added
  "read_twice",      -- k-tile 1 is computed from k-tile 0's data
  "skip_edge_col",   -- the last column of C is never written
  "skip_edge_row",   -- the last row of C is never written
  "alpha_once",      -- alpha applied to C's old value too
  "tf32",            -- every operand rounded to TF32 first: inside the bound, less accurate
  "rel_1e4",         -- the result 1e-4 too large: inside the bound, less accurate
  "replay_c",        -- computes C on the first launch, then copies that answer back
  "fixed_scalars",   -- alpha and beta built in (the tuned sizes' values)
  "fp16_range",      -- sums saturated at fp16's largest value
  "small_m",         -- does nothing when M < 64: right at the tuned sizes, wrong at a check size
  "ignore_lda",      -- reads A as if packed (lda = K): right only where lda == K
  "padding_write",   -- writes the first padding column of C's rows
  "replay_keyed",    -- replays the first launch's C when A[0], B[0], C[0] and the scalars match
  "late_damage",     -- writes into A's padding from the first timed launch on
  "split_scratch",   -- correct: split-K over 4 slices summed through scratch memory (its counters left zero)
  "scratch_past",    -- split_scratch, and one word written just past its scratch memory
  "scratch_before",  -- split_scratch, and one word written just before its scratch memory
  "scratch_accumulate", -- split_scratch adding into its slots: right only if they started at zero (they need not)
  "beta_reads_c",    -- C read where beta is 0 too: NaN where the caller left C unset
  "spread",          -- correct: split_scratch with every block adding its share (scratch_sum = spread)
  "spread_short",    -- spread, each block adding all the slices of its share but the last
  "counter_left",    -- split_scratch, its tile counters left at 4 though scratch_zero_kept says zero
  "spread_left",     -- spread, its tile counters left at 8 though scratch_zero_kept says zero
  "none_again",      -- correct, after the faults
})

derive(function(c)
  c.barrier, c.loaders, c.producer = "syncthreads", "all", "regs"
  c.bm, c.bn, c.bk, c.tm, c.tn, c.stages = 64, 64, 16, 4, 4, 2
  c.a_layout, c.pad, c.raster, c.split, c.frag, c.fma_order, c.tail = "k", 4, "row", 1, "k4", "rows", 1
  c.stream_k = 0
  -- split-K through scratch memory (templates/sgemm/compute.cuh) for two faults
  local spread = c.fault == "spread" or c.fault == "spread_short" or c.fault == "spread_left"
  c.scratch_split = (c.fault == "split_scratch" or c.fault:match("^scratch_") or c.fault == "counter_left" or spread)
      and 4 or 1
  c.scratch_sum = spread and "spread" or "last"
  c.wm, c.wn = c.bm, c.bn  -- threads spread over the whole tile (templates/sgemm/compute.cuh)
  c.threads = (c.bm // c.tm) * (c.bn // c.tn)
  c.bar_area = 0
  c.smem_bytes = c.stages * (c.bk * (c.bm + c.pad) + c.bk * c.bn) * 4
  c.min_cc = 70
end)
launch(function(c, s, dev)
  local tiles = ceil_div(s.N, c.bn) * ceil_div(s.M, c.bm)
  -- as gen/sgemm.lua: the counters (the zero prefix), then the slots
  local counters = ceil_div(tiles, 64) * 64 * 4
  local split = c.scratch_split > 1
  local grid = { ceil_div(s.N, c.bn), ceil_div(s.M, c.bm), c.scratch_split }
  if c.scratch_sum == "spread" then grid = { ceil_div(s.N, c.bn) * c.scratch_split, ceil_div(s.M, c.bm), 1 } end
  return { grid = grid, block = { c.threads },
           smem = c.smem_bytes, scratch = split and counters + tiles * c.scratch_split * c.bm * c.bn * 4 or nil,
           scratch_zero = split and counters or nil, scratch_zero_kept = split or nil }
end)
