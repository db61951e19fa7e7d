space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
-- Replaces the checks' tools, then declares a value that is code.
pcall(function() string.match = function() return "ok" end end)
pcall(function() getmetatable("").__index.match = function() return "ok" end end)
param("stages", { 2, "2; asm(\"trap;\")" })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
