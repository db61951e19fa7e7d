space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
-- A finalizer that never ends: hooks do not run inside __gc.
setmetatable({}, { __gc = function() while true do end end })
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
