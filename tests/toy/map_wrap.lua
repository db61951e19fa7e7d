-- Tensor maps whose bounds a product would wrap, or the copy engine would
-- refuse (issue 23, class 4): the CLI computes every bound by division and
-- records launch_refused before anything is sent (tests/cases/map_*.case).
-- An optional map with a stride the copy engine cannot take is passed as
-- zeros, not refused (its box still is checked); one it can take is checked
-- like any other.
space { name = "map_wrap", template = "axpy2d.cu", problem = "axpy2d", sizes = { { rows = 64, cols = 64 } } }
param("map", { "wrap", "stride", "box", "optional_stride", "optional_box", "optional_bad_box" })
derive(function(c)
  c.block_x, c.block_y, c.fault, c.rows_per_thread, c.threads, c.smem_bytes = 32, 4, "none", 1, 128, 0
end)
launch(function(c, s, dev)
  local m = { buffer = "x", dims = { 4, (1 << 28) + 1 }, strides = { 1 << 36 }, box = { 4, 1 } }
  if c.map == "stride" then m = { buffer = "x", dims = { 4, 2 }, strides = { 24 }, box = { 4, 1 } } end
  if c.map == "box" then m = { buffer = "x", dims = { 4, 2 }, strides = { 16 }, box = { 512, 1 } } end
  if c.map == "optional_stride" then m = { buffer = "x", dims = { 4, 2 }, strides = { 24 }, box = { 4, 1 }, optional = true } end
  if c.map == "optional_bad_box" then m = { buffer = "x", dims = { 4, 2 }, strides = { 24 }, box = { 512, 1 }, optional = true } end
  if c.map == "optional_box" then m = { buffer = "x", dims = { 4, 2 }, strides = { 16 }, box = { 512, 1 }, optional = true } end
  return { grid = { 1 }, block = { 32, 4 }, tensor_maps = { m } }
end)
