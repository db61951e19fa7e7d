space { name = "../../escape", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
