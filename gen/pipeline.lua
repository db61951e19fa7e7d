-- The seed's producer/consumer pipeline (seeds/000): out[i] = f^64(in[i]).
-- Add a value to a list, a param() or a constraint() here; no C changes.
space {
  name = "pipeline",
  template = "pipeline.cu",  -- under templates/
  problem = "pipeline",      -- the runner's CPU reference and kernel ABI
  n = 1 << 28,
  -- What one element costs at least, for the floor `bartune bench` reports:
  bytes_per_item = 8,        -- read 4 B, write 4 B
  fma_per_item = 64,         -- the chain
}

-- Compile-time parameters: each combination is one rendered .cu.
-- "none": the plain elementwise kernel (no shared memory), the yardstick.
param("barrier", { "none", "syncthreads", "named", "cuda_barrier", "mbarrier" })
param("producer", { "regs", "cp_async", "bulk" })
param("producer_warps", { 1, 2, 4 })
param("consumer_warps", { 4, 6, 8 })
param("stages", { 2, 4 })
param("tile", { 1024, 2048 })   -- floats per stage
param("vec", { 4 })             -- floats per producer access
param("cvec", { 1, 4, 8, 16 })  -- floats per consumer step: independent FMA chains
param("release", { "thread", "warp" })
-- The plain kind's own knobs (see templates/pipeline/schedule_elementwise.cuh).
param("chunk", { "stride", "block" })
param("prefetch", { 0, 1 })
-- Launch-time: tried for every compiled variant, no recompile.
launch_param("blocks_per_sm", { 1, 2, 4, 6, 8, 12, 16 })

-- Values every variant needs, computed once here.
derive(function(c, dev)
  local plain = c.barrier == "none"
  c.threads = 32 * (c.consumer_warps + (plain and 0 or c.producer_warps))
  local objects = c.barrier == "cuda_barrier" or c.barrier == "mbarrier"
  c.bar_area = objects and 256 or 0
  c.smem_bytes = plain and 0 or c.bar_area + c.stages * c.tile * 4
  c.full_count = c.producer == "bulk" and 1 or 32 * c.producer_warps
  c.empty_count = c.release == "warp" and c.consumer_warps or 32 * c.consumer_warps
  local needs = { none = 70, syncthreads = 70, named = 70, cuda_barrier = 80, mbarrier = 80 }
  c.min_cc = math.max(needs[c.barrier], c.producer == "bulk" and 90 or c.producer == "cp_async" and 80 or 70)
  c.align_bytes = c.producer == "bulk" and 16 or 4 * math.min(4, math.max(c.vec, c.cvec))
end)

constraint("the device's architecture has the barrier and producer", function(c, dev)
  return dev.arch >= c.min_cc
end)
constraint("threads per block within the device's limit", function(c, dev)
  return c.threads <= dev.max_threads_per_block
end)
constraint("shared memory within the device's per-block limit", function(c, dev)
  return c.smem_bytes <= dev.smem_per_block
end)
constraint("the plain kernel has no producers, stages or tiles: one canonical variant per shape", function(c)
  return c.barrier ~= "none" or (c.producer == "regs" and c.producer_warps == 1 and c.stages == 2
    and c.tile == 1024 and c.release == "thread")
end)
constraint("chunk and prefetch are knobs of the plain kernel", function(c)
  return c.barrier == "none" or (c.chunk == "stride" and c.prefetch == 0)
end)
constraint("16 chains per thread only in the plain kernel", function(c)
  return c.cvec <= 8 or c.barrier == "none"
end)
constraint("one chain per thread only at the seed's shape (it never wins elsewhere)", function(c)
  return c.cvec > 1 or (c.producer == "regs" and c.stages == 2 and c.tile == 1024)
end)
constraint("lockstep needs two stages (one to fill, one to drain)", function(c)
  return c.barrier ~= "syncthreads" or c.stages >= 2
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
constraint("per-warp release applies to raw mbarriers (other kinds count threads)", function(c)
  return c.release == "thread" or c.barrier == "mbarrier"
end)
constraint("producers cover a tile in whole steps", function(c)
  return c.tile % (32 * c.producer_warps * c.vec) == 0
end)

-- The seed's two kernels at its 4+4-warp, double-buffered shape, shown
-- beside the best in every report.
baseline("seed __syncthreads 4+4", { barrier = "syncthreads", producer = "regs",
  producer_warps = 4, consumer_warps = 4, stages = 2, tile = 1024, vec = 4, cvec = 1, release = "thread" })
baseline("seed cuda::barrier 4+4", { barrier = "cuda_barrier", producer = "regs",
  producer_warps = 4, consumer_warps = 4, stages = 2, tile = 1024, vec = 4, cvec = 1, release = "thread" })
baseline("plain float4 elementwise", { barrier = "none", consumer_warps = 8, cvec = 4,
  chunk = "stride", prefetch = 0 })
-- Emitted for GPUs with no tuned result: runs on any CUDA GPU.
portable("portable", { barrier = "syncthreads", producer = "regs", producer_warps = 2,
  consumer_warps = 4, stages = 2, tile = 1024, vec = 1, cvec = 1, release = "thread", chunk = "stride",
  prefetch = 0, blocks_per_sm = 4 })
