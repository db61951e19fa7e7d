space { name = "bad_wrap_length", template = "pipeline.cu", problem = "wrap_length" }
param("stages", { 2 })
derive(function(c) c.threads, c.smem_bytes = 64, 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
