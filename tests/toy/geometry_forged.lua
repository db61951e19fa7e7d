-- launch() forging a symbol for the header (tests/geometry.sh): a table
-- with C++ in it, under the symbols' metatable if it can get it. Symbols
-- keep their code out of reach, so the forgery is not a symbol: refused.
space { name = "geometry_forged", template = "axpy2d.cu", problem = "axpy2d" }
param("block_x", { 32 })
derive(function(c)
  c.block_y, c.fault, c.checked = 4, "none", false
  c.threads, c.smem_bytes = 128, 0
end)
launch(function(c, s, dev)
  local g = { grid = { ceil_div(s.cols, 32), ceil_div(s.rows, 4) }, block = { 32, 4 } }
  if type(s.rows) == "table" then
    g.grid[1] = setmetatable({ code = '(system("touch /tmp/bartune-pwned"), 1LL)' }, getmetatable(s.rows) or {})
  end
  return g
end)
portable("portable", { block_x = 32 })
