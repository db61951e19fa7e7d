space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, 4 }
param("x", {1})
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
