space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
param("stages", { 4 })
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
