space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", {})
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
