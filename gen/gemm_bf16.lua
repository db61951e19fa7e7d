-- bf16 GEMM on Hopper tensor cores (problems/gemm_bf16.lua): the
-- warp-specialised kernel, TMA producers and wgmma consumers over a ring of
-- mbarrier-guarded stages, with the knobs that decide its speed; every
-- variant serves the four layouts (transa, transb) of the problem.
-- Thousands of variants of a few seconds of nvcc each: tune it with a
-- strategy, e.g.
--   bartune run gen/gemm_bf16.lua --strategy ils --budget 8m
space {
  name = "gemm_bf16",
  template = "gemm_bf16.cu",      -- pieces in templates/gemm_bf16/
  host = "gemm_bf16/host.cuh",    -- the header's run(): the simt path where TMA cannot go
  problem = "gemm_bf16",
  arch_specific = true,           -- sm_90a: wgmma and setmaxnreg
  group = { "schedule", "producer", "cluster", "grid", "epilogue", "split", "scratch_split" },
}

local hopper = function(c) return c.kind == "wgmma" end
local two = function(c) return hopper(c) and c.consumers == 2 end
-- wgmma: the Hopper kernel; simt: the plain kernel for other GPUs (portable)
param("kind", { "wgmma", "simt" })
param("bn", { 64, 128, 192, 256 }, { when = hopper })    -- tile columns: wgmma's N
param("wm", { 64, 128 }, { when = hopper })              -- tile rows per consumer warpgroup
param("consumers", { 1, 2 }, { when = hopper })          -- consumer warpgroups
-- cooperative: the warpgroups split one tile's rows; ping-pong: each its own
-- tile, main loops taking turns (one computes while the other stores)
param("schedule", { "cooperative", "pingpong" }, { when = two })
-- what orders the ping-pong main loops: named barriers or an mbarrier pair
param("order", { "named", "mbarrier" }, { when = function(c) return two(c) and c.schedule == "pingpong" end })
-- one producer warp issuing every copy, or a producer warpgroup (A and B
-- from two warps), which can give its registers to the consumers
param("producer", { "warp", "warpgroup" }, { when = hopper })
param("regs", { "none", "setmaxnreg" }, { when = function(c) return two(c) and c.producer == "warpgroup" end })
param("stages", { 2, 3, 4, 5, 6, 7, 8, 12 }, { when = hopper })
-- CTAs along M sharing B (multicast): each loads 1 / cluster of B's boxes
-- (a cluster splits B's 64-column boxes evenly, or each box's rows; the
-- latter not with cluster_n, a constraint below)
param("cluster", { 1, 2, 4 }, { when = hopper, allow = function(c, v)
  return (c.bn // 64) % v == 0 or v % (c.bn // 64) == 0
end })
param("grid", { "tile", "persistent" }, { when = hopper })  -- persistent: one CTA per SM walks tiles
param("raster", { "row", "grouped" }, { when = hopper })    -- grouped: 8 rows of tiles at a time (L2)
-- direct: C from registers; tma: through shared memory and the copy engine
-- (C's old values loaded by it while the main loop runs); tma_store: boxes
-- of 64 x 64 through two buffers a warpgroup, stored by the copy engine while
-- the next is written (old values from registers, as direct)
param("epilogue", { "direct", "tma", "tma_store" }, { when = hopper })
-- split-K for shapes of few tiles and long K (256 x 256 x 16384): a cluster
-- of `split` CTAs per tile, each over a share of K, summed in distributed
-- shared memory (no workspace); one tile per CTA, cooperative, direct stores
local splits_k = function(c)
  return two(c) and c.schedule == "cooperative" and c.grid == "tile" and c.cluster == 1 and c.epilogue == "direct"
end
param("split", { 1, 2, 4, 8 }, { when = splits_k })
-- the same for one consumer warpgroup (64-row tiles: at 256 x 256 x 16384,
-- 16 tiles x 8 = 128 CTAs where two warpgroups' 128 rows give 64), named
-- apart so that the one-consumer variants measured before it keep their names
-- (16, a non-portable cluster, was tried for the tall-K shape's 8 tiles of
-- 64 x 128 on 128 SMs: 7 clusters of 16 fit at once on the H200, so the 8th
-- runs in a second wave; tools/cluster-probe.cu, NOTES.md 2026-12-04)
param("split_one", { 1, 2, 4, 8 }, { default = 1, when = function(c)
  return hopper(c) and c.consumers == 1 and c.grid == "tile" and c.cluster == 1 and c.epilogue == "direct"
end })
-- split-K through scratch memory: `scratch_split` CTAs a tile (a grid row
-- each), any of them resident at any time, each over a share of K, writing
-- its fp32 sums to scratch; the last to finish adds them in order and stores.
-- More CTAs than a cluster holds (the tall-K shape has 4 tiles of 128 x 128).
-- (One consumer warpgroup and clusters, B multicast along M beside it, were
-- measured and lost: 256 x 256 x 16384 0.0198-0.0253 ms against split_one =
-- 8's 0.0142, 1024^3 0.0234 against 0.0098; the last CTA of a tile sums
-- the slices alone. NOTES.md 2026-12-04, twentieth.)
-- Back since for one warpgroup's tiles in clusters of 2 along M sharing B,
-- summed by scratch_sum = spread only (every CTA a share): cuBLAS's tall-K geometry (NOTES.md, 42nd
-- session: 128 CTAs of 64 x 64 in clusters of 2 along M, split-K, 42 MB of
-- L2 reads where our split_one = 8's 64 CTAs read 55; each SM taking in
-- ~0.5 MB where ours take 0.77, the rate the tall-K shape waits on). At 256
-- x 256 x 16384: 128 x 64 tiles x 16, 64 x 128 x 16 or 64 x 64 x 8 (128
-- CTAs each, 5, 4 and 6 matrix reads). H100, 44th session: 64 x 128 x 16
-- 0.0137 ms in both B layouts against split_one = 8's 0.0146 (bench 0.96x
-- cuBLAS); 128 x 64 x 16 0.0141, 64 x 64 x 8 0.0148
local one_scratch = function(c)
  return hopper(c) and c.consumers == 1 and c.grid == "tile" and c.cluster == 2 and c.epilogue == "direct"
    and c.raster == "row"
end
local scratch_splits_k = function(c) return splits_k(c) and c.split == 1 or one_scratch(c) end
param("scratch_split", { 1, 2, 4, 8, 16, 32 }, { default = 1, when = scratch_splits_k })
-- scratch_sum: who adds a tile's slices. last: the last CTA to finish, all
-- of the tile (the others need not run at once). spread: every CTA of the
-- tile, 1 / scratch_split of it each, once all have written their slices
-- (a reduce-scatter through L2: the CTAs of a tile wait for each other, so
-- they are consecutive blocks of a 1-D grid, which the block scheduler
-- starts in order: a tile's CTAs all run once the tiles before it have).
param("scratch_sum", { "last", "spread" }, { default = "last", when = function(c)
  return (c.scratch_split or 1) > 1
end })
-- 2 (1024^3: 64 tiles of 128 x 128 on 128 SMs) and 32 (the tall-K shape's 4
-- such tiles) are spread's: the last CTA would add 32 slices alone, and 2
-- leaves it half the work where spread gives each a half
constraint("scratch_split = 2 or 32: scratch_sum = spread", function(c)
  return c.scratch_sum ~= "last" or c.scratch_split == 4 or c.scratch_split == 8 or c.scratch_split == 16
end)
constraint("one warpgroup's scratch_split (clusters along M): scratch_sum = spread", function(c)
  return c.scratch_sum ~= "last" or c.consumers ~= 1
end)
-- split_scratch: the two levels at once, for the tall-K shape's few tiles
-- on every SM without clusters of 8 or more (at one CTA an SM the H200 holds
-- 15 clusters of 8 and 30 of 4, tools/cluster-probe.cu): a cluster of
-- `split` (or `split_one`) CTAs sums its tile in distributed shared memory
-- as above, each CTA then writing its row slice of the sums to scratch;
-- `split_scratch` such clusters a tile, one a grid row, each over a share
-- of K, and the last to finish a slice adds their slots in order and
-- stores it (a slice of 1 / split of the tile: the 8 x 8 slices that cost
-- scratch_split's last CTA its time become 8 KB or so). At 256 x 256 x
-- 16384: 128 x 64 tiles, 2 x 4 = 128 CTAs in clusters of 2, or 64 x 64, 2
-- x 4 (NOTES.md 2026-12-05). Where tiles are few: up to 128 columns, row
-- order (the grid's raster is moot there), clusters of 2 or 4 and 4 to 8
-- stages, so the space stays within the combinations bartune expands; and
-- 12, the ~200 KB in flight an SM that cuBLAS's tall-K kernel keeps (13
-- stages of 64 x 64 on the H200, 16 of 64 x 32 on the H100): a 64 x 64
-- CTA of 8 stages reads its 512 KB with 128 KB in flight, no faster than a
-- 128 x 64 one its 768 KB with 192 KB (H100, 42nd session: 0.0185 against
-- 0.0142 ms).
param("split_scratch", { 1, 2, 4, 8 }, { default = 1, when = function(c)
  local s = c.split or c.split_one or 1
  return (s == 2 or s == 4) and c.raster == "row" and c.bn <= 128 and c.stages >= 4
    and (c.stages <= 8 or c.stages == 12)
end })

-- The direct and tma_store epilogues' old values of C, when beta != 0:
-- loaded after the main loop (off), asked of L2 as each tile's main loop
-- starts (l2), loaded into registers then (regs, direct only), or asked of
-- L2 by the producer 8 k-tiles before a tile's last (late, tma_store only:
-- the copy engine's prefetch of C's boxes): their latency under the wgmmas,
-- and their memory traffic out of the epilogues that every SM runs at about
-- the same time
-- regs: the direct epilogue (tma_store's boxes load C's old values
-- themselves); late: the tma_store epilogue (its tensor map of C is what
-- the producer prefetches)
param("c_early", { "off", "l2", "regs", "late" }, { default = "off", when = function(c)
  return hopper(c) and (c.epilogue == "direct" or c.epilogue == "tma_store") and (c.split or 1) == 1
    and (c.scratch_split or 1) == 1 and (c.split_one or 1) == 1
end, allow = function(c, v)
  return (v ~= "regs" or c.epilogue == "direct") and (v ~= "late" or c.epilogue == "tma_store")
end })

-- c_early = late: how many k-tiles before a tile's last the producer asks
-- for its C (the consumers are about `stages` k-tiles behind it)
param("c_lead", { 4, 8, 16 }, { default = 8, when = function(c) return c.c_early == "late" end })

-- tma_store: C's old values of a box loaded before the box ahead of it is
-- written (box: one box ahead; tile: every box of the tile at once), so
-- their latency is paid once a tile rather than once a box. The registers
-- come from those the accumulators free box by box; a one-warp producer's
-- kernels spill (ptxas 13.0: 184-216 bytes at 128 x 256), so setmaxnreg's
-- kinds or few accumulators only
param("c_ahead", { "off", "box", "tile" }, { default = "off", when = function(c)
  return hopper(c) and c.epilogue == "tma_store" and (c.regs == "setmaxnreg" or (c.wm // 64) * c.bn // 2 <= 64)
end })

-- overlap: a tile's epilogue around the next tile's first k-tile (C's old
-- values loaded under the last k-tile, results packed into bf16 pairs, the
-- next k-tile issued, then the boxes written), so the tensor cores do not
-- idle through it (templates/gemm_bf16/overlap.cuh). Cooperative tma_store
-- kinds with setmaxnreg's registers (accumulators and packed pairs at once).
-- two: the next tile's first two k-tiles issued before the boxes are written
param("overlap", { "off", "on", "two" }, { default = "off", when = function(c)
  return hopper(c) and c.epilogue == "tma_store" and c.regs == "setmaxnreg" and c.schedule == "cooperative"
    and (c.c_ahead or "off") == "off" and (c.c_early == "off" or c.c_early == "late")
end })

-- stream_k: a persistent grid over every SM (as many clusters as fit)
-- where whole units leave some clusters idle through the last round: the
-- units left after the whole rounds are shared out as a stream of k-tiles,
-- a unit's pieces summed through scratch memory (tiles.cuh, streamk.cuh).
-- 4096^3 in 128 x 256 tiles is 3.88 rounds of 66 clusters; 8192^3 15.5
param("stream_k", { "off", "on" }, { default = "off", when = function(c)
  return c.overlap == "on" and c.grid == "persistent"
end })

-- inflight: wgmma groups a consumer leaves in flight in its main loop before
-- it waits (1: the last k-tile's, as CUTLASS's sm90 mainloops; 2: the last
-- two, a stage held longer so a late full barrier stalls the tensor cores
-- less). Cooperative kinds outside overlap (its loop is overlap.cuh's).
param("inflight", { 1, 2 }, { default = 1, when = function(c)
  return hopper(c) and c.schedule == "cooperative" and (c.overlap or "off") == "off"
end })

-- cluster_n: CTAs along N sharing A (multicast) beside those along M sharing
-- B (cluster): a unit of cluster x cluster_n tiles, each CTA loading 1 /
-- cluster_n of A's rows and 1 / cluster of B's boxes, so each operand's L2
-- reads are divided (at 4096^3 the 128 x 256 tiles read ~1 GB from L2 in
-- 188 us, about its bandwidth). Where that traffic is: the persistent
-- cooperative kinds of two warpgroups, clusters of 2 or 4 in all (a pruning
-- choice, so the space stays within what bartune expands); not with
-- stream_k or inflight = 2. Under split-K (split or split_one, row order):
-- each K slice's CTAs of the tiles along N share A, so a cluster is
-- cluster_n groups of `split` CTAs. At 256 x 256 x 16384 the 128 x 64
-- tiles read A 4 times and B twice (50 MB of L2 reads, where cuBLAS's
-- kernel reads 42 MB; NOTES.md, 42nd session); pairs along N read A twice
-- (34 MB), in 64 CTAs (split 8, clusters of 16) or 128 (split 4 in
-- clusters of 8 x split_scratch 4). And one warpgroup's 128-row tiles of a
-- tile grid in pairs along N: cuBLAS's 1024^3 kernel
-- (nvjet_sm90_tst_128x64_64x8_1x2: 128 x 64 tiles, 8 stages, clusters of
-- 1 x 2; NOTES.md, 21st session). H100, 43rd session: both lost or tied
-- (tall-K split_one = 8 x 2: 0.0167 ms against 0.0146, ncu 37 MB read at
-- 3.8 TB/s; 1024^3 0.0111, the best's time): each SM still takes in as many
-- bytes, and that rate, not L2's, is what the tall-K shape waits on.
param("cluster_n", { 1, 2 }, { default = 1, when = function(c)
  if not hopper(c) or (c.inflight or 1) ~= 1 then return false end
  if c.grid == "persistent" then
    return two(c) and c.schedule == "cooperative" and c.cluster <= 2 and (c.stream_k or "off") == "off"
  end
  return c.raster == "row" and c.cluster == 1 and ((c.split or c.split_one or 1) > 1 or c.consumers == 1 and c.wm == 128)
end })

-- fences: what a kernel's start and end wait for. full: cluster barriers
-- with release and acquire at both ends, the copy engine's stores of C
-- complete before a CTA leaves (as measured before this parameter). light:
-- a relaxed start, the producer's tail in place of the end's barrier where
-- CTAs multicast, only the stores' reads of shared memory
-- (templates/gemm_bf16/fences.cuh). Twins on the H100 (NOTES.md, 34th
-- session): tall-K split_one = 8 0.0149 -> 0.0137 ms, 1024^3 cluster_n = 2
-- 0.0121 -> 0.0111, 4096^3's best 0.1934 -> 0.1911; clusters of 1 tie.
-- Where clusters are (a pruning choice: the space stays within the
-- combinations bartune expands)
param("fences", { "full", "light" }, { default = "full", when = function(c)
  if not hopper(c) then return false end
  return c.raster == "row" and ((c.split_one or 1) >= 4 or (c.cluster_n or 1) > 1 and c.stages == 8
      or (c.scratch_split or 1) > 1 and c.consumers == 1)
    or c.cluster == 2 and c.grid == "persistent" and c.bn == 256 and c.stages == 4 and (c.overlap or "off") ~= "off"
end })

derive(function(c, dev)
  c.fault = c.fault or "none"
  if c.kind == "simt" then
    c.threads, c.smem_bytes, c.min_cc = 256, 0, 70
    return
  end
  c.schedule = c.schedule or "cooperative"
  c.split = c.split or c.split_one or 1
  if (c.split_scratch or 1) > 1 then c.scratch_split = c.split_scratch end  -- the template's name for it
  c.cluster_n = c.cluster_n or 1
  -- rows of a 64-column box of B each CTA loads: fewer than 64 where the
  -- cluster has more CTAs than B has boxes (the template's b_rows branch)
  c.b_rows = math.min(64, 64 * (c.bn // 64) // c.cluster)
  c.regs = c.regs or "none"
  c.rows = c.schedule == "pingpong" and c.wm or c.consumers * c.wm   -- a stage's A rows
  c.threads = c.consumers * 128 + (c.producer == "warp" and 32 or 128)
  c.producer_regs, c.consumer_regs = 40, 232                          -- 40 * 128 + 232 * 256 <= 65536
  c.acc_regs = (c.wm // 64) * c.bn // 2                               -- fp32 accumulators per thread
  -- C pairs whose old values the epilogue loads at once: all of a row where
  -- setmaxnreg gives the registers (or the accumulators are few), else 16
  -- (ptxas: no spills at 168 registers), 8 for 192 columns (24 pairs)
  c.epilogue_batch = (c.regs == "setmaxnreg" or c.acc_regs <= 64) and c.bn // 8 or (c.bn == 192 and 8 or 16)
  c.stage_bytes = (c.rows + c.bn) * 64 * 2
  c.c_bytes = c.epilogue == "tma" and c.consumers * c.wm * c.bn * 2            -- the epilogue's C buffers
    or c.epilogue == "tma_store" and c.consumers * 2 * 8192 or 0
  c.smem_bytes = 2048 + c.stages * c.stage_bytes + c.c_bytes          -- 1 KiB alignment, 1 KiB barriers
  c.min_cc = 90
end)

launch(function(c, s, dev)
  if c.kind == "simt" then
    return { grid = { ceil_div(s.N, 64), ceil_div(s.M, 64) }, block = { 256 }, min_cc = 70 }
  end
  local tiles_m, tiles_n = ceil_div(s.M, c.rows), ceil_div(s.N, c.bn)
  -- (cluster_n = 1 keeps each expression's form: the header's code of it stays as it was)
  local units = ceil_div(tiles_m, c.cluster) * (c.cluster_n > 1 and ceil_div(tiles_n, c.cluster_n) or tiles_n)
  local blocks
  if c.grid == "persistent" then
    blocks = min(units, dev.sms // (c.cluster * c.cluster_n))
  else
    blocks = c.schedule == "pingpong" and ceil_div(units, 2) or units
  end
  -- A: K inner, M rows, one box of 64 x rows (transa: M inner, K rows,
  -- boxes of 64 x 64); B: N inner, K rows, boxes of 64 x 64 (transb: K
  -- inner, N rows); C (tma epilogues): N inner, M rows, boxes of 64 x a
  -- warpgroup's rows (tma_store: 64 x 64). The layouts are sizes of declared values: numbers
  -- here, also in the header (problems/gemm_bf16.lua).
  local a = s.transa == 1 and { dims = { s.M, s.K }, box = { 64, 64 } }
    or { dims = { s.K, s.M }, box = { 64, c.rows // c.cluster_n } }  -- cluster_n: a CTA's share of the rows
  local b = s.transb == 1 and { dims = { s.K, s.N } } or { dims = { s.N, s.K } }
  local maps = {
    { buffer = "A", dims = a.dims, strides = { s.lda * 2 }, box = a.box, swizzle = 128 },
    { buffer = "B", dims = b.dims, strides = { s.ldb * 2 }, box = { 64, c.b_rows }, swizzle = 128 },
  }
  if c.epilogue ~= "direct" then
    maps[3] = { buffer = "C", dims = { s.N, s.M }, strides = { s.ldc * 2 },
      box = { 64, c.epilogue == "tma" and c.wm or 64 }, swizzle = 128 }
  end
  if c.stream_k == "on" then
    -- every cluster (units or not); 1024 flags (one a CTA, however far the
    -- runner and the header lower the grid to what runs at once: the kernel
    -- places its slots after them; the zero prefix, which the kernel leaves
    -- zero: each flag's waiter lowers it), then a slot of rows x bn fp32 sums
    -- a CTA
    local ctas = dev.sms // c.cluster * c.cluster
    local flags = 1024 * 4
    return { grid = { ctas }, block = { c.threads }, smem = c.smem_bytes, resident = 1, min_cc = 90,
      tensor_maps = maps, scratch = flags + ctas * c.rows * c.bn * 4, scratch_zero = flags,
      scratch_zero_kept = true, persistent = c.cluster >= 4 or nil }
  end
  local ss = c.scratch_split or 1
  if ss > 1 then
    -- a counter per CTA of a grid row (whole 256-byte lines: the zero
    -- prefix, which the kernel leaves zero for the next launch): per tile, or under split_scratch per row slice
    -- of it, a cluster of `split` CTAs; then each tile's ss partial tiles of
    -- fp32 sums. A tile's CTAs are a grid row each (last, split_scratch), or
    -- blocks u * ss .. u * ss + ss - 1 (spread)
    -- (the units' CTAs as one number: cluster_n = 1 keeps the header's expressions as they were)
    local ctas = blocks * (c.cluster * c.cluster_n) * c.split
    local counters = ceil_div(ctas, 64) * 64 * 4
    -- spread: a unit's ss x cluster consecutive CTAs wait for each other (together)
    return { grid = c.scratch_sum == "spread" and { ctas * ss } or { ctas, ss }, block = { c.threads },
      smem = c.smem_bytes, resident = 1, min_cc = 90, tensor_maps = maps,
      scratch = counters + blocks * (c.cluster * c.cluster_n) * ss * c.rows * c.bn * 4, scratch_zero = counters,
      scratch_zero_kept = true,
      together = c.scratch_sum == "spread" and ss * (c.cluster * c.cluster_n) * c.split or nil }
  end
  -- persistent: clusters of 4 or more, so that the runner and the header
  -- launch only as many as fit at once (30 of 4 on the H200, not 132 / 4;
  -- NOTES.md 2026-12-04, twenty-first); clusters of 1 and 2 keep their text
  -- (all 66 of 2 fit there) until a GPU run has checked the header's count
  local fill = c.grid == "persistent" and c.cluster * c.cluster_n >= 4 or nil
  local dims = c.cluster * c.cluster_n * c.split  -- a cluster's CTAs: over 8, a non-portable size
  return { grid = { blocks * (c.cluster * c.cluster_n) * c.split }, block = { c.threads }, smem = c.smem_bytes, resident = 1,
    min_cc = 90, tensor_maps = maps, cluster = dims > 8 and dims or nil, persistent = fill }
end)

-- How many times each block goes round its ring of k-tiles at sizes s, at
-- least (run --sanitize refuses racecheck below 3); the plain kind has none.
reuse(function(c, s, dev)
  if c.kind == "simt" then return 1 << 30 end
  return ceil_div(s.K, 64) // c.split // (c.scratch_split or 1) // c.stages
end)

device_limits()
constraint("the Hopper kind on sm_90 and up, the plain kind below it", function(c, dev)
  return (c.kind == "wgmma") == (dev.arch >= 90)
end)
constraint("accumulators fit the registers: at most 128 fp32 per thread", function(c)
  return not hopper(c) or c.acc_regs <= 128
end)
-- (b_rows: a cluster of more CTAs than B's boxes, as 64 x 64 tiles in
-- clusters of 2 along M: each CTA loads its share of a box's rows, so a
-- CTA reads 192 KB of L2 a 1024^3 tile rather than 256; ncu at 1024^3
-- counted 1.31 M L2 sectors for our best against cuBLAS's 0.73 M, whose
-- CTAs share A in pairs. NOTES.md 2026-12-05, not yet measured.)
constraint("a cluster that splits each of B's boxes by rows runs without cluster_n", function(c)
  return not hopper(c) or (c.bn // 64) % c.cluster == 0 or c.cluster_n == 1
end)
constraint("stream_k: at most 1024 CTAs, one an SM (templates/gemm_bf16/streamk.cuh's flags)", function(c, dev)
  return (c.stream_k or "off") == "off" or dev.sms <= 1024
end)
constraint("a cluster of 16 CTAs at most (split x cluster_n: 16 is a non-portable size)", function(c)
  return not hopper(c) or c.cluster * c.cluster_n * c.split <= 16
end)
constraint("cluster_n splits A's 64-row boxes evenly (a stage's rows)", function(c)
  return not hopper(c) or (c.rows // 64) % c.cluster_n == 0
end)
constraint("split-K: the sums (rows x (bn + 8) fp32) fit where the stages were", function(c)
  return not hopper(c) or c.split == 1 or c.rows * (c.bn + 8) * 4 <= c.stages * c.stage_bytes
end)
-- What ptxas allocates a thread: the register file over the block's threads
-- rounded up to whole warpgroups, in steps of 8 (ptxas 13.0: 168 at 288
-- threads; setmaxnreg moves registers at run time, not in this allocation).
local function reg_cap(c)
  return math.min(255, 65536 // (ceil_div(c.threads, 128) * 128) // 8 * 8)
end
constraint("c_early = regs: accumulators, C's old values (half as many) and ~24 more fit the registers", function(c)
  return not hopper(c) or c.c_early ~= "regs" or c.acc_regs * 3 // 2 + 24 <= reg_cap(c)
end)
-- (Found by a run: at two stages every overlap = two variant hung at 2048^3.)
constraint("overlap = two holds k-tiles 0 and 1 before it waits for k-tile 2: three stages or more", function(c)
  return (c.overlap or "off") ~= "two" or c.stages >= 3
end)
constraint("inflight = 2 holds two stages while it waits for a third: three stages or more", function(c)
  return (c.inflight or 1) == 1 or c.stages >= 3
end)
constraint("two warpgroups of 128 accumulators each need setmaxnreg's registers (or a one-warp producer)", function(c)
  return not two(c) or c.acc_regs < 128 or c.regs == "setmaxnreg" or c.producer == "warp"
end)

-- Beside the best in every bench: CUTLASS's usual Hopper schedules at
-- 128 x 256 (cooperative, 2 consumer warpgroups) and ping-pong 64 x 256.
local coop = { kind = "wgmma", bn = 256, wm = 64, consumers = 2, schedule = "cooperative",
  producer = "warpgroup", regs = "setmaxnreg", stages = 4, cluster = 1, grid = "persistent", raster = "grouped",
  epilogue = "direct" }
baseline("cooperative 128x256, setmaxnreg", coop)
baseline("ping-pong 64x256, named order", merged(coop, { schedule = "pingpong", order = "named" }))
-- Emitted for GPUs with no tuned result: runs on any CUDA GPU (sm_70+).
portable("portable", { kind = "simt" })
