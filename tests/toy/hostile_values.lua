-- Values that are not what they seem (issue 23, class 1), one per kind: a
-- table whose __tostring is C++, a table hiding an entry behind __index, a
-- function, a rewritten parameter, a metatable on the config itself, a
-- parameter rewritten by a constraint. Each is refused where derive() (or
-- the constraint) sets it (tests/cases/hostile_values_*.case); kind=plain
-- renders.
space { name = "hostile_values", template = "paste.cu", problem = "axpy2d" }
param("kind", { "plain", "tostring", "index", "func", "rewrite", "config_mt", "constraint" })
param("block_x", { 32 })
derive(function(c)
  c.block_y, c.fault, c.checked = 4, "none", false
  c.threads, c.smem_bytes = 128, 0
  c.note = "rows+cols"
  if c.kind == "tostring" then
    c.note = setmetatable({}, { __tostring = function() return "0; } asm(\"trap;\"); {" end })
  elseif c.kind == "index" then
    c.note = setmetatable({}, { __index = function() return "x; evil" end })
  elseif c.kind == "func" then
    c.note = function() return "x" end
  elseif c.kind == "rewrite" then
    c.block_x = c.block_x .. " + 0; evil"
  elseif c.kind == "config_mt" then
    setmetatable(c, { __index = function() return "x; evil" end })
  end
end)
constraint("a constraint that writes", function(c)
  if c.kind == "constraint" then c.block_x = 64 end
  return true
end)
launch(function(c, s, dev) return { grid = { 1 }, block = { 32, 4 } } end)
