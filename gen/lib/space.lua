-- Search spaces: the declarations a gen/*.lua script may make, the expansion
-- of a space into variants, launch geometry, and rendering one variant
-- through its template. The C side calls the functions of M; everything
-- about what a space means lives here, so a space is extended in Lua alone.
local template, problem = ...
local M = {}

-- Names the template gets from bartune itself; a parameter may not take them.
local RESERVED = { emit = true, kernel_name = true, kernel_linkage = true, include = true,
  describe = true, ns = true, ctype = true }
local IDENT = "^[%a_][%w_]*$"
-- Names and values are recorded, and a record is read back only with
-- identifiers of at most this many characters (tuner/record.c): what is
-- written must be readable, so the same limit holds where they are declared.
local MAX_NAME = 64
local function plain_ident(s) return type(s) == "string" and #s <= MAX_NAME and s:match(IDENT) ~= nil end
-- Labels and descriptions reach messages, reports and headers' comments:
-- one printable line of at most this many characters.
local MAX_LABEL = 200
function M.plain_label(s) return type(s) == "string" and #s >= 1 and #s <= MAX_LABEL and not s:find("[%c\127]") end

-- A parameter value is pasted into generated code, so it must be a plain
-- integer or identifier, never arbitrary text.
local function check_value(v, what, level)
  if math.type(v) == "integer" then return v end
  if plain_ident(v) then return v end
  error(string.format("%s: value %s is not a plain integer or an identifier of at most %d characters",
    what, type(v) == "string" and string.format("%q", v:sub(1, 80)) or tostring(v), MAX_NAME), level + 1)
end

-- Parses a command-line or record value ("4", "mbarrier") the same way.
local function parse_value(s, what)
  if s:match("^%-?%d+$") then
    local v = math.tointeger(tonumber(s))
    if v then return v end
  end
  if s:match(IDENT) then return s end
  error(string.format("%s: value %q is not a plain integer or identifier", what, s), 0)
end

local function check_name(name, level)
  if not plain_ident(name) then
    error("parameter name must be an identifier of at most " .. MAX_NAME .. " characters, got " ..
      tostring(name):sub(1, 80), level + 1)
  end
  if RESERVED[name] then error("parameter name '" .. name .. "' is reserved by bartune", level + 1) end
end

-- The environment of a space or problem script: the safe base functions,
-- the libraries, and its declarations.
-- setmetatable without finalizers: a __gc function would run where no
-- limit reaches it.
local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc finalizers are not allowed in a space script", 2)
  end
  return setmetatable(t, mt)
end

function M.sandbox(decl)
  local env = {
    assert = assert, error = error, ipairs = ipairs, pairs = pairs, next = next,
    select = select, tonumber = tonumber, tostring = tostring, type = type,
    pcall = pcall, rawequal = rawequal, rawget = rawget, rawlen = rawlen,
    rawset = rawset, setmetatable = safe_setmetatable, getmetatable = getmetatable,
    string = template.frozen(string, "string"), table = template.frozen(table, "table"),
    math = template.frozen(math, "math"), utf8 = template.frozen(utf8, "utf8"),
  }
  for k, v in pairs(problem.helpers) do env[k] = v end
  for k, v in pairs(decl) do env[k] = v end
  return env
end

-- Loads a space script. `read` returns a template's text by name;
-- `read_problem` a problem script's text and chunk name by problem name.
-- `read_space` a space file beside this one (space{ extends = "x.lua" }).
function M.load(text, chunkname, read, read_problem, read_space)
  local S = { params = {}, launch = {}, derives = {}, constraints = {},
              baselines = {}, byname = {}, file = chunkname:gsub("^@", ""), inheriting = 0 }
  local decl
  -- space{ extends = "other.lua", name = ... }: the other space's file runs
  -- first, as if its lines stood where this space{} is (its params,
  -- derives, constraints, launch, reuse, baselines and portable configs
  -- are this space's too); its space{} fields are the defaults of this
  -- one's, but for name, which each space names for itself (its records).
  local extended = { [chunkname:match("[^/]*$")] = true }
  local function extend(file)
    if type(file) ~= "string" then
      error("space{} extends must name a space file beside this one, such as \"gemm_bf16.lua\"", 3)
    end
    if extended[file] then error("space{} extends " .. file .. ", which is already being extended (a cycle)", 3) end
    local n = 0
    for _ in pairs(extended) do n = n + 1 end
    if n > 8 then error("space{} extends more than 8 spaces deep", 3) end
    extended[file] = true
    local ptext, pchunk = read_space(file)
    if not ptext then error("space{} extends: " .. pchunk, 3) end
    local chunk, err = load(ptext, pchunk, "t", M.sandbox(decl))
    if not chunk then error(err, 0) end
    S.inheriting = S.inheriting + 1  -- what it names, this space may name again
    chunk()
    S.inheriting = S.inheriting - 1
    if not S.declared then error(pchunk:gsub("^@", "") .. ": no space{ name = ..., ... } declaration to extend", 0) end
    local base = S.declared
    S.extends = S.extends or {}
    table.insert(S.extends, 1, S.name)  -- the spaces this one extends, nearest first
    S.declared, S.name = nil, nil
    return base
  end
  local function add_param(list, launch)
    return function(name, values, opts)
      check_name(name, 2)
      if S.byname[name] then error("parameter '" .. name .. "' is declared twice", 2) end
      if type(values) ~= "table" or rawlen(values) == 0 then
        error("parameter '" .. name .. "' has no values (give a list such as {1, 2, 4})", 2)
      end
      if opts ~= nil and (type(opts) ~= "table" or (opts.when ~= nil and type(opts.when) ~= "function") or
          (opts.allow ~= nil and type(opts.allow) ~= "function")) then
        error("parameter '" .. name .. "': the third argument is { when = function(c) ... end, " ..
          "allow = function(c, v) ... end, default = value }", 2)
      end
      if opts and opts.allow and launch then
        error("launch parameter '" .. name .. "' takes no allow (give its variants a constraint instead)", 2)
      end
      local seen, copy = {}, {}
      for i = 1, rawlen(values) do
        local v = rawget(values, i)
        check_value(v, "parameter '" .. name .. "'", 2)
        if seen[v] then error("parameter '" .. name .. "' lists " .. tostring(v) .. " twice", 2) end
        seen[v] = i
        copy[i] = v
      end
      -- default: the value a variant had before this parameter was declared.
      -- A variant at it is named without it (its source and its records
      -- stay as they were); one that names no value for it gets it.
      local default = opts and opts.default
      if default ~= nil and launch then
        error("launch parameter '" .. name .. "' takes no default (a launch value is no part of a variant's name)", 2)
      elseif default ~= nil and not seen[default] then
        local shown = type(default) == "number" or type(default) == "string" and #default <= 60
        error("parameter '" .. name .. "': its default " .. (shown and tostring(default) .. " " or "") ..
          "is not one of its values", 2)
      end
      -- allow(c, v): whether value v is open to the earlier parameters'
      -- values in c. A constraint on this parameter and earlier ones, but
      -- the expansion never walks the combinations it closes (a space's
      -- bound is on the combinations walked).
      local p = { name = name, values = copy, launch = launch, when = opts and opts.when,
                  allow = opts and opts.allow, default = default }
      list[#list + 1] = p
      S.byname[name] = p
    end
  end
  local function config_table(what)
    return function(label, cfg)
      if not M.plain_label(label) or type(cfg) ~= "table" then
        error(what .. " needs a label (printable, at most " .. MAX_LABEL .. " characters) and a table of parameter values", 2)
      end
      local copy = {}
      for k, v in pairs(cfg) do copy[k] = check_value(v, what .. " '" .. label .. "' " .. tostring(k), 2) end
      local entry = { label = label, config = copy, portable = what == "portable", depth = S.inheriting }
      for i, b in ipairs(S.baselines) do
        if b.label == label and b.portable == entry.portable then
          -- one the extended space named: this space's takes its place
          if b.depth > entry.depth then S.baselines[i] = entry return end
          error(what .. " '" .. label .. "' is declared twice", 2)
        end
      end
      S.baselines[#S.baselines + 1] = entry
    end
  end
  decl = {
    space = function(t)
      if S.name then error("space{} is declared twice", 2) end
      if type(t) ~= "table" then error("space{} needs a table", 2) end
      if t.extends ~= nil then
        local base, own = extend(t.extends), t
        t = {}
        for _, k in ipairs({ "template", "problem", "host", "arch_specific", "group", "sizes" }) do
          if own[k] ~= nil then t[k] = own[k] else t[k] = base[k] end
        end
        t.name = own.name
      end
      for _, k in ipairs({ "name", "template", "problem" }) do
        if type(t[k]) ~= "string" then error("space{} needs " .. k .. " = \"...\"", 2) end
      end
      if not plain_ident(t.name) then
        error("space{} name must be a C identifier of at most " .. MAX_NAME .. " characters, got " .. t.name:sub(1, 80), 2)
      end
      if not plain_ident(t.problem) then
        error("space{} problem must be an identifier of at most " .. MAX_NAME .. " characters, got " .. t.problem:sub(1, 80), 2)
      end
      local ok, err = read(t.template)
      if not ok then error("space '" .. t.name .. "': " .. err, 2) end
      if t.host ~= nil then
        if type(t.host) ~= "string" then error("space{} host must name a template", 2) end
        ok, err = read(t.host)
        if not ok then error("space '" .. t.name .. "': " .. err, 2) end
      end
      S.name, S.template, S.host, S.problem_name = t.name, t.template, t.host, t.problem
      S.declared = { template = t.template, problem = t.problem, host = t.host, arch_specific = t.arch_specific,
                     group = t.group, sizes = t.sizes }
      S.tune_override = t.sizes
      -- arch_specific: compiled for the device's feature set (sm_90a:
      -- wgmma, setmaxnreg), whose code runs on that architecture alone
      if t.arch_specific ~= nil and type(t.arch_specific) ~= "boolean" then
        error("space{} arch_specific must be true or false", 2)
      end
      S.arch_specific = t.arch_specific == true
      S.group = {}
      if t.group ~= nil then -- parameters whose values group variants in `bartune report`
        if type(t.group) ~= "table" then error("space{} group must be a list of parameter names", 2) end
        for i = 1, rawlen(t.group) do
          local g = rawget(t.group, i)
          if type(g) ~= "string" or not g:match(IDENT) then error("space{} group names parameters", 2) end
          S.group[i] = g
        end
      end
    end,
    param = add_param(S.params, false),
    launch_param = add_param(S.launch, true),
    derive = function(fn)
      if type(fn) ~= "function" then error("derive() needs a function(c, dev)", 2) end
      S.derives[#S.derives + 1] = fn
    end,
    constraint = function(desc, fn)
      if not M.plain_label(desc) or type(fn) ~= "function" then
        error("constraint() needs a description (printable, at most " .. MAX_LABEL .. " characters) and a function(c, dev)", 2)
      end
      S.constraints[#S.constraints + 1] = { desc = desc, fn = fn }
    end,
    -- The limits every kernel has, on the derived threads, smem_bytes and
    -- min_cc (the compute capability the variant needs, e.g. 80).
    device_limits = function()
      local function add(desc, fn) S.constraints[#S.constraints + 1] = { desc = desc, fn = fn } end
      add("the device's architecture has the barrier and producer", function(c, dev)
        return dev.arch >= (c.min_cc or 0)
      end)
      add("threads per block within the device's limit", function(c, dev)
        return c.threads <= dev.max_threads_per_block
      end)
      add("shared memory within the device's per-block limit", function(c, dev)
        return c.smem_bytes <= dev.smem_per_block
      end)
    end,
    launch = function(fn)
      if type(fn) ~= "function" then error("launch() needs a function(c, s, dev)", 2) end
      if S.geometry then error("launch() is declared twice", 2) end
      S.geometry = fn
    end,
    -- reuse(function(c, s, dev) return rounds end): how many times each
    -- block goes round its ring of stages at sizes s (every stage reused
    -- rounds - 1 times); run --sanitize refuses a size where it is below 3,
    -- since racecheck sees no hazard on a stage that is never reused
    reuse = function(fn)
      if type(fn) ~= "function" then error("reuse() needs a function(c, s, dev)", 2) end
      if S.reuse then error("reuse() is declared twice", 2) end
      S.reuse = fn
    end,
    -- racecheck_blind(function(c, dev) return nil or "why" end): the
    -- variants whose synchronisation racecheck cannot judge (a report there
    -- means nothing either way, tools/race-probe.cu); run --sanitize skips
    -- racecheck on them and records why
    racecheck_blind = function(fn)
      if type(fn) ~= "function" then error("racecheck_blind() needs a function(c, dev)", 2) end
      if S.racecheck_blind then error("racecheck_blind() is declared twice", 2) end
      S.racecheck_blind = fn
    end,
    -- sync_racecheck_blind(c): why racecheck cannot judge a ring of the
    -- barrier protocols in templates/pipeline/sync_*.cuh (c.barrier, and
    -- c.release for mbarrier), nil where it can; measured on the H200 with
    -- tools/race-probe.cu (NOTES.md 2026-12-01). racecheck_blind(
    -- sync_racecheck_blind) in a space that uses them.
    sync_racecheck_blind = function(c)
      if c.barrier == "named" then
        return "bar.arrive rings: racecheck flags a correct one when several blocks share an SM " ..
          "and misses a real race (a stage released before it is read) with one block per SM"
      end
      if c.barrier == "mbarrier" and c.release == "warp" then
        return "lane 0 arrives for its warp after __syncwarp: racecheck flags every read of such " ..
          "a ring, though correct (the same ring with per-thread arrivals is clean)"
      end
    end,
    -- merged(a, b): a new table with a's pairs, then b's (for baselines
    -- that differ from a common configuration in a few values)
    merged = function(a, b)
      local out = {}
      for k, v in pairs(a) do out[k] = v end
      for k, v in pairs(b) do out[k] = v end
      return out
    end,
    baseline = config_table("baseline"),
    portable = config_table("portable"),
  }
  local chunk, err = load(text, chunkname, "t", M.sandbox(decl))
  if not chunk then error(err, 0) end
  chunk()
  if not S.name then error(S.file .. ": no space{ name = ..., template = ..., problem = ... } declaration", 0) end
  if #S.params == 0 then error(S.file .. ": the space declares no param()", 0) end
  if not S.geometry then
    error(S.file .. ": no launch(function(c, s, dev) return { grid = ..., block = ..., smem = ... } end)", 0)
  end
  local ptext, pchunk = read_problem(S.problem_name)
  if not ptext then error(S.file .. ": " .. pchunk, 0) end
  S.problem = problem.load(ptext, pchunk, M.sandbox, read_problem)
  if S.problem.name ~= S.problem_name then
    error(string.format("%s declares problem '%s', not '%s'", pchunk:gsub("^@", ""), S.problem.name, S.problem_name), 0)
  end
  S.tune = problem.tune_list(S.problem, S.tune_override or S.problem.tune,
    S.tune_override and S.file or S.problem.file)
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
  for _, p in ipairs(S.params) do
    if c[p.name] ~= nil then parts[#parts + 1] = p.name .. "=" .. tostring(c[p.name]) end
  end
  return table.concat(parts, " ")
end

-- A parameter's `when` (c) or `allow` (c, v) asked about c, its error naming both.
local function ask(S, p, what, fn, c, v)
  local ok, res = pcall(fn, c, v)
  if not ok then
    error(tostring(res) .. "\n  (in the " .. what .. " of parameter '" .. p.name .. "' for " .. describe(c, S) .. ")", 0)
  end
  return res and true or false
end

local function applies(S, p, c)
  return not p.when or ask(S, p, "when", p.when, c)
end

-- Whether value v of parameter p is open to the combination c so far (its allow).
local function allowed(S, p, c, v)
  return not p.allow or ask(S, p, "allow", p.allow, c, v)
end

-- Derived values reach templates, which paste them into kernels: text in
-- them (in tables too) is names, numbers and the separators , = . + - and
-- space, so nothing C++ could read as code of its own (a quote, bracket,
-- semicolon, comment, backslash or newline) comes in through a value. The
-- template's own text is its own.
local PLAIN, MAX_TEXT = "^[%w_ ,=.+-]*$", 4096
local function check_derived(S, c, k, v, depth)
  if type(v) == "string" and (#v > MAX_TEXT or not v:match(PLAIN)) then
    error(string.format("%s: derive() set c.%s to text C++ could read as code ('%s'): derived text is pasted into kernels; give names, numbers and the separators , = . + - and space (variant %s)",
      S.file, k, (v:sub(1, 60):gsub("[^%w_ ,=.+-]", "?")), describe(c, S)), 0)
  elseif type(v) == "number" and (v ~= v or v == math.huge or v == -math.huge) then
    error(S.file .. ": derive() set c." .. k .. " to " .. tostring(v) .. " (variant " .. describe(c, S) .. ")", 0)
  elseif type(v) == "table" and depth < 4 then
    for kk, vv in pairs(v) do check_derived(S, c, k .. "." .. tostring(kk), vv, depth + 1) end
  end
end

-- What a template may be given: numbers (finite), booleans, text that
-- check_derived allows, and tables of them without a metatable (walked with
-- next, so no __pairs or __index hides or forges an entry); copied, so that
-- no __tostring or later change reaches the template. Anything else is an
-- error naming the value.
local function plain_copy(S, c, k, v, depth)
  local t = type(v)
  if t == "number" or t == "boolean" or t == "string" then
    check_derived(S, c, k, v, depth)
    return v
  end
  local bad
  if t ~= "table" then
    bad = "a " .. t
  elseif getmetatable(v) ~= nil then
    bad = "a table with a metatable (its __tostring or __index would decide what is pasted)"
  elseif depth >= 4 then
    bad = "tables nested deeper than 4"
  end
  if bad then
    error(string.format("%s: derive() set c.%s to %s: only numbers, booleans, plain text and plain tables of them reach a template (variant %s)",
      S.file, k, bad, describe(c, S)), 0)
  end
  local out = {}
  for kk, vv in next, v do
    if type(kk) ~= "string" and math.type(kk) ~= "integer" then
      error(string.format("%s: derive() set c.%s with a %s key (variant %s)", S.file, k, type(kk), describe(c, S)), 0)
    end
    out[kk] = plain_copy(S, c, k .. "." .. tostring(kk), vv, depth + 1)
  end
  return out
end

-- Runs the derive functions and the constraints on config c (a table of
-- parameter values). Parameters that apply are read-only to both: what the
-- template pastes is what the records hold. Returns true and the config as
-- the template gets it (a plain copy), or false and the failed constraint.
local function evaluate(S, c, dev)
  local given = {}
  for k, v in next, c do given[k] = v end
  for _, fn in ipairs(S.derives) do
    local ok, err = pcall(fn, c, dev)
    if not ok then error(tostring(err) .. "\n  (in derive() for variant " .. describe(given, S) .. ")", 0) end
  end
  local function unchanged(what)
    if getmetatable(c) ~= nil then
      error(S.file .. ": " .. what .. " set a metatable on the config (variant " .. describe(given, S) .. ")", 0)
    end
    for k, v in pairs(given) do
      if rawget(c, k) ~= v then
        error(string.format("%s: %s changed parameter %s from %s to %s: parameters are read-only (set a derived value instead; variant %s)",
          S.file, what, k, tostring(v), tostring(rawget(c, k)):sub(1, 60), describe(given, S)), 0)
      end
    end
  end
  unchanged("derive()")
  local out = {}
  for k, v in next, c do
    if given[k] ~= nil then out[k] = v else out[k] = plain_copy(S, c, k, v, 0) end
  end
  for _, k in ipairs({ "threads", "smem_bytes" }) do
    local v = rawget(out, k)
    if math.type(v) ~= "integer" or v < 0 or v > 0x7fffffff then
      error(S.file .. ": derive() must set c." .. k .. " to an integer in 0..2^31-1 (variant " .. describe(c, S) .. ")", 0)
    end
  end
  for _, con in ipairs(S.constraints) do
    local ok, res = pcall(con.fn, c, dev)
    if not ok then
      error(tostring(res) .. "\n  (in constraint '" .. con.desc .. "' for variant " .. describe(c, S) .. ")", 0)
    end
    if not res then return false, con.desc end
  end
  unchanged("a constraint")
  return true, nil, out
end

local function known_names(S)
  local known = {}
  for _, p in ipairs(S.params) do known[#known + 1] = p.name end
  for _, p in ipairs(S.launch) do known[#known + 1] = p.name end
  return table.concat(known, ", ")
end

-- A value of parameter p as text, parsed, and one the space declares for
-- it (a typo such as barrier=nmed, or a record's value the space no longer
-- lists, is an error that names the values there are).
local function declared_value(S, p, s, what)
  local v = parse_value(s, what)
  for _, d in ipairs(p.values) do
    if d == v then return v end
  end
  local list = {}
  for i, d in ipairs(p.values) do list[i] = tostring(d) end
  error(string.format("%s: %s is not a value of parameter '%s' in %s (its values: %s)",
    what, tostring(v), p.name, S.file, table.concat(list, ", ")), 0)
end

-- Command-line overrides (name -> string) as single-value lists.
local function parse_overrides(S, overrides)
  local only = {}
  for name, s in pairs(overrides or {}) do
    if not S.byname[name] then
      error(string.format("unknown parameter '%s' in %s=%s (parameters of %s: %s)",
        name, name, s, S.file, known_names(S)), 0)
    end
    only[name] = declared_value(S, S.byname[name], s, name .. "=" .. s)
  end
  return only
end

-- The launch configurations of a variant: every combination of the launch
-- parameters that apply to it, as lists of {name, value}.
local function launch_combos(S, cfg, only)
  local combos = { {} }
  for _, p in ipairs(S.launch) do
    if applies(S, p, cfg) then
      local values = only[p.name] ~= nil and { only[p.name] } or p.values
      local next_combos = {}
      for _, combo in ipairs(combos) do
        for _, v in ipairs(values) do
          local c2 = { table.unpack(combo) }
          c2[#c2 + 1] = { p.name, v }
          next_combos[#next_combos + 1] = c2
        end
      end
      combos = next_combos
    elseif only[p.name] ~= nil then
      return {}
    end
  end
  return combos
end

local MAX_COMBINATIONS = 250000

-- Walks the compile-time combinations that the `when` predicates and the
-- k=v values allow, in declaration order, calling leaf(c) for each (c holds
-- the values that apply, nil for the others). Stops when leaf returns true
-- or after max_visits partial combinations; returns whether it stopped.
local function each_combination(S, only, leaf, max_visits)
  local c, visits, stop = {}, 0, false
  local function walk(i)
    visits = visits + 1
    if visits > max_visits then stop = true end
    if stop then return end
    if i > #S.params then
      stop = leaf(c) == true
      return
    end
    local p = S.params[i]
    if not applies(S, p, c) then
      if only[p.name] == nil then walk(i + 1) end -- k=v asks for a parameter this variant lacks
      return
    end
    for _, val in ipairs(only[p.name] ~= nil and { only[p.name] } or p.values) do
      if allowed(S, p, c, val) then
        c[p.name] = val
        walk(i + 1)
        if stop then break end
      end
    end
    c[p.name] = nil
  end
  walk(1)
  return stop
end

-- Whether the expansion would pass MAX_COMBINATIONS: the same walk over
-- `when` alone (no derive, no constraints), stopped as soon as it has seen
-- too many combinations or visited too many partial ones.
local function too_many(S, only)
  local leaves = 0
  return each_combination(S, only, function()
    leaves = leaves + 1
    return leaves > MAX_COMBINATIONS
  end, 20 * MAX_COMBINATIONS)
end

-- A flat table of values as "name=value" words, sorted by name, leaving out
-- those at their default (defaults: name -> value, optional): one text for
-- one set of values (a candidate's name, an expansion's key).
function M.describe_values(values, defaults)
  local names = {}
  for k, v in pairs(values) do
    if not (defaults and defaults[k] == v) then names[#names + 1] = k end
  end
  table.sort(names)
  local parts = {}
  for _, k in ipairs(names) do parts[#parts + 1] = k .. "=" .. tostring(values[k]) end
  return table.concat(parts, " ")
end

-- The last expansion, kept (read-only to its callers): run --strategy asks
-- for the variants (the C side's list) and then for the candidates
-- (search.lua) of the same space, device and k=v values, and sgemm's and
-- gemm_bf16's ~250,000 combinations take seconds to expand.
local last_variants

-- Every compile-time variant that survives the constraints, in declaration
-- order, as { params = {{name, value}...}, derived = {{name, value}...},
-- launches = { {{name, value}...}, ... } }, plus how many each constraint
-- rejected and how many combinations there were.
function M.variants(S, dev, overrides)
  local key = M.describe_values(dev) .. "|" .. M.describe_values(overrides or {})
  local last = last_variants
  if last and last.S == S and last.key == key then return last.out, last.rejected, last.total end
  last_variants = nil -- garbage before the next one is built
  local only = parse_overrides(S, overrides)
  if too_many(S, only) then
    error(string.format("%s: too many combinations, more than the %d bartune expands; narrow the space with k=v, when or fewer values",
      S.file, MAX_COMBINATIONS), 0)
  end
  local out, rejected, total = {}, {}, 0
  each_combination(S, only, function(c)
    total = total + 1
    local cfg = {}
    for k, v in pairs(c) do cfg[k] = v end
    local ok, why
    ok, why, cfg = evaluate(S, cfg, dev)
    if not ok then
      rejected[why] = (rejected[why] or 0) + 1
      return
    end
    local launches = launch_combos(S, cfg, only)
    if #launches == 0 then return end
    local v = { params = {}, derived = {}, launches = launches, defaults = {} }
    for _, p in ipairs(S.params) do
      local val = c[p.name]
      if val ~= nil and val == p.default then
        v.defaults[#v.defaults + 1] = { p.name, val } -- named without it (see param's default)
      elseif val ~= nil then
        v.params[#v.params + 1] = { p.name, val }
      end
    end
    local names = {}
    for k in pairs(cfg) do if not S.byname[k] then names[#names + 1] = k end end
    table.sort(names)
    for _, k in ipairs(names) do
      local val = cfg[k]
      -- recorded only where a record can hold it (others still reach the template)
      if plain_ident(k) and (math.type(val) == "integer" or type(val) == "boolean" or plain_ident(val)) then
        v.derived[#v.derived + 1] = { k, val }
      end
    end
    out[#out + 1] = v
  end, math.huge)
  last_variants = { S = S, key = key, out = out, rejected = rejected, total = total }
  return out, rejected, total
end

-- A config from text values (name -> string), checked against the space:
-- every parameter that applies has a value, none that does not apply has
-- one. Returns the compile-time config and the launch values.
local function config_of(S, values, dev, need_launch)
  local c, seen = {}, {}
  for _, p in ipairs(S.params) do
    local s = values[p.name]
    if applies(S, p, c) then
      if s == nil and p.default == nil then error("no value for parameter '" .. p.name .. "' (" .. describe(c, S) .. ")", 0) end
      local v = p.default
      if s ~= nil then v = declared_value(S, p, s, p.name) end
      if not allowed(S, p, c, v) then
        error(string.format("%s=%s is not open to %s (the allow of parameter '%s' in %s)", p.name,
          tostring(v), describe(c, S), p.name, S.file), 0)
      end
      c[p.name] = v
    elseif s ~= nil then
      error("parameter '" .. p.name .. "' does not apply to " .. describe(c, S), 0)
    end
    seen[p.name] = true
  end
  local ok, why, frozen = evaluate(S, c, dev)
  if not ok then error("variant " .. describe(c, S) .. " violates constraint '" .. why .. "'", 0) end
  c = frozen
  local launch = {}
  for _, p in ipairs(S.launch) do
    local s = values[p.name]
    if applies(S, p, c) then
      if s == nil and need_launch then error("no value for launch parameter '" .. p.name .. "'", 0) end
      if s ~= nil then launch[p.name] = declared_value(S, p, s, p.name) end
    elseif s ~= nil then
      error("launch parameter '" .. p.name .. "' does not apply to " .. describe(c, S), 0)
    end
    seen[p.name] = true
  end
  for k in pairs(values) do
    if not seen[k] then error("'" .. k .. "' is not a parameter of " .. S.file, 0) end
  end
  return c, launch
end

-- Whether `values` (name -> string) name a variant of the space on dev:
-- config_of's error otherwise. `whole`: a launch value too for every launch
-- parameter that applies (baselines and portable configs, by check: bench
-- and emit launch them as declared).
function M.validate(S, values, dev, whole)
  config_of(S, values, dev, whole)
  return true
end

-- Whether a variant is built for its architecture's own features (sm_90a:
-- setmaxnreg) where the problem's arch_specific does not say so for all:
-- derive() sets arch_specific = true for it.
function M.arch_specific(S, values, dev)
  return config_of(S, values, dev).arch_specific == true
end

-- Renders one variant. `values` maps every applicable parameter to a string;
-- `extra` adds bartune's own names (kernel_name, emit...). With host = true,
-- renders the space's host template instead (emitted headers only).
function M.render(S, values, dev, extra, host)
  local c = config_of(S, values, dev)
  for k, v in pairs(extra or {}) do
    if v == "true" then v = true
    elseif v == "false" then v = false
    elseif v:match("^%-?%d+$") then v = math.tointeger(tonumber(v)) end
    c[k] = v
  end
  -- ctype.NAME: the C type of the problem's buffer NAME, so that one
  -- template serves problems that differ in a buffer's type (gemm_bf16_f32c)
  local ctype = {}
  for _, b in ipairs(S.problem.buffers) do ctype[b.name] = b.type end
  c.ctype = template.frozen(ctype, "ctype")
  local optional = {}
  for _, p in ipairs(S.params) do optional[p.name] = true end
  if host then
    if not S.host then return "" end
    return template.expand(S.host, c, M.read, optional)
  end
  return template.expand(S.template, c, M.read, optional)
end

-- The launch geometry of a variant at a launch configuration: numbers for
-- `sizes` (a table), or C++ text for the header when sizes is nil. With
-- `at` (the sizes a record was measured at) the header's text is evaluated
-- there and must give what launch() gives for those numbers: the header
-- launches what was measured, or nothing is emitted.
function M.geometry(S, values, dev, sizes, at)
  local c, launch = config_of(S, values, dev, true)
  for k, v in pairs(launch) do c[k] = v end
  local s, d = sizes, dev
  if not sizes then s, d = problem.symbolic(S.problem, dev, at) end
  local ok, g, gv = pcall(problem.geometry, S.geometry, c, s, d, S.file)
  if not ok then error(tostring(g) .. "\n  (in launch() for " .. describe(c, S) .. ")", 0) end
  for _, m in ipairs(g.tensor_maps or {}) do -- a map is of one of the problem's buffers
    local known = false
    for _, b in ipairs(S.problem.buffers) do known = known or b.name == m.buffer end
    if not known then
      error(S.file .. ": launch().tensor_maps names '" .. m.buffer .. "', which is not a buffer of problem '" ..
        S.problem.name .. "'\n  (in launch() for " .. describe(c, S) .. ")", 0)
    end
  end
  if not sizes and at then M.same_geometry(S, values, dev, at, gv, describe(c, S)) end
  return g
end

-- The space's reuse() of a config at sizes: { rounds = integer } ({} when
-- the space declares none), with blind = why racecheck cannot judge the
-- config where racecheck_blind() says so.
function M.reuse(S, values, dev, sizes)
  if not S.reuse and not S.racecheck_blind then return {} end
  local c, launch = config_of(S, values, dev, true)
  for k, v in pairs(launch) do c[k] = v end
  local out = {}
  if S.racecheck_blind then
    local ok, why = pcall(S.racecheck_blind, c, dev)
    if not ok then error(tostring(why) .. "\n  (in racecheck_blind() for " .. describe(c, S) .. ")", 0) end
    if why ~= nil and why ~= false and not M.plain_label(why) then
      error(S.file .. ": racecheck_blind() must return nil or a string (why racecheck cannot judge: " ..
        "printable, at most " .. MAX_LABEL .. " characters), got " ..
        (type(why) == "string" and '"' .. why:sub(1, 80):gsub("[%c\127]", "?") .. '"' or tostring(why)) ..
        "\n  (for " .. describe(c, S) .. ")", 0)
    end
    out.blind = why or nil
  end
  if not S.reuse then return out end
  local ok, r = pcall(S.reuse, c, problem.sizes(S.problem, sizes, S.file), dev)
  if not ok then error(tostring(r) .. "\n  (in reuse() for " .. describe(c, S) .. ")", 0) end
  if math.type(r) ~= "integer" then
    error(S.file .. ": reuse() must return an integer (rounds of the ring), got " .. tostring(r) ..
      "\n  (for " .. describe(c, S) .. ")", 0)
  end
  out.rounds = r
  return out
end

-- The header's geometry evaluated at `at` (gv) against launch() on those
-- numbers; an error naming the first difference.
function M.same_geometry(S, values, dev, at, gv, desc)
  local c, launch = config_of(S, values, dev, true)
  for k, v in pairs(launch) do c[k] = v end
  local n = problem.geometry(S.geometry, c, problem.sizes(S.problem, at, S.file), dev, S.file)
  local function differ(what, a, b)
    local sz = {}
    for k, v in pairs(at) do sz[#sz + 1] = k .. "=" .. tostring(v) end
    table.sort(sz)
    error(string.format("%s: launch() gives the header another geometry than the one measured at %s: %s is %s measured, %s in the header (for %s); compute both from the same arithmetic",
      S.file, table.concat(sz, " "), what, tostring(a), b == nil and "undefined" or tostring(b), desc), 0)
  end
  for _, k in ipairs({ "grid", "block" }) do
    for i = 1, 3 do
      if n[k][i] ~= gv[k][i] then differ(k .. "[" .. i .. "]", n[k][i], gv[k][i]) end
    end
  end
  if n.smem ~= gv.smem then differ("smem", n.smem, gv.smem) end
  if n.scratch ~= gv.scratch then differ("scratch", n.scratch, gv.scratch) end
  if n.scratch_zero ~= gv.scratch_zero then differ("scratch_zero", n.scratch_zero, gv.scratch_zero) end
  if n.scratch_zero_kept ~= gv.scratch_zero_kept then
    differ("scratch_zero_kept", n.scratch_zero_kept, gv.scratch_zero_kept)
  end
  local nm, gm = n.tensor_maps or {}, gv.tensor_maps or {}
  if #nm ~= #gm then differ("the number of tensor maps", #nm, #gm) end
  for i, m in ipairs(nm) do
    local h = gm[i]
    if m.buffer ~= h.buffer or m.swizzle ~= h.swizzle then differ("tensor map " .. i, m.buffer, h.buffer) end
    if m.optional ~= h.optional then differ("tensor map " .. i .. " optional", m.optional, h.optional) end
    for _, key in ipairs({ "dims", "strides", "box" }) do
      for k = 1, #m[key] do
        if m[key][k] ~= h[key][k] then differ("tensor map " .. i .. " " .. key .. "[" .. k .. "]", m[key][k], h[key][k]) end
      end
    end
  end
end

-- The problem as C needs it (plain data, no functions).
function M.problem_info(S)
  local P = S.problem
  local sizes, scalars, buffers = {}, {}, {}
  for _, z in ipairs(P.sizes) do sizes[#sizes + 1] = { name = z.name, type = z.type, values = z.values } end
  for _, v in ipairs(P.scalars) do scalars[#scalars + 1] = { name = v.name, type = v.type, value = v.value } end
  for _, b in ipairs(P.buffers) do buffers[#buffers + 1] = { name = b.name, type = b.type, role = b.role } end
  return { name = P.name, file = P.file, verify = P.verify, accuracy = P.accuracy, sizes = sizes, scalars = scalars,
    buffers = buffers, args = P.args, signature = P.signature, tune = S.tune,
    host_baselines = P.host_baselines, arch_specific = S.arch_specific, extends = P.extends,
    space_extends = S.extends,
    group = #S.group > 0 and S.group or { S.params[1].name } }
end

-- A size tuple with the declared defaults filled in (records from before a
-- size was declared were measured at its default).
function M.full_sizes(S, sizes)
  return problem.sizes(S.problem, sizes, "a record's sizes")
end

-- One size tuple's buffers, scalars and cost (see problem.instance).
function M.instance(S, sizes, light)
  return problem.instance(S.problem, problem.sizes(S.problem, sizes, "the sizes asked for (--size, --tuple)"), light)
end

return M
