-- Search spaces: the declarations a gen/*.lua script may make, the expansion
-- of a space into variants, and rendering one variant through its template.
-- The C side calls M.load, M.variants and M.render; everything that is about
-- what a space means lives here, so a space is extended in Lua alone.
local template = ...
local M = {}

-- Names the template gets from bartune itself; a parameter may not take them.
local RESERVED = { n = true, ns = true, emit = true, kernel_name = true, include = true }

-- A parameter value is pasted into generated code, so it must be a plain
-- integer or identifier, never arbitrary text.
local function check_value(v, what, level)
  if math.type(v) == "integer" then return v end
  if type(v) == "string" and v:match("^[%a_][%w_]*$") then return v end
  error(string.format("%s: value %s is not a plain integer or identifier",
    what, type(v) == "string" and string.format("%q", v) or tostring(v)), level + 1)
end

-- Parses a command-line value ("4", "mbarrier") the same way.
local function parse_value(s, what)
  if s:match("^%-?%d+$") then return math.tointeger(tonumber(s)) end
  if s:match("^[%a_][%w_]*$") then return s end
  error(string.format("%s: value %q is not a plain integer or identifier", what, s), 0)
end

local function check_name(name, level)
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    error("parameter name must be an identifier, got " .. tostring(name), level + 1)
  end
  if RESERVED[name] then error("parameter name '" .. name .. "' is reserved by bartune", level + 1) end
end

local function sandbox(decl)
  local env = {
    assert = assert, error = error, ipairs = ipairs, pairs = pairs, next = next,
    select = select, tonumber = tonumber, tostring = tostring, type = type,
    pcall = pcall, rawequal = rawequal, rawget = rawget, rawlen = rawlen,
    rawset = rawset, setmetatable = setmetatable, getmetatable = getmetatable,
    string = string, table = table, math = math, utf8 = utf8,
  }
  for k, v in pairs(decl) do env[k] = v end
  return env
end

-- Loads a space script. `read` returns a template's text by name.
function M.load(text, chunkname, read)
  local S = { params = {}, launch = {}, derives = {}, constraints = {},
              baselines = {}, byname = {}, file = chunkname:gsub("^@", "") }
  local function add_param(list, launch)
    return function(name, values)
      check_name(name, 2)
      if S.byname[name] then error("parameter '" .. name .. "' is declared twice", 2) end
      if type(values) ~= "table" or #values == 0 then
        error("parameter '" .. name .. "' has no values (give a list such as {1, 2, 4})", 2)
      end
      local seen = {}
      for i, v in ipairs(values) do
        check_value(v, "parameter '" .. name .. "'", 2)
        if seen[v] then error("parameter '" .. name .. "' lists " .. tostring(v) .. " twice", 2) end
        seen[v] = i
      end
      local p = { name = name, values = values, launch = launch }
      list[#list + 1] = p
      S.byname[name] = p
    end
  end
  local function config_table(what)
    return function(label, cfg)
      if type(label) ~= "string" or type(cfg) ~= "table" then
        error(what .. " needs a label and a table of parameter values", 2)
      end
      for k, v in pairs(cfg) do check_value(v, what .. " '" .. label .. "' " .. tostring(k), 2) end
      S.baselines[#S.baselines + 1] = { label = label, config = cfg, portable = what == "portable" }
    end
  end
  local decl = {
    space = function(t)
      if S.name then error("space{} is declared twice", 2) end
      if type(t) ~= "table" then error("space{} needs a table", 2) end
      for _, k in ipairs({ "name", "template", "problem" }) do
        if type(t[k]) ~= "string" then error("space{} needs " .. k .. " = \"...\"", 2) end
      end
      if math.type(t.n) ~= "integer" or t.n < 1 then error("space{} needs n = a positive integer", 2) end
      local ok, err = read(t.template)
      if not ok then error("space '" .. t.name .. "': " .. err, 2) end
      for _, k in ipairs({ "bytes_per_item", "fma_per_item" }) do
        if t[k] ~= nil and (math.type(t[k]) ~= "integer" or t[k] < 0) then
          error("space{} " .. k .. " must be a non-negative integer", 2)
        end
      end
      S.name, S.template, S.problem, S.n = t.name, t.template, t.problem, t.n
      S.bytes_per_item, S.fma_per_item = t.bytes_per_item or 0, t.fma_per_item or 0
    end,
    param = add_param(S.params, false),
    launch_param = add_param(S.launch, true),
    derive = function(fn)
      if type(fn) ~= "function" then error("derive() needs a function(c, dev)", 2) end
      S.derives[#S.derives + 1] = fn
    end,
    constraint = function(desc, fn)
      if type(desc) ~= "string" or type(fn) ~= "function" then
        error("constraint() needs a description and a function(c, dev)", 2)
      end
      S.constraints[#S.constraints + 1] = { desc = desc, fn = fn }
    end,
    baseline = config_table("baseline"),
    portable = config_table("portable"),
  }
  local chunk, err = load(text, chunkname, "t", sandbox(decl))
  if not chunk then error(err, 0) end
  chunk()
  if not S.name then error(S.file .. ": no space{ name = ..., template = ... } declaration", 0) end
  if #S.params == 0 then error(S.file .. ": the space declares no param()", 0) end
  for _, b in ipairs(S.baselines) do
    for k in pairs(b.config) do
      if not S.byname[k] then
        error(string.format("%s: %s '%s' names unknown parameter '%s'", S.file,
          b.portable and "portable" or "baseline", b.label, k), 0)
      end
    end
  end
  return S
end

local function describe(c, S)
  local parts = {}
  for _, p in ipairs(S.params) do parts[#parts + 1] = p.name .. "=" .. tostring(c[p.name]) end
  return table.concat(parts, " ")
end

-- Runs the derive functions and the constraints on config c (a table of
-- parameter values). Returns true, or false and the failed constraint.
local function evaluate(S, c, dev)
  for _, fn in ipairs(S.derives) do
    local ok, err = pcall(fn, c, dev)
    if not ok then error(tostring(err) .. "\n  (in derive() for variant " .. describe(c, S) .. ")", 0) end
  end
  for _, k in ipairs({ "threads", "smem_bytes" }) do
    if math.type(c[k]) ~= "integer" then
      error(S.file .. ": derive() must set c." .. k .. " to an integer (variant " .. describe(c, S) .. ")", 0)
    end
  end
  for _, con in ipairs(S.constraints) do
    local ok, res = pcall(con.fn, c, dev)
    if not ok then
      error(tostring(res) .. "\n  (in constraint '" .. con.desc .. "' for variant " .. describe(c, S) .. ")", 0)
    end
    if not res then return false, con.desc end
  end
  return true
end

-- Applies command-line overrides (name -> string) to the value lists.
local function value_lists(S, overrides)
  local lists = {}
  for _, p in ipairs(S.params) do lists[p.name] = p.values end
  for _, p in ipairs(S.launch) do lists[p.name] = p.values end
  for name, s in pairs(overrides or {}) do
    if not lists[name] then
      local known = {}
      for _, p in ipairs(S.params) do known[#known + 1] = p.name end
      for _, p in ipairs(S.launch) do known[#known + 1] = p.name end
      error(string.format("unknown parameter '%s' in %s=%s (parameters of %s: %s)",
        name, name, s, S.file, table.concat(known, ", ")), 0)
    end
    lists[name] = { parse_value(s, name .. "=" .. s) }
  end
  return lists
end

-- Every compile-time variant that survives the constraints, in declaration
-- order, as { params = {{name, value}...}, derived = {{name, value}...} },
-- plus the launch values to try and how many each constraint rejected.
function M.variants(S, dev, overrides)
  local lists = value_lists(S, overrides)
  local out, rejected, total = {}, {}, 0
  local c = {}
  local function walk(i)
    if i > #S.params then
      total = total + 1
      local cfg = {}
      for k, v in pairs(c) do cfg[k] = v end
      local ok, why = evaluate(S, cfg, dev)
      if not ok then
        rejected[why] = (rejected[why] or 0) + 1
        return
      end
      local v = { params = {}, derived = {} }
      for _, p in ipairs(S.params) do v.params[#v.params + 1] = { p.name, cfg[p.name] } end
      local names = {}
      for k in pairs(cfg) do if not S.byname[k] then names[#names + 1] = k end end
      table.sort(names)
      for _, k in ipairs(names) do
        local val = cfg[k]
        if math.type(val) == "integer" or type(val) == "string" or type(val) == "boolean" then
          v.derived[#v.derived + 1] = { k, val }
        end
      end
      out[#out + 1] = v
      return
    end
    local p = S.params[i]
    for _, val in ipairs(lists[p.name]) do
      c[p.name] = val
      walk(i + 1)
    end
  end
  walk(1)
  local launch = {}
  for _, p in ipairs(S.launch) do launch[#launch + 1] = { p.name, lists[p.name] } end
  return out, launch, rejected, total
end

-- Renders one variant. `values` maps every compile-time parameter to a
-- string; `extra` adds bartune's own names (ns, emit, launch values...).
function M.render(S, values, dev, extra)
  local c = {}
  for _, p in ipairs(S.params) do
    local s = values[p.name]
    if s == nil then error("render: no value for parameter '" .. p.name .. "'", 0) end
    c[p.name] = parse_value(s, p.name)
  end
  local ok, why = evaluate(S, c, dev)
  if not ok then error("variant " .. describe(c, S) .. " violates constraint '" .. why .. "'", 0) end
  for k, v in pairs(extra or {}) do
    if v == "true" then v = true
    elseif v == "false" then v = false
    elseif v:match("^%-?%d+$") then v = math.tointeger(tonumber(v)) end
    c[k] = v
  end
  c.n = S.n
  return template.expand(S.template, c, M.read)
end

return M
