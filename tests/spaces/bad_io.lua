space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
local f = io.open("/etc/passwd")
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
