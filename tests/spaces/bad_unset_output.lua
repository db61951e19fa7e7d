space { name = "bad_unset_output", template = "pipeline.cu", problem = "unset_output" }
param("stages", { 2 })
derive(function(c) c.threads, c.smem_bytes = 64, 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
