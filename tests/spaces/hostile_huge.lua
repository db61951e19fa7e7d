space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
-- 100^8 combinations: refused before the work starts.
local v = {}
for i = 1, 100 do v[i] = i end
for _, n in ipairs({ "a", "b", "c", "d", "e", "f", "g", "h" }) do param(n, v) end
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
