-- A space whose expansion takes more than one call's 500 million Lua
-- instructions (a constraint that works hard for each candidate: sgemm's
-- 247,680 combinations take over 400 million): an expansion has a limit of
-- its own, and run --strategy expands in a call apart from the strategy's
-- start, which keeps a call's limits for itself
-- (tests/cases/strategy_limits_per_call.case, with tests/strategies/busy_seeds.lua).
space { name = "heavy_expand", template = "axpy2d.cu", problem = "axpy2d" }
param("block_x", { 16, 32, 64 })
param("block_y", { 2, 4, 8 })
derive(function(c) c.fault, c.threads, c.smem_bytes = "none", c.block_x * c.block_y, 0 end)
constraint("works hard", function(c)
  local x = 0
  for i = 1, 30000000 do x = x + i end
  return x > 0
end)
launch(function(c, s, dev)
  return { grid = { ceil_div(s.cols, c.block_x), ceil_div(s.rows, c.block_y) }, block = { c.block_x, c.block_y } }
end)
