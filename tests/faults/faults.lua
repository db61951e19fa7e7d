-- Fault injection: correct variants of the pipeline problem beside variants
-- broken on purpose, one per way a barrier kernel goes wrong. A run must
-- classify each fault with its own status, go on, and still pick a correct
-- variant as the best. Run with --templates tests/faults (see gpu_faults.sh).
space {
  name = "faults",
  template = "faults.cu",
  problem = "pipeline",            -- bartune's gen/problems/pipeline.lua
  sizes = { { n = 1048577 } },     -- not a multiple of any block's work
}

param("fault", {
  "none",
  "compile_error",          -- does not compile
  "ptxas_smem",             -- ptxas: more static shared memory than a block may have
  "smem_launch",            -- asks the device for more dynamic shared memory than it has
  "threads_launch",         -- more threads per block than the kernel allows
  "divergent_syncthreads",  -- warp 0 never reaches the barrier the others wait at
  "mbar_count",             -- mbarrier initialised for one more arrival than happens
  "expect_tx_no_copy",      -- expect_tx of 16 bytes that no copy ever delivers
  "named_count",            -- bar.sync counting 256 threads, only 128 arrive
  "illegal_address",        -- a store far past the end: sticky error, runner dies
  "out_of_bounds",          -- a store just past the end of out
  "wrong_constant",         -- 0.998f instead of 0.999f
  "race",                   -- a shared-memory exchange with its barrier left out
  "nan",                    -- one output NaN
  "unwritten",              -- one output never written
  "infinite_loop",          -- thread 0 never ends
  "slow_compile",           -- nvcc runs past the compile time limit
  "first_launches_only",    -- computes on the first launches, then returns at once
  "printf",                 -- prints a forged runner answer on stdout
  "write_before",           -- a store just before the start of out
  "write_input",            -- correct output, but writes into in
  "poison_only",            -- computes only where out still holds the (first) poison pattern
  "hidden_race",            -- correct output, but a shared-memory race (racecheck's to find)
  "replay_output",          -- computes on the first launch, then copies that answer back
  "hash_preserving_damage", -- correct output, but leaves in changed so a linear checksum holds
  "none_again",             -- correct, after all the faults: nothing of theirs lands on it
})
param("warps", { 4, 8 })
launch_param("blocks_per_sm", { 2 })

derive(function(c, dev)
  c.threads = 32 * c.warps
  if c.fault == "threads_launch" then c.threads = 2048 end
  c.smem_bytes = c.fault == "smem_launch" and 16 * 1024 * 1024 or 1024
end)
launch(function(c, s, dev)
  return { grid = { c.blocks_per_sm * dev.sms }, block = { c.threads }, smem = c.smem_bytes,
           resident = c.blocks_per_sm }
end)
-- Only one shape per fault: the correct variants differ in warps.
constraint("faults at one shape", function(c) return c.fault == "none" or c.warps == 4 end)
