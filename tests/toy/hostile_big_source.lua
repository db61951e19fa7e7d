-- A template expanding to more source than any kernel needs (issue 17,
-- class 8): refused before bartune copies it (tests/cases/hostile_big_source.case).
space { name = "hostile_big_source", template = "runaway.cu", problem = "axpy2d" }
param("block_x", { 32 })
derive(function(c) c.block_y, c.fault, c.checked, c.threads, c.smem_bytes = 4, "none", false, 128, 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { 32, 4 } } end)
