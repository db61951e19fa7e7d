-- A tune list too large to copy out of Lua (issue 17, class 8): what C
-- copies is held to a limit as the script is.
local sizes = {}
for i = 1, 4500000 do sizes[i] = { n = i } end
space { name = "bad", template = "pipeline.cu", problem = "pipeline", sizes = sizes }
param("stages", { 2 })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
