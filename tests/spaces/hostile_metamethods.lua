space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
-- Lists whose length and elements come from metamethods C would trigger.
param("stages", setmetatable({}, { __len = function() return 3 end, __index = function() return 2 end }))
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
