space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, "a b" })
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
