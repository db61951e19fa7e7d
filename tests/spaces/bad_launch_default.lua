space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
launch_param("blocks_per_sm", { 1, 2 }, { default = 1 })
launch(function(c, s, dev) return { grid = { 1 }, block = { 32 } } end)
