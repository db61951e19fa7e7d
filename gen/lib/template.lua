-- The template expander. A template is CUDA source with two additions:
--   //% <lua>      a whole line of Lua (if/for/end, local x = ...)
--   $(expr)        the value of a Lua expression, pasted in place
-- Each template line becomes one line of the generated Lua chunk, so an error
-- reads "templates/pipeline.cu:42: ..." with the template's own line number.
-- Names a template sees: the variant's parameters and derived values, and
-- bartune's ns, kernel_name, kernel_linkage, emit, describe, include() and
-- shared() (a piece that reads nothing of the variant: written once a header);
-- all its code belongs in namespace $(ns) (README: "The template contract").
local M = {}

-- A read-only view of a library table, one per script or template: what it
-- does to it stays its own problem and never reaches bartune's copy.
function M.frozen(lib, name)
  local copy = {}
  for k, v in pairs(lib) do copy[k] = v end
  return setmetatable({}, {
    __index = copy,
    __newindex = function() error("the " .. name .. " library is read-only here", 2) end,
    __metatable = false,
  })
end

local function split_line(line, lineno, name)
  -- Returns Lua code that appends this literal line, with $(...) expanded.
  local parts, pos = {}, 1
  while true do
    local s = line:find("$(", pos, true)
    if not s then break end
    if s > pos then parts[#parts + 1] = string.format("%q", line:sub(pos, s - 1)) end
    local depth, i = 1, s + 2
    while i <= #line and depth > 0 do
      local ch = line:sub(i, i)
      if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1 end
      i = i + 1
    end
    if depth > 0 then
      error(string.format("%s:%d: unclosed $( in template", name, lineno), 0)
    end
    parts[#parts + 1] = "_s(" .. line:sub(s + 2, i - 2) .. ")"
    pos = i
  end
  if pos <= #line then parts[#parts + 1] = string.format("%q", line:sub(pos)) end
  parts[#parts + 1] = '"\\n"'
  return "_o[#_o+1]=" .. table.concat(parts, "..")
end

-- Compiles template text to a function(env, out) that appends to out.
function M.compile(text, name)
  local code = { "local _o, _s = ...;" }
  local lineno = 0
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    lineno = lineno + 1
    local lua = line:match("^%s*//%%(.*)$")
    code[#code + 1] = lua or split_line(line, lineno, name)
  end
  if code[#code] == '_o[#_o+1]="\\n"' then code[#code] = nil end -- the final newline
  -- The first line shares the chunk's line 1 with the prologue.
  code[2] = code[1] .. " " .. (code[2] or "")
  table.remove(code, 1)
  return table.concat(code, "\n")
end

-- A value pasted into source: integers print without ".0", nil is an error.
local function stringify(v)
  if v == nil then error("template expression is nil", 2) end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if type(v) == "number" then return string.format("%.9g", v) end
  return tostring(v)
end

-- Expands template `name` with the values of `vars`. `read` returns the text
-- of a template by name. Unknown names are errors, not empty strings; names
-- in `optional` (parameters that do not apply to this variant) read as nil.
function M.expand(name, vars, read, optional)
  local out, cache = {}, {}
  local env
  local function run(tname)
    local fn = cache[tname]
    if not fn then
      local text, err = read(tname)
      if not text then error(err, 0) end
      local code = M.compile(text, "templates/" .. tname)
      local chunk, cerr = load(code, "@templates/" .. tname, "t", env)
      if not chunk then error(cerr, 0) end
      fn, cache[tname] = chunk, chunk
    end
    fn(out, stringify)
  end
  -- shared(file): a piece that reads nothing of the variant, included
  -- outside namespace $(ns): guarded by a hash of its text, so a header that
  -- holds several variants compiles it once, and emit keeps its first copy only.
  local function shared(tname)
    local before = #out
    run(tname)
    local text = table.concat(out, "", before + 1)
    for i = #out, before + 1, -1 do out[i] = nil end
    local h = 2166136261
    for i = 1, #text do h = ((h ~ text:byte(i)) * 16777619) & 0xffffffff end
    local guard = string.format("BARTUNE_SHARED_%s_%08x", (tname:gsub("[^%w]", "_")):upper(), h)
    out[#out + 1] = "// bartune-shared " .. guard .. " begin\n#ifndef " .. guard .. "\n#define " .. guard ..
      "\n" .. text .. "#endif\n// bartune-shared " .. guard .. " end\n"
  end
  local helpers = {
    include = run, shared = shared,
    string = M.frozen(string, "string"), math = M.frozen(math, "math"), table = M.frozen(table, "table"),
    ipairs = ipairs, pairs = pairs, tostring = tostring, tonumber = tonumber,
    error = error, assert = assert, type = type,
  }
  env = setmetatable({}, {
    __index = function(_, k)
      local v = vars[k]
      if v == nil then v = helpers[k] end
      if v == nil and not (optional and optional[k]) then
        error("template uses unknown name '" .. tostring(k) .. "'", 2)
      end
      return v
    end,
    __newindex = function(_, k) error("template assigns global '" .. tostring(k) .. "'; use local", 2) end,
  })
  run(name)
  return table.concat(out)
end

return M
