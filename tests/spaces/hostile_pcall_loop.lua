space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
-- Catches the limit's error with its own pcall and goes on.
derive(function(c)
  c.threads = 64; c.smem_bytes = 0
  while true do pcall(function() while true do end end) end
end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
