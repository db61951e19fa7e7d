-- 100,000 variants, each with 32 derived values: held in C they are ~100
-- MiB, where copying the whole list out of Lua as JSON at once charged
-- more than the 512 MiB limit (bartune refused it: "a runaway table?").
space { name = "many", template = "pipeline.cu", problem = "pipeline" }
for _, name in ipairs({ "a", "b", "c", "d", "e" }) do param(name, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }) end
derive(function(c)
  c.threads, c.smem_bytes = 64, 0
  for i = 1, 30 do c["derived_" .. i] = c.a * i + c.e end
end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
