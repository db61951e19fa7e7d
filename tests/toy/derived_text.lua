-- derive() sets values a record cannot hold (text with a '+', a float): the
-- template still sees them; the record leaves them out, so it is read back
-- (tests/written_readable.sh runs it twice).
space { name = "derived_text", template = "axpy2d.cu", problem = "axpy2d" }
param("block_x", { 16, 32 })
derive(function(c)
  c.block_y, c.fault, c.checked = 8, "none", false
  c.threads, c.smem_bytes = c.block_x * c.block_y, 0
  c.note, c.ratio = "rows+cols", 1.5
end)
launch(function(c, s, dev)
  return { grid = { ceil_div(s.cols, c.block_x), ceil_div(s.rows, c.block_y) }, block = { c.block_x, c.block_y } }
end)
portable("portable", { block_x = 16 })
