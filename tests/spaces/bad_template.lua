space { name = "bad", template = "nope.cu", problem = "pipeline" }
param("stages", { 2 })
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
