space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
-- One long C call: a pattern that backtracks for hours.
derive(function(c)
  c.threads = 64; c.smem_bytes = 0
  string.rep("a", 100000):find(".-.-.-.-.-.-.-b")
end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
