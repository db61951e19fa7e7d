-- A tune list of 200,000 sizes (tests/signals.sh): SIGTERM and Ctrl-C end a
-- run over it at once, in any phase.
local sizes = {}
for i = 1, 200000 do sizes[i] = { rows = 10 + i % 100, cols = 1000 + i } end
space { name = "long_tune", template = "axpy2d.cu", problem = "axpy2d", sizes = sizes }
param("block_x", { 32 })
derive(function(c) c.block_y, c.fault, c.checked, c.threads, c.smem_bytes = 4, "none", false, 128, 0 end)
launch(function(c, s, dev) return { grid = { ceil_div(s.cols, 32), ceil_div(s.rows, 4) }, block = { 32, 4 } } end)
