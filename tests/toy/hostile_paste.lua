-- A derived value with C++ in it, for the template to paste: refused where
-- derive() sets it (tests/cases/hostile_paste.case); plain text pastes.
space { name = "hostile_paste", template = "paste.cu", problem = "axpy2d" }
param("kind", { "plain", "code" })
derive(function(c)
  c.block_x, c.block_y, c.fault, c.checked = 32, 4, "none", false
  c.threads, c.smem_bytes = 128, 0
  c.note = c.kind == "plain" and "rows+cols, 2-D" or 'x\n#include "/etc/passwd"\n'
end)
launch(function(c, s, dev) return { grid = { 1 }, block = { 32, 4 } } end)
