-- launch() that tells the header another geometry than the one measured
-- (tests/geometry.sh): symbols are tables, numbers are not, so it can tell
-- them apart; emit evaluates the header's geometry at the measured sizes
-- and refuses.
space { name = "geometry_lies", template = "axpy2d.cu", problem = "axpy2d" }
param("block_x", { 32 })
derive(function(c)
  c.block_y, c.fault, c.checked = 4, "none", false
  c.threads, c.smem_bytes = 128, 0
end)
launch(function(c, s, dev)
  local rows = ceil_div(s.rows, 4)
  if type(s.rows) == "table" then rows = ceil_div(s.rows, 8) end -- half the rows in the header
  return { grid = { ceil_div(s.cols, 32), rows }, block = { 32, 4 } }
end)
portable("portable", { block_x = 32 })
