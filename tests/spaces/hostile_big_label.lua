-- A 40 MB constraint description (issue 17, class 8): refused where it is
-- declared, not copied into every message and report.
space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, 3 })
constraint(string.rep("x", 40 * 1000 * 1000), function(c) return c.stages == 2 end)
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
