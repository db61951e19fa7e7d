-- A space name longer than a record may hold (issue 17): refused where it is
-- declared, not recorded and then unreadable.
space { name = "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
derive(function(c) c.threads, c.smem_bytes = 64, 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
