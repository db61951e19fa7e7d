-- The space of skeleton (written by bartune new; yours to change): producer
-- warps stage tiles of x through a ring of shared-memory stages, consumer
-- warps compute y from them, and the barrier that holds the two groups
-- together is a parameter. bartune's protocols (templates/pipeline/sync_*.cuh)
-- are swapped by its value alone.
--   bartune list skeleton.lua      the variants
--   bartune check skeleton.lua     two variants in one header, the CPU reference (no GPU)
--   bartune run skeleton.lua       compile, verify, time on this GPU; emit the header
space {
  name = "skeleton",
  template = "skeleton.cu",       -- templates/skeleton.cu beside this file
  problem = "skeleton",           -- problems/skeleton.lua beside this file
  group = { "barrier" },          -- bench and report show the best of each
}

param("barrier", { "named", "cuda_barrier", "mbarrier" })
param("producer_warps", { 1, 2 })
param("consumer_warps", { 2, 4, 8 })
param("stages", { 2, 3, 4 })
param("tile", { 1024, 4096 })          -- floats per stage
launch_param("blocks_per_sm", { 1, 2, 4 })  -- tried per compiled variant, no recompile

derive(function(c, dev)
  c.threads = 32 * (c.producer_warps + c.consumer_warps)
  -- the protocols' barrier objects come first in shared memory
  c.bar_area = c.barrier == "named" and 0 or 512
  c.smem_bytes = c.bar_area + c.stages * c.tile * 4
  c.min_cc = c.barrier == "named" and 70 or 80
  -- mbarrier: every producer thread arrives on full[s], lane 0 of every
  -- consumer warp on empty[s] (what templates/pipeline/sync_mbarrier.cuh pastes)
  c.full_count, c.empty_count, c.release = 32 * c.producer_warps, c.consumer_warps, "warp"
end)

-- One source of launch geometry: the runner launches it for numbers, the
-- header for the call's sizes (s.n is then known only at run time).
launch(function(c, s, dev)
  return { grid = { min(ceil_div(s.n, c.tile), dev.sms * c.blocks_per_sm) }, block = { c.threads },
           smem = c.smem_bytes, resident = c.blocks_per_sm, min_cc = c.min_cc }
end)

-- How many times each block goes round its ring at sizes s: run --sanitize
-- refuses racecheck below 3 (a stage never reused shows no hazard).
reuse(function(c, s, dev)
  local tiles = ceil_div(s.n, c.tile)
  return tiles // min(tiles, dev.sms * c.blocks_per_sm) // c.stages
end)

-- The rings racecheck cannot judge (measured on the H200 with
-- tools/race-probe.cu, NOTES.md 2026-12-01): run --sanitize skips racecheck
-- there and says why.
racecheck_blind(sync_racecheck_blind)

device_limits()
constraint("named barrier ids 1..15: two per stage", function(c)
  return c.barrier ~= "named" or 2 * c.stages <= 15
end)

baseline("named barriers, 1 + 4 warps", { barrier = "named", producer_warps = 1, consumer_warps = 4,
  stages = 2, tile = 1024, blocks_per_sm = 2 })
portable("portable", { barrier = "named", producer_warps = 1, consumer_warps = 4, stages = 2,
  tile = 1024, blocks_per_sm = 2 })
