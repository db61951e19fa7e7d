space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
-- Grows without end, catching the memory error.
local t = {}
for i = 1, 1e12 do pcall(function() t[#t + 1] = string.rep("x", 1 << 20) .. i end) end
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
