-- SGEMM (problems/sgemm.lua) with every barrier and producer kind of the
-- seed's question, where staging through shared memory decides the speed.
-- Tens of thousands of variants: tune it with a strategy, e.g.
--   bartune run gen/sgemm.lua --strategy ils --budget 10m
space {
  name = "sgemm",
  template = "sgemm.cu",          -- under templates/ (pieces in templates/sgemm/)
  host = "sgemm/host.cuh",        -- the header's run(): shapes, null matrices, empty calls
  problem = "sgemm",
  group = { "barrier", "producer" },
}

local split = function(c) return c.loaders == "producers" end
-- Producers: through registers, cp.async, bulk copies with transaction
-- counts, or B by the tensor copy (both sm_90, with mbarrier). Who fills the stages: "all" warps (the classic kernel; __syncthreads only)
-- or producer warps beside the consumer warps (warp-specialised).
param("barrier", { "syncthreads", "named", "cuda_barrier", "mbarrier" })
param("loaders", { "all", "producers" }, { when = function(c) return c.barrier == "syncthreads" end })
-- (bulk: completes on an mbarrier's transaction count, into an m-major A stage;
-- tensor_b: B's k-tile as one tensor copy, the box landing as the k-major
-- stage the consumers read, A by cp.async: templates/sgemm/load_tensor_b.cuh.
-- A's half is not a tensor copy: its k-major stage is a transpose, which the
-- copy engine does not do for 4-byte elements, and its m-major stage pads
-- each row, which a box does not write. On the H100 (NOTES.md 2026-12-07)
-- it is the tall-K shape's best, 0.0586 ms against cp_async's 0.0613.)
param("producer", { "regs", "cp_async", "bulk", "tensor_b" }, { allow = function(c, v)
  return (v ~= "bulk" and v ~= "tensor_b") or c.barrier == "mbarrier"
end })
local cp_async_family = function(c) return c.producer == "cp_async" or c.producer == "tensor_b" end
-- (Pruned, so the space stays within what bartune expands: one producer
-- warp and 256-row tiles were never within 14% of a shape's best in the
-- 3411 records of the H200, NOTES.md 2026-12-02.)
param("producer_warps", { 2, 4 }, { when = function(c) return c.barrier ~= "syncthreads" or split(c) end })
param("bm", { 64, 128 })          -- block tile of C: bm x bn
-- (Tried and removed: 96-row tiles for wave counts. At 3001 x 2999 x 4097
-- the best's 64 x 128 tiles make 1128, 4.3 rounds of 264 blocks (two an SM
-- at 112 registers); 96 x 128 make 768, 2.9 rounds. On the H100, 2,340 of
-- them (cp.async, 8 x 8 / 8 x 16 threads, bn 128; ils 60 s and twins): the
-- best 1.9513 ms (two producer warps, two blocks an SM) against 1.7999,
-- with four producer warps (one block an SM by registers) 2.4514. Blocks
-- retire one by one, so a last round partly full costs less than its
-- share; what the tile loses per FMA counts more. NOTES.md 2026-12-06.)
param("bn", { 64, 128, 256 })
param("bk", { 8, 16, 32 })        -- k-tile
-- One consumer thread's tile: tm x tn. 8 x 16 (128 accumulators) is the
-- register-rich consumer: a 128 x 128 tile in four warps of 64 x 64 (warp
-- = "tall"; cuBLAS's sm80 FFMA kernel on the H200 is 8 x 16 in 256 x 128 x
-- 8 tiles): per k a warp does twice the FMAs of an 8 x 8 warp tile for 4/3
-- of its shared-memory reads; fragments one k at a time
-- (templates/sgemm/compute.cuh). From an m-major A stage (four k of each row
-- at once, 16-byte cp.async for both operands) it lost: 3.54 ms at 4096^3.
param("tm", { 4, 8 })
param("tn", { 4, 8, 16 }, { allow = function(c, v) return v < 16 or c.tm == 8 end })
-- Who shares a tile of C: "block" spreads every consumer thread over the
-- whole block tile; a warp tile gives each warp its own (lanes 4 x 8:
-- "wide", 4 tm x 8 tn; 8 x 4: "tall"), so a warp reads a third fewer
-- distinct words of each stage (templates/sgemm/compute.cuh).
param("warp", { "block", "wide", "tall" }, { when = function(c) return c.tm == 8 and c.tn >= 8 end })
param("stages", { 2, 3, 4, 6 })
-- A's stage: k-major (transposed) or m-major (as A lies); bulk rows land
-- m-major, and 8 x 16 consumers read one k at a time from a k-major stage
param("a_layout", { "k", "m" }, { allow = function(c, v)
  if v == "k" then return c.producer ~= "bulk" end
  return c.tn < 16
end })
-- An 8 x 8 consumer's fragments from a k-major stage: four k, then their
-- 256 FMAs ("k4"), or two k at a time with the next two read before these
-- two's FMAs ("k2"): the same 64 registers of fragments, the loads
-- overlapping the FMAs. ncu of the 4096^3 best (k4, two blocks an SM at 128
-- registers) has its warps wait on shared-memory loads most (short
-- scoreboard 0.42 an issued instruction, cuBLAS's 0.21); one k at a time
-- double-buffered lost (3.6047 ms against 3.0622, NOTES.md 2026-12-02).
-- Declared after the k4 records with k4 as the default: they stay current.
-- Only where every warp loads with cp.async (its twins there): in 501
-- records it was never a shape's best, outside that kind 2.2% behind at
-- best (NOTES.md 2026-12-05), and the room went to fma_order.
param("frag", { "k4", "k2" }, { default = "k4", when = function(c)
  return c.a_layout == "k" and c.tm == 8 and c.tn == 8 and c.loaders == "all" and c.producer == "cp_async"
end })
-- The order of an 8 x 8 tile's 64 FMAs a k: row by row ("rows"), or rows
-- alternating direction ("zigzag"), so each row's first FMA reuses the last
-- one's b value: ptxas then flags operand reuse on both A and B slots, as
-- cuBLAS's FFMA kernel does, and a model of Hopper's register banks (four,
-- reg % 4; the reuse cache one value per slot and register parity) counts
-- half the bank conflicts of "rows" (0.05 an FFMA against 0.11; cuBLAS's
-- 0.06). Measured as twins (NOTES.md 2026-12-05): 4096^3's best 0.9%
-- faster with zigzag, 2048^3's a tie. Declared with "rows" as the default
-- (the records stay current), wherever cp.async fills a k-major A stage:
-- every warp loading (4096^3's and 2048^3's bests) or producer warps (3001
-- x 2999 x 4097's).
-- The 8 x 16 consumers (one k at a time) too, in 128 x 256 tiles (the
-- space's bound on combinations): last measured before the loaders'
-- inside-tile path (2.937 ms at 4096^3, producer = regs).
param("fma_order", { "rows", "zigzag" }, { default = "rows", when = function(c)
  return c.tm == 8 and c.frag ~= "k2" and c.a_layout == "k" and
      (c.tn == 8 and cp_async_family(c) or c.tn == 16 and c.bm * c.bn == 128 * 256)
end })
-- (Tried and removed: "addresses = tile", cp.async copies inside both
-- matrices addressed from one 64-bit tile corner per operand plus 32-bit
-- offsets, a thread's copies at constant shared-memory offsets: the 4096^3
-- best's non-FMA instructions a k-tile 155 -> ~105 in SASS, yet as twins on
-- the H100 it lost at every shape (4096^3 2.8407 ms against 2.8294, 3001 x
-- 2999 x 4097 1.8199 against 1.7999, 2048^3 0.3692 against 0.3677): the
-- loop is not bound by issuing its address arithmetic. NOTES.md 2026-12-06.)
-- (Tried and removed: "lanes" copies where an operand rules out 16-byte
-- ones, consecutive threads on consecutive elements instead of copy4's four
-- consecutive elements a thread, so a warp's 4-byte copy reads 4-6 sectors
-- rather than 16. At 3001 x 2999 x 4097 on the H100, as twins of the best:
-- 2.4455-2.4881 ms against 1.8048-1.8483, all verified. NOTES.md 2026-12-06.)
-- (Tried and removed: "pack = rows", a kernel of the variant's own
-- launched just before it (launch().before, runner and header) copying
-- operands whose rows are not 16-byte aligned into scratch rows of whole
-- float4s, so that the main loop copies 16 bytes at a time. At 3001 x 2999 x
-- 4097 on the H100, 1902 records all verified: pack's best 1.8245 ms
-- against 1.7999, the best's own twin 1.8315 against 1.8014. The copies
-- cost ~50 us and the main loop gained less: the wave count (1128 tiles,
-- 4.3 rounds of 264), not 4-byte copies, is what 3001 loses to. Commit
-- 9403e87, NOTES.md 2026-12-06.)
param("raster", { "row", "grouped" })
-- Two blocks per SM (__launch_bounds__: at most 128 registers at 256
-- threads) for tiles up to 128 x 128; split-K only for tiles up to 64 x 128,
-- where tiles are few (the tall-K shapes). Larger tiles run one block per SM.
local small = function(c) return c.bm * c.bn <= 64 * 128 end
param("min_blocks", { 1, 2 }, { when = function(c) return c.bm * c.bn <= 128 * 128 end })
-- split-K (sm_90): a cluster of `split` blocks shares one tile of C, each
-- over 1/split of K, their sums added in the first block's shared memory
-- (distributed shared memory); for the tall-K shapes, where tiles are few
param("split", { 1, 2, 4, 8 }, { when = function(c) return small(c) and c.raster == "row" and c.min_blocks == 1 end })
-- split-K through scratch memory: `scratch_split` blocks share a tile, each
-- writes its partial tile and the last to arrive sums them in split order
-- and stores. Any number of slices, and the blocks of a tile need not be
-- resident together: ncu at 256 x 256 x 16384 saw clusters of 4 and 8 run
-- one block per SM at 55 FMA/clock, a quarter of the SM's; more, smaller
-- slices put more blocks on each SM. (A pruning choice, so the space stays
-- within what bartune expands: with the warp-specialised kinds copying
-- asynchronously and thread tiles below 8 x 8, where every split-K record's
-- best lay on the H200. 8 slices took the place of 32, never within 6.7% of
-- a shape's best: the bests hold 4 (512^3) and 16 (256 x 256 x 16384). With
-- only the counters cleared (scratch_zero) both still lose: 8 at 512^3
-- 0.0210 ms against 4's 0.0173, at tall-K 0.0701 and 32 0.0704 against
-- 16's 0.0666, NOTES.md 2026-12-03.)
param("scratch_split", { 1, 4, 8, 16 }, { when = function(c)
  return small(c) and c.raster == "row" and (c.split or 1) == 1 and c.barrier ~= "syncthreads" and
      c.producer ~= "regs" and c.tm * c.tn < 64
end })
-- scratch_sum: who adds a tile's slices. last: the last block to finish,
-- all of the tile (at 256 x 256 x 16384 the best's last block reads 16
-- slices of 16 KB alone). spread: every block of the tile 1 / scratch_split
-- of it, once all have written theirs (they wait for each other: blockIdx.x
-- is the tile's column times scratch_split plus the slice, so a tile's
-- blocks are consecutive and start together), as
-- gemm_bf16's spread. On the H200 at 256 x 256 x 16384, as twins: spread
-- 0.0646 ms against last's 0.0664 (NOTES.md 2026-12-06).
param("scratch_sum", { "last", "spread" }, { default = "last", when = function(c)
  return (c.scratch_split or 1) > 1
end })
-- Register-rich consumers (sm_90a): the producer warpgroup (four producer
-- warps) gives registers back with setmaxnreg and the 256 consumer threads
-- take them, 112 x 128 + 192 x 256 <= 168 x 384 (what the block is launched
-- with), where __launch_bounds__ alone leaves all 384 threads 168: too few for 8 x 16
-- consumers in 128 x 256 tiles (128 accumulators and two fragment sets),
-- and 128 x 128 tiles of 8 x 8 spilled (NOTES.md 2026-12-01). ptxas (nvcc
-- 13.0), 8 x 16 at 128 x 256 x 16 with cp.async and mbarrier: no spill at
-- 112 / 192 (104 / 200 spilled 12 bytes in the producers), and the
-- consumers' k-tile is 2048 FFMA in 2179 instructions (94%; the all-warps
-- 4096^3 best's 88%, cuBLAS's ~93%). Only with cp.async producers (register
-- producers hold a stage's values: a pruning choice too, the space's bound
-- on combinations), under each warp-specialised barrier kind. The variants
-- build for sm_90a (derive's arch_specific; a header built without the
-- sm_90a flags passes them over); "none" the default: the records stay
-- current. Measured on the H100 (NOTES.md 2026-12-06), mbarrier, 128 x 256 x
-- 8, 8 x 16: 4096^3 2.8056 ms against the all-warps best's 2.8256 (twins),
-- 2048^3 0.3596 against 0.3677; at 3001 x 2999 x 4097 (4-byte copies) 2.2661
-- against 1.7999. Named barriers 2.9596, cuda::barrier 2.9953 at 4096^3.
param("regs", { "none", "setmaxnreg" }, { default = "none", when = function(c)
  return c.barrier ~= "syncthreads" and cp_async_family(c) and c.producer_warps == 4 and c.tm == 8 and
      c.tn >= 8 and (c.bm // c.tm) * (c.bn // c.tn) == 256 and (c.min_blocks or 1) == 1 and
      (c.split or 1) == 1 and (c.scratch_split or 1) == 1
end })
-- The last round's tiles split along K (templates/sgemm/tail.cuh): T tiles
-- on S = SMs x min_blocks slots run T / S whole rounds and a last one of T %
-- S tiles, the rest of the SMs idle. At 3001 x 2999 x 4097 the best's 1128
-- tiles of 64 x 128 are 4 rounds of 264 and 72 tiles; the same variant runs
-- 9% slower there than its 4096^3 rate (the H100: 1.8473 ms against 3.1549
-- x the flops' 0.5365, the tile edges 2.7% of it), while 16-byte copies of
-- the unaligned operands bought nothing (pack, below). tail = s splits each
-- of those T % S tiles into s slices of K, summed through scratch memory by
-- the last slice to finish. Declared with 1 as the default (records stay
-- current), where no other split is; with every warp loading only in row
-- raster (whole tiles there take make_gemm's tile from blockIdx, tail.cuh).
param("tail", { 1, 3, 4 }, { default = 1, when = function(c)
  return (c.split or 1) == 1 and (c.scratch_split or 1) == 1 and c.bm * c.bn >= 64 * 128 and c.producer == "cp_async" and
      (c.loaders ~= "all" or c.raster == "row")
end })
-- Stream-K after rounds of whole tiles (templates/sgemm/streamk.cuh): the
-- last S + T % S tiles (all T where T < S) shared out as equal runs of
-- k-tiles over S blocks, each run crossing tile edges in one ring, so no
-- slot idles in a last, partly filled round (4096^3's 512 tiles of 128 x
-- 256 are 3.88 rounds of 132; 2048^3's 128 leave 4 SMs idle). The
-- register-rich kinds only, where the large shapes' bests are.
param("stream_k", { 0, 1 }, { default = 0, when = function(c)
  return c.regs == "setmaxnreg" and c.producer == "cp_async" and (c.tail or 1) == 1
end })
local cluster = function(c) return (c.split or 1) > 1 end
-- blocks per tile of C (slices of K), and whether their sums meet in scratch
local ksplit = function(c) return math.max(c.split or 1, c.scratch_split or 1) end
local scratch = function(c) return (c.scratch_split or 1) > 1 end

-- A split-K cluster's blocks one to an SM: the launch asks for more than half
-- an SM's shared memory. Without it the H200 packed split 8's clusters two
-- blocks to an SM (ncu at 256 x 256 x 16384: SMs active 57% of the kernel's
-- time on average, split 8 no faster than split 4; NOTES.md 2026-12-02).
launch_param("alone", { 0, 1 }, { when = cluster })

derive(function(c, dev)
  -- the template reads loaders everywhere: the warp-specialised kinds have producers
  if c.loaders == nil then c.loaders = "producers" end
  if c.min_blocks == nil then c.min_blocks = 1 end
  if c.warp == nil then c.warp = "block" end
  c.fault = c.fault or "none"  -- the pieces' fault hooks (tests/faults/sgemm_faults.lua)
  -- 4 floats after each row of A's stage spread its rows over the banks (a
  -- fixed choice since the warp tiles came in: the space's size)
  c.pad = 4
  c.consumer_threads = (c.bm // c.tm) * (c.bn // c.tn)
  local lanes_m = ({ wide = 4, tall = 8 })[c.warp]
  c.wm = lanes_m and lanes_m * c.tm or c.bm
  c.wn = lanes_m and (32 // lanes_m) * c.tn or c.bn
  c.threads = c.consumer_threads + (c.loaders == "producers" and 32 * c.producer_warps or 0)
  c.bar_area = (c.barrier == "cuda_barrier" or c.barrier == "mbarrier") and 512 or 0
  local a_stage = c.a_layout == "k" and c.bk * (c.bm + c.pad) or c.bm * (c.bk + c.pad)
  local stages_bytes = c.stages * (a_stage + c.bk * c.bn) * 4
  -- split-K: the first block of a cluster sums the tile in its stages' place
  -- (the template reserves the room under either split)
  local sum_bytes = ksplit(c) > 1 and c.bm * c.bn * 4 or 0
  c.smem_bytes = c.bar_area + math.max(stages_bytes, sum_bytes)
  if c.barrier == "mbarrier" then
    -- each producer thread arrives on full[s]; one lane per consumer warp on
    -- empty[s] (per-thread release was no faster in the pipeline space)
    c.release = "warp"
    c.full_count = 32 * c.producer_warps
    c.empty_count = c.consumer_threads // 32
  end
  local needs = { syncthreads = 70, named = 70, cuda_barrier = 80, mbarrier = 80 }
  local producer_needs = { regs = 70, cp_async = 80, bulk = 90, tensor_b = 90 }
  c.min_cc = math.max(needs[c.barrier], producer_needs[c.producer], cluster(c) and 90 or 70)
  if c.regs == "setmaxnreg" then
    -- setmaxnreg moves registers within the block's launch allocation (168 a
    -- thread at 384 threads): 112 x 128 + 192 x 256 <= 168 x 384. At 200 (the
    -- SM's 65536) every variant hung on the H100: the consumers' inc waited.
    c.producer_regs, c.consumer_regs = 112, 192
    c.arch_specific = true  -- built for sm_90a (tuner and header)
    c.min_cc = 90
  end
end)

-- tail with every warp loading (tail.cuh's rows): tiles_n x (tiles_m + L (s
-- - 1)) blocks, the last L rows of tiles split, L rows covering the r tiles
-- (and no more rows than a grid's 65535: the header's launches of 65535
-- rows of tiles split nothing).
-- A launch of `grid` whose blocks meet in scratch (tail, stream_k): a
-- counter per tile they share (whole 256-byte lines, kept zero by the
-- kernel), then `partials` partial tiles.
local function shared_tiles_geometry(c, grid, counted, partials, smem)
  local counters = ceil_div(counted, 64) * 64 * 4
  return { grid = grid, block = { c.threads }, smem = smem, min_cc = c.min_cc,
           scratch = counters + partials * c.bm * c.bn * 4, scratch_zero = counters, scratch_zero_kept = true }
end
-- A tail launch of `grid` that splits `split` tiles, s partial tiles each.
local function tail_geometry(c, grid, split, smem)
  return shared_tiles_geometry(c, grid, split, split * c.tail, smem)
end

-- tail = s: r = T % (SMs x min_blocks) tiles split. One dimension of
-- blocks, the T - r whole tiles and then r tiles of s slices each (the
-- kernel reads r back from gridDim.x); with every warp loading (tail.cuh's
-- rows) tiles_n x (tiles_m + L (s - 1)) blocks, the last L rows of tiles
-- split, L rows covering the r tiles (and no more rows than a grid's 65535:
-- the header's launches of 65535 rows of tiles split nothing).
local function tail_launch(c, s, dev, smem)
  local tiles_n, tiles_m = ceil_div(s.N, c.bn), ceil_div(s.M, c.bm)
  local r = tiles_n * tiles_m % (dev.sms * c.min_blocks)
  if c.loaders ~= "all" then return tail_geometry(c, { tiles_n * tiles_m + r * (c.tail - 1) }, r, smem) end
  local rows = min(ceil_div(r, tiles_n), max(65535 - tiles_m, 0) // (c.tail - 1))
  return tail_geometry(c, { tiles_n, tiles_m + rows * (c.tail - 1) }, rows * tiles_n, smem)
end

-- stream_k: S = SMs x min_blocks blocks a row; rows of whole tiles, T / S - 1
-- of them (none where T < 2 S), then one row sharing out the rest (the
-- kernel reads the split back from the grid). Scratch: counters for the
-- shared tiles, then two partial tiles a block of the last row.
local function stream_k_launch(c, s, dev, smem)
  local slots = dev.sms * c.min_blocks
  local tiles = ceil_div(s.N, c.bn) * ceil_div(s.M, c.bm)
  local rounds = max(tiles // slots - 1, 0)
  return shared_tiles_geometry(c, { slots, rounds + 1 }, tiles - rounds * slots, 2 * slots, smem)
end

-- One block per tile of C (per slice of K under split-K); what the runner
-- launches is what the header does. Split-K through scratch: a counter per
-- tile (whole 256-byte lines: the zero prefix, which the kernel leaves zero
-- for the next launch, so a call clears nothing), then `scratch_split`
-- partial tiles per tile (written before they are read).
launch(function(c, s, dev)
  local smem = c.alone == 1 and math.max(c.smem_bytes, dev.smem_per_sm // 2 + 1) or c.smem_bytes
  if (c.tail or 1) > 1 then return tail_launch(c, s, dev, smem) end
  if (c.stream_k or 0) == 1 then return stream_k_launch(c, s, dev, smem) end
  local tiles = ceil_div(s.N, c.bn) * ceil_div(s.M, c.bm)
  local counters = ceil_div(tiles, 64) * 64 * 4
  local grid = { ceil_div(s.N, c.bn), ceil_div(s.M, c.bm), ksplit(c) }
  if c.scratch_sum == "spread" then grid = { ceil_div(s.N, c.bn) * ksplit(c), ceil_div(s.M, c.bm), 1 } end
  -- tensor_b: B (N inner, K rows) in boxes of a k-tile; optional: zeros
  -- where B's address or ldb is not 16-byte aligned (the kernel copies B
  -- with cp.async there: any leading dimension and offset stays served)
  local maps = c.producer == "tensor_b" and
      { { buffer = "B", dims = { s.N, s.K }, strides = { s.ldb * 4 }, box = { c.bn, c.bk }, optional = true } } or nil
  return { grid = grid, block = { c.threads }, tensor_maps = maps,
           smem = smem, min_cc = c.min_cc,
           scratch = scratch(c) and counters + tiles * ksplit(c) * c.bm * c.bn * 4 or nil,
           scratch_zero = scratch(c) and counters or nil, scratch_zero_kept = scratch(c) or nil,
           together = c.scratch_sum == "spread" and ksplit(c) or nil }  -- a tile's blocks wait for each other
end)

-- How many times each block goes round its ring of k-tiles at sizes s (run
-- --sanitize refuses racecheck below 3).
reuse(function(c, s, dev)
  return ceil_div(s.K, c.bk) // ksplit(c) // c.stages
end)

-- The rings racecheck cannot judge (pipeline/sync_*.cuh, measured on the
-- H200 with tools/race-probe.cu, NOTES.md 2026-12-01): run --sanitize skips
-- racecheck there and says why.
racecheck_blind(sync_racecheck_blind)

-- architecture (min_cc), threads per block and shared memory per block
device_limits()
constraint("consumers are whole warps, at most 512 threads (registers)", function(c)
  return c.consumer_threads % 32 == 0 and c.consumer_threads <= 512
end)
constraint("warp tiles tile the block tile", function(c)
  return c.bm % c.wm == 0 and c.bn % c.wn == 0
end)
constraint("setmaxnreg: k-tiles of 8 or 16 (the producers' copies of a 32-deep k-tile spill at 112 registers)", function(c)
  return c.regs ~= "setmaxnreg" or c.bk <= 16
end)
constraint("register loading through all warps double-buffers: two stages", function(c)
  return not (c.loaders == "all" and c.producer == "regs") or c.stages == 2
end)
constraint("one block per SM leaves registers for the accumulators and fragments (2 tm tn)", function(c, dev)
  return c.regs == "setmaxnreg" or dev.regs_per_sm // c.threads >= 2 * c.tm * c.tn
end)
constraint("setmaxnreg: the consumers' registers hold the accumulators and fragments (tm tn + 64)", function(c)
  return c.regs ~= "setmaxnreg" or c.consumer_regs >= c.tm * c.tn + 64
end)
constraint("two blocks per SM fit the shared memory and threads", function(c, dev)
  return c.min_blocks == 1 or (2 * c.smem_bytes <= dev.smem_per_sm and 2 * c.threads <= dev.max_threads_per_sm)
end)
constraint("two blocks per SM leave registers for the accumulators and fragments (2 tm tn)", function(c, dev)
  return c.min_blocks == 1 or dev.regs_per_sm // (2 * c.threads) >= 2 * c.tm * c.tn
end)
constraint("named barrier ids 1..15: two per stage", function(c)
  return c.barrier ~= "named" or 2 * c.stages <= 15
end)
constraint("six stages only with k-tiles of 8 or 16 (a pruning choice: six of 32 leave one block per SM)", function(c)
  return c.stages <= 4 or c.bk <= 16
end)

-- Beside the best in every bench and report: the classic kernel, and the
-- seed's two kernels at its 4 + 4-warp shape (128 consumer threads).
baseline("classic 128x128x8 (all warps, registers)", { barrier = "syncthreads", loaders = "all",
  producer = "regs", bm = 128, bn = 128, bk = 8, tm = 8, tn = 8, warp = "block", stages = 2,
  a_layout = "k", raster = "row", min_blocks = 1 })
baseline("classic 128x128x8, two blocks per SM", { barrier = "syncthreads", loaders = "all",
  producer = "regs", bm = 128, bn = 128, bk = 8, tm = 8, tn = 8, warp = "tall", stages = 2,
  a_layout = "k", raster = "row", min_blocks = 2 })
local seed = { producer = "regs", producer_warps = 4, bm = 128, bn = 64, bk = 16, tm = 8, tn = 8,
  warp = "block", stages = 2, a_layout = "k", raster = "row", min_blocks = 1, split = 1 }
local function at(t) return merged(seed, t) end
baseline("seed shape 4+4, __syncthreads", at({ barrier = "syncthreads", loaders = "producers" }))
baseline("seed shape 4+4, cuda::barrier", at({ barrier = "cuda_barrier" }))
-- Emitted for GPUs with no tuned result: runs on any CUDA GPU (sm_70+).
portable("portable", { barrier = "syncthreads", loaders = "all", producer = "regs", bm = 64,
  bn = 64, bk = 8, tm = 4, tn = 4, stages = 2, a_layout = "k", raster = "row",
  min_blocks = 1, split = 1 })
