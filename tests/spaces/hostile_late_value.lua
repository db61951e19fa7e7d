space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
local blocks = { 1, 2 }
launch_param("blocks_per_sm", blocks)
blocks[3] = "x; system()"   -- after the declaration: must not reach the space
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
