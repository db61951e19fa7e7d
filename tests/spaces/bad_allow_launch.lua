space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, 4 })
launch_param("blocks_per_sm", { 1, 2 }, { allow = function(c, v) return true end })
launch(function(c, s, dev) return { grid = { 1 }, block = { 32 } } end)
