-- The toy space over problems/axpy2d.lua: a 2-D block shape and a fault,
-- so that a wrong variant is caught by the bound rule.
space { name = "axpy2d", template = "axpy2d.cu", problem = "axpy2d" }

param("block_x", { 16, 32, 64 })
param("block_y", { 2, 4, 8 })
param("fault", { "none", "skip_last_col" })
launch_param("rows_per_thread", { 1, 2 })

derive(function(c)
  c.threads = c.block_x * c.block_y
  c.smem_bytes = 0
end)
constraint("one faulty shape", function(c) return c.fault == "none" or (c.block_x == 32 and c.block_y == 4) end)

launch(function(c, s, dev)
  return { grid = { ceil_div(s.cols, c.block_x), ceil_div(s.rows, c.block_y * c.rows_per_thread) },
           block = { c.block_x, c.block_y } }
end)

portable("portable", { block_x = 32, block_y = 4, fault = "none", rows_per_thread = 1 })
