-- The seed's producer/consumer pipeline (seeds/000) over the problem in
-- problems/pipeline.lua. Add a value to a list, a param() or a constraint()
-- here; no C changes.
space {
  name = "pipeline",
  template = "pipeline.cu",     -- under templates/
  host = "pipeline/host.cuh",   -- the emitted header's entry (peels unaligned heads)
  problem = "pipeline",         -- problems/pipeline.lua
  group = { "barrier", "producer" },  -- how bartune report groups the variants
}

-- Compile-time parameters: each combination is one rendered .cu. A
-- parameter with `when` exists only where the predicate holds (it sees the
-- parameters declared before it).
local staged = function(c) return c.barrier ~= "none" end
local plain = function(c) return c.barrier == "none" end
-- "none": the plain elementwise kernel (no shared memory), the yardstick.
param("barrier", { "none", "syncthreads", "named", "cuda_barrier", "mbarrier" })
-- "seed": the lesson's two kernels as it writes them (two __syncthreads per
-- tile; cuda::barrier with every thread counted and arrive_and_wait).
param("form", { "tuned", "seed" }, { when = function(c)
  return c.barrier == "syncthreads" or c.barrier == "cuda_barrier" end })
param("producer", { "regs", "cp_async", "bulk" }, { when = staged })
param("producer_warps", { 1, 2, 4 }, { when = staged })
param("consumer_warps", { 4, 6, 8 })
param("stages", { 2, 4 }, { when = staged })
param("tile", { 1024, 2048 }, { when = staged })   -- floats per stage
param("vec", { 4 }, { when = staged })             -- floats per producer access
param("cvec", { 1, 4, 8, 16 })                     -- floats per consumer step: independent FMA chains
param("release", { "thread", "warp" }, { when = function(c) return c.barrier == "mbarrier" end })
-- The plain kind's own knobs (see templates/pipeline/schedule_elementwise.cuh).
param("chunk", { "stride", "block" }, { when = plain })
param("prefetch", { 0, 1 }, { when = plain })
-- Launch-time: tried for every compiled variant, no recompile.
launch_param("blocks_per_sm", { 1, 2, 4, 6, 8, 12, 16 })

-- Values every variant needs, computed once here.
derive(function(c, dev)
  local objects = c.barrier == "cuda_barrier" or c.barrier == "mbarrier"
  if plain(c) then
    c.threads = 32 * c.consumer_warps
    c.smem_bytes = 0
  else
    c.threads = 32 * (c.consumer_warps + c.producer_warps)
    c.bar_area = objects and 256 or 0
    c.smem_bytes = c.bar_area + c.stages * c.tile * 4
  end
  if c.barrier == "mbarrier" then
    c.full_count = c.producer == "bulk" and 1 or 32 * c.producer_warps
    c.empty_count = c.release == "warp" and c.consumer_warps or 32 * c.consumer_warps
  end
  local needs = { none = 70, syncthreads = 70, named = 70, cuda_barrier = 80, mbarrier = 80 }
  c.min_cc = math.max(needs[c.barrier], c.producer == "bulk" and 90 or c.producer == "cp_async" and 80 or 70)
end)

-- One source of launch geometry: the runner launches what this returns, and
-- the emitted header computes the same from the call's n and the GPU's SMs.
launch(function(c, s, dev)
  local per_block = c.barrier == "none" and c.threads * c.cvec or c.tile
  return { grid = { min(c.blocks_per_sm * dev.sms, ceil_div(s.n, per_block)) },
           block = { c.threads }, smem = c.smem_bytes, resident = c.blocks_per_sm, min_cc = c.min_cc }
end)

-- How many times each block goes round its ring at sizes s (run --sanitize
-- refuses racecheck below 3); the plain kind has no ring to reuse.
reuse(function(c, s, dev)
  if c.barrier == "none" then return 1 << 30 end
  local tiles = ceil_div(s.n, c.tile)
  return tiles // min(tiles, dev.sms * c.blocks_per_sm) // c.stages
end)

-- The rings racecheck cannot judge (measured on the H200 with
-- tools/race-probe.cu, NOTES.md 2026-12-01): run --sanitize skips racecheck
-- there and says why.
racecheck_blind(sync_racecheck_blind)

-- architecture (min_cc), threads per block and shared memory per block
device_limits()
constraint("the seed's kernels: register producers, 2 stages of 1024 floats, one chain", function(c)
  return c.form ~= "seed" or (c.producer == "regs" and c.stages == 2 and c.tile == 1024 and c.cvec == 1
    and c.producer_warps + c.consumer_warps == 8 and c.producer_warps >= 2)
end)
constraint("16 chains per thread only in the plain kernel", function(c)
  return c.cvec <= 8 or plain(c)
end)
constraint("one chain per thread only at the seed's shape (it never wins elsewhere)", function(c)
  return c.cvec > 1 or (c.producer == "regs" and c.stages == 2 and c.tile == 1024)
end)
constraint("named barrier ids 1..15: two per stage", function(c)
  return c.barrier ~= "named" or 2 * c.stages <= 15
end)
constraint("bulk copies complete on an mbarrier transaction count", function(c)
  return c.producer ~= "bulk" or c.barrier == "mbarrier"
end)
constraint("bulk copies are issued by one elected thread: one producer warp", function(c)
  return c.producer ~= "bulk" or c.producer_warps == 1
end)
constraint("producers cover a tile in whole steps", function(c)
  return plain(c) or c.tile % (32 * c.producer_warps * c.vec) == 0
end)

-- The seed's kernels, shown beside the best in every report: as the lesson
-- writes them, and bartune's one-barrier lockstep at the same shape. Eight
-- blocks an SM: the lesson names no grid, and eight is what the H200's
-- records show fastest for each of them (NOTES.md 2026-12-05).
local seed = { producer = "regs", stages = 2, tile = 1024, vec = 4, cvec = 1, blocks_per_sm = 8 }
local function at(t) return merged(seed, t) end
baseline("seed __syncthreads 4+4", at({ barrier = "syncthreads", form = "seed", producer_warps = 4, consumer_warps = 4 }))
baseline("seed cuda::barrier 4+4", at({ barrier = "cuda_barrier", form = "seed", producer_warps = 4, consumer_warps = 4 }))
baseline("seed __syncthreads 2+6", at({ barrier = "syncthreads", form = "seed", producer_warps = 2, consumer_warps = 6 }))
baseline("seed cuda::barrier 2+6", at({ barrier = "cuda_barrier", form = "seed", producer_warps = 2, consumer_warps = 6 }))
baseline("1-barrier lockstep 4+4", at({ barrier = "syncthreads", form = "tuned", producer_warps = 4, consumer_warps = 4 }))
baseline("plain float4 elementwise", { barrier = "none", consumer_warps = 8, cvec = 4,
  chunk = "stride", prefetch = 0, blocks_per_sm = 8 })
-- Emitted for GPUs with no tuned result: runs on any CUDA GPU.
portable("portable", at({ barrier = "syncthreads", form = "tuned", producer_warps = 2,
  consumer_warps = 4, blocks_per_sm = 4 }))
