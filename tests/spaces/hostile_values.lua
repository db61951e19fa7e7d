space { name = "hostile_values", template = "pipeline.cu", problem = "hostile_values" }
param("stages", { 2 })
derive(function(c) c.threads, c.smem_bytes = 64, 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
