-- The problem interface: what a workload is, apart from any kernel for it.
-- A problem file (gen/problems/<name>.lua, or problems/<name>.lua beside a
-- space) declares, in one problem{} table:
--
--   name       an identifier; the CPU reference is registered under it in
--              templates/<name>/reference.c (see templates/bartune_reference.h)
--   sizes      { { "n", "size_t" }, { "lda", "int", default = function(s) return s.K end } }
--              named integer sizes, with the C type the header and kernel take
--   scalars    { { "alpha", "float", value = 1.5 } }: values passed to the kernel
--   buffers    { { "x", "float", role = "in", length = "n", init = { "uniform", -1, 1 } } }
--              role: in | out | inout; length: a size's name or function(s);
--              init (in, inout): { "uniform", lo, hi } | { "const", v }
--   args       the kernel's parameters, in order (names of buffers, sizes, scalars)
--   signature  the parameters of the emitted host function, in order (a stream
--              comes last); every arg must be among them
--   verify     "exact" (bit for bit) or "bound" (|got - expect| <= a bound the
--              reference computes per element)
--   accuracy   (verify = "bound") { precision = "fp32", rms = 2, max = 32 }: the
--              precision the problem means, and how far a kernel's errors may
--              be from an honest evaluation's at it: the reference writes the
--              expected error per element (bt_buffer.scale), and a kernel
--              whose errors in those units have an RMS over rms or a maximum
--              over max is `inaccurate` (the bound alone grows like K where
--              honest errors grow like sqrt(K): TF32 would pass it)
--   cost       function(s) -> { bytes = ..., fma = ..., mma = ..., floor_ms = ... }:
--              the least memory traffic, fp32 FMAs and bf16 tensor-core
--              multiply-adds of one call, for bench's floor (each over the
--              card's measured rate); floor_ms, a bound of the problem's own
--              for work none of those measure (a softmax's exp, say)
--   tune       { { n = 1 << 28 }, ... }: the sizes a tune measures at
--   host_baselines  { { "cuBLAS SGEMM", source = "sgemm/cublas_baseline.cu",
--              libs = { "cublas" } } }: library code bench times beside the
--              tuned kernel, verified like one (see templates/bartune_baseline.h)
--
-- Launch geometry is the space's: launch(function(c, s, dev) ... end) returns
-- { grid = { x, y, z }, block = { x, y, z }, smem = bytes, resident = k,
-- min_cc = 90 } (resident: the blocks per SM the grid counts on; min_cc: the
-- compute capability the kernel needs; both optional). The runner
-- launches exactly what it returns for numbers; the header runs the same
-- function over symbols (see M.symbolic) to get C++ for sizes known only at
-- run time, so what ships is what was measured.
local M = {}

local IDENT = "^[%a_][%w_]*$"
-- C types a size, scalar or buffer element may have, and their bytes.
M.TYPES = {
  ["float"] = 4, ["double"] = 8, ["int"] = 4, ["unsigned"] = 4,
  ["long long"] = 8, ["unsigned long long"] = 8, ["size_t"] = 8,
  ["__nv_bfloat16"] = 2, -- buffers only (cuda_bf16.h); the reference sees its bits as uint16_t
}
local INTEGER_TYPES = { ["int"] = true, ["unsigned"] = true, ["long long"] = true,
  ["unsigned long long"] = true, ["size_t"] = true }
local ROLES = { ["in"] = true, out = true, inout = true }
local MAX_BYTES = 1 << 40 -- one buffer; more is a typo, not a problem

local function fail(file, msg) error(file .. ": " .. msg, 0) end

local function check_ident(file, what, name)
  -- at most 64 characters: records are read back with that limit (tuner/record.c)
  if type(name) ~= "string" or not name:match(IDENT) or #name > 64 then
    fail(file, what .. " name must be a C identifier of at most 64 characters, got " .. tostring(name):sub(1, 80))
  end
end

local function check_type(file, what, t, integer_only)
  if type(t) ~= "string" or not M.TYPES[t] or (integer_only and not INTEGER_TYPES[t]) then
    local known = {}
    for k in pairs(integer_only and INTEGER_TYPES or M.TYPES) do known[#known + 1] = k end
    table.sort(known)
    fail(file, string.format("%s: type %s is not one of %s", what, tostring(t),
      table.concat(known, ", ")))
  end
end

-- Reads the sizes, scalars and buffers lists into P, checking names once.
local function read_entities(P, t, file)
  local seen = {}
  local function declare(kind, name)
    check_ident(file, kind, name)
    if seen[name] then fail(file, kind .. " '" .. name .. "' is declared twice") end
    seen[name] = kind
  end
  for _, z in ipairs(t.sizes or {}) do
    declare("size", z[1])
    check_type(file, "size '" .. tostring(z[1]) .. "'", z[2], true)
    if z.default ~= nil and type(z.default) ~= "function" then
      fail(file, "size '" .. z[1] .. "': default must be a function(s)")
    end
    P.sizes[#P.sizes + 1] = { name = z[1], type = z[2], default = z.default }
  end
  for _, v in ipairs(t.scalars or {}) do
    declare("scalar", v[1])
    check_type(file, "scalar '" .. tostring(v[1]) .. "'", v[2])
    if M.TYPES[v[2]] < 4 then fail(file, "scalar '" .. v[1] .. "': a scalar is float, double or an integer type, not " .. v[2]) end
    if type(v.value) ~= "number" or v.value ~= v.value then
      fail(file, "scalar '" .. v[1] .. "' needs value = a number")
    end
    if INTEGER_TYPES[v[2]] and math.type(v.value) ~= "integer" then
      fail(file, "scalar '" .. v[1] .. "' is " .. v[2] .. ": its value must be an integer, not " .. tostring(v.value))
    end
    P.scalars[#P.scalars + 1] = { name = v[1], type = v[2], value = v.value }
  end
  for _, b in ipairs(t.buffers or {}) do
    declare("buffer", b[1])
    check_type(file, "buffer '" .. tostring(b[1]) .. "'", b[2])
    if not ROLES[b.role] then fail(file, "buffer '" .. b[1] .. "': role must be in, out or inout") end
    local len = b.length
    if type(len) == "string" and seen[len] ~= "size" then
      fail(file, "buffer '" .. b[1] .. "': length '" .. len .. "' is not a declared size")
    elseif type(len) ~= "string" and type(len) ~= "function" then
      fail(file, "buffer '" .. b[1] .. "': length must be a size's name or function(s)")
    end
    local init = b.init
    if b.role ~= "out" then
      if type(init) ~= "table" or (init[1] ~= "uniform" and init[1] ~= "const") then
        fail(file, "buffer '" .. b[1] .. "' (" .. b.role .. ") needs init = { \"uniform\", lo, hi } or { \"const\", v }")
      end
      for i = 2, init[1] == "uniform" and 3 or 2 do
        if type(init[i]) ~= "number" or init[i] ~= init[i] then
          fail(file, "buffer '" .. b[1] .. "': init values must be numbers")
        end
      end
    end
    P.buffers[#P.buffers + 1] = { name = b[1], type = b[2], role = b.role, length = len,
      init = init and { kind = init[1], lo = init[2], hi = init[3] or init[2] } or nil }
  end
  return seen
end

local function read_names(file, what, list, seen)
  if type(list) ~= "table" or #list == 0 then fail(file, "problem{} needs " .. what .. " = { names... }") end
  local out, dup = {}, {}
  for _, name in ipairs(list) do
    if not seen[name] then fail(file, what .. " names '" .. tostring(name) .. "', which is not declared") end
    if dup[name] then fail(file, what .. " lists '" .. name .. "' twice") end
    dup[name] = true
    out[#out + 1] = name
  end
  return out
end

-- Loads a problem script's text. Returns the problem table P.
function M.load(text, chunkname, sandbox)
  local file = chunkname:gsub("^@", "")
  local P
  local decl = {
    problem = function(t)
      if P then error("problem{} is declared twice", 2) end
      if type(t) ~= "table" then error("problem{} needs a table", 2) end
      P = { file = file, sizes = {}, scalars = {}, buffers = {} }
      check_ident(file, "problem", t.name)
      P.name = t.name
      local seen = read_entities(P, t, file)
      if #P.sizes == 0 then fail(file, "problem{} declares no sizes") end
      if #P.buffers == 0 then fail(file, "problem{} declares no buffers") end
      P.args = read_names(file, "args", t.args, seen)
      P.signature = read_names(file, "signature", t.signature, seen)
      local insig = {}
      for _, n in ipairs(P.signature) do insig[n] = true end
      for _, n in ipairs(P.args) do
        if not insig[n] then fail(file, "kernel argument '" .. n .. "' is not in the signature") end
      end
      if t.verify ~= "exact" and t.verify ~= "bound" then
        fail(file, "problem{} needs verify = \"exact\" or \"bound\"")
      end
      P.verify = t.verify
      P.accuracy = M.read_accuracy(file, t.accuracy, t.verify)
      if type(t.cost) ~= "function" then fail(file, "problem{} needs cost = function(s) return { bytes = ..., fma = ... } end") end
      P.cost = t.cost
      P.tune = t.tune
      P.host_baselines = M.read_host_baselines(file, t.host_baselines)
    end,
  }
  local chunk, err = load(text, chunkname, "t", sandbox(decl))
  if not chunk then error(err, 0) end
  chunk()
  if not P then fail(file, "no problem{ name = ..., ... } declaration") end
  return P
end

-- accuracy = { precision = "text", rms = R, max = X } (see above), or nil.
function M.read_accuracy(file, a, verify)
  if a == nil then return nil end
  local bad = "problem{}: accuracy must be { precision = \"fp32\", rms = R, max = X } with 0 < R <= X, for verify = \"bound\""
  if type(a) ~= "table" or verify ~= "bound" then fail(file, bad) end
  local p, rms, max = rawget(a, "precision"), rawget(a, "rms"), rawget(a, "max")
  if type(p) ~= "string" or not p:match("^[%w _.,:()+-]+$") or #p > 60 or
      type(rms) ~= "number" or type(max) ~= "number" or not (rms > 0 and rms <= max and max < 1e9) then
    fail(file, bad)
  end
  return { precision = p, rms = rms, max = max }
end

-- host_baselines = { { label, source = "dir/file.cu", libs = { "name" } } }
function M.read_host_baselines(file, list)
  local out = {}
  if list == nil then return out end
  if type(list) ~= "table" then fail(file, "host_baselines must be a list of { label, source = ..., libs = {...} }") end
  for i, b in ipairs(list) do
    local where = "host_baselines[" .. i .. "]"
    if type(b) ~= "table" or type(b[1]) ~= "string" or not b[1]:match("^[%w%s%-_:.+()/]+$") or #b[1] > 60 then
      fail(file, where .. " needs a label (letters, digits, spaces, -_:.+()/; at most 60)")
    end
    if type(b.source) ~= "string" or not b.source:match("^[%w_][%w_/.-]*%.cu$") or b.source:find("..", 1, true) then
      fail(file, where .. ": source must be a .cu path under templates/, got " .. tostring(b.source))
    end
    local libs = {}
    for _, l in ipairs(b.libs or {}) do
      if type(l) ~= "string" or not l:match("^[%w_+-]+$") then
        fail(file, where .. ": libs are library names such as \"cublas\", got " .. tostring(l))
      end
      libs[#libs + 1] = l
    end
    out[#out + 1] = { label = b[1], source = b.source, libs = libs }
  end
  return out
end

-- Completes one tune entry (a table name -> integer) with the defaults and
-- checks it. Returns a new table of every size.
function M.sizes(P, given, where)
  local s = {}
  for k, v in pairs(given) do
    local known = false
    for _, z in ipairs(P.sizes) do known = known or z.name == k end
    if not known then fail(where, "size '" .. tostring(k) .. "' is not a size of problem " .. P.name) end
    s[k] = v
  end
  for _, z in ipairs(P.sizes) do
    if s[z.name] == nil and z.default then s[z.name] = z.default(s) end
    local v = s[z.name]
    if math.type(v) ~= "integer" or v < 0 then
      fail(where, "size " .. z.name .. " must be given as an integer >= 0, got " .. tostring(v))
    end
    if z.type == "int" and v > 0x7fffffff or z.type == "unsigned" and v > 0xffffffff then
      fail(where, string.format("size %s = %d does not fit its type %s", z.name, v, z.type))
    end
  end
  return s
end

-- The tune list: the space's sizes = {...} if it gives one, else the problem's.
function M.tune_list(P, list, where)
  if type(list) ~= "table" or #list == 0 then
    fail(where, "no sizes to tune at: give tune = { { n = ... } } in problem{} or sizes = in space{}")
  end
  local out = {}
  for i, t in ipairs(list) do
    if type(t) ~= "table" then fail(where, "tune entry " .. i .. " is not a table of sizes") end
    out[#out + 1] = M.sizes(P, t, where)
  end
  return out
end

-- A buffer's length at sizes s. A length function that overflows 64-bit
-- integers wraps silently in Lua ((2^32 + 1)^2 * 16 reads as 2^37 + 16):
-- the same function over the sizes as floats tells, and a wrap is an error.
local function length_of(P, b, s)
  if type(b.length) == "string" then return s[b.length] end
  local len = b.length(s)
  local fs = {}
  for k, v in pairs(s) do fs[k] = v + 0.0 end
  local ok, flen = pcall(b.length, fs)
  if ok and math.type(len) == "integer" and type(flen) == "number" and
      math.abs(flen - len) > 1e-9 * math.abs(flen) + 1 then
    fail(P.file, string.format("buffer '%s': length(s) overflows 64 bits at these sizes (%.4g elements)",
      b.name, flen))
  end
  return len
end

-- What the runner needs for one size tuple: buffers with their lengths,
-- scalars with their values, and the cost model's figures.
function M.instance(P, s)
  local inst = { sizes = {}, scalars = {}, buffers = {} }
  for _, z in ipairs(P.sizes) do inst.sizes[#inst.sizes + 1] = { name = z.name, type = z.type, value = s[z.name] } end
  for _, v in ipairs(P.scalars) do inst.scalars[#inst.scalars + 1] = { name = v.name, type = v.type, value = v.value } end
  for _, b in ipairs(P.buffers) do
    local len = length_of(P, b, s)
    if math.type(len) ~= "integer" or len < 1 or len > MAX_BYTES // M.TYPES[b.type] then
      fail(P.file, string.format("buffer '%s': length %s at these sizes is not an integer in 1..%d",
        b.name, tostring(len), MAX_BYTES // M.TYPES[b.type]))
    end
    inst.buffers[#inst.buffers + 1] = { name = b.name, type = b.type, role = b.role, length = len,
      init = b.init }
  end
  local cost = P.cost(s)
  if type(cost) ~= "table" then fail(P.file, "cost(s) must return { bytes = ..., fma = ... }") end
  for _, k in ipairs({ "bytes", "fma", "mma", "floor_ms" }) do
    local v = rawget(cost, k) or 0
    if type(v) ~= "number" or v < 0 or v ~= v then fail(P.file, "cost(s)." .. k .. " must be a number >= 0") end
    inst[k] = v
  end
  return inst
end

-- Symbols: sizes and dev.sms as the header sees them, known only at run
-- time. Arithmetic on a symbol builds C++ text; comparing one is an error
-- (the same code must run on numbers and on symbols). A symbol's text and
-- value are kept here, out of launch()'s reach (it cannot forge a symbol or
-- rewrite one's code); the value is what the C++ computes at the sizes the
-- symbols were made for (C's truncating / and %), so the header's geometry
-- can be compared with the numbers that were measured.
local Sym = { __metatable = false }
local SYM = setmetatable({}, { __mode = "k" }) -- symbol -> { code = text, value = integer or nil }
local function is_sym(x) return SYM[x] ~= nil end
local function code(x)
  if is_sym(x) then return SYM[x].code end
  if math.type(x) == "integer" then return string.format("%dLL", x) end
  error("launch geometry works in integers, got " .. tostring(x), 3)
end
local function value(x)
  if is_sym(x) then return SYM[x].value end
  return x
end
local function sym(text, v)
  local t = setmetatable({}, Sym)
  SYM[t] = { code = text, value = v }
  return t
end
-- C's integer division and remainder (toward zero); nil where C's are undefined
local function cdiv(a, b)
  if b == 0 then return nil end
  local q = a // b
  if q < 0 and q * b ~= a then q = q + 1 end
  return q
end
local function cmod(a, b)
  local q = cdiv(a, b)
  return q and a - q * b
end
local C_OPS = {
  ["+"] = function(a, b) return a + b end, ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end, ["/"] = cdiv, ["%"] = cmod,
}
local function binop(op)
  return function(a, b)
    local x, y = value(a), value(b)
    return sym("(" .. code(a) .. " " .. op .. " " .. code(b) .. ")", x and y and C_OPS[op](x, y))
  end
end
Sym.__add, Sym.__sub, Sym.__mul = binop("+"), binop("-"), binop("*")
Sym.__idiv, Sym.__mod = binop("/"), binop("%")
Sym.__unm = function(a) return sym("(-" .. code(a) .. ")", value(a) and -value(a)) end
Sym.__div = function() error("launch geometry: use // (integer division), not /", 2) end
local function no_compare()
  error("launch geometry cannot compare a size or dev.sms (known only at run time); use min, max or ceil_div", 2)
end
Sym.__lt, Sym.__le, Sym.__eq, Sym.__concat = no_compare, no_compare, no_compare, no_compare
Sym.__index = function() error("launch geometry: a size is a number, not a table", 2) end
Sym.__newindex = Sym.__index
Sym.__tostring = function() return "(a size known at run time)" end

-- The C helpers the header defines, on values.
local C_HELPERS = {
  min = math.min, max = math.max,
  ceil_div = function(a, b) return cdiv(a + b - 1, b) end,
}
local function fold(name, fn)
  return function(a, b, ...)
    if select("#", ...) > 0 then return fold(name, fn)(fold(name, fn)(a, b), ...) end
    if not is_sym(a) and not is_sym(b) then
      if math.type(a) ~= "integer" or math.type(b) ~= "integer" then
        error(name .. "() takes integers, got " .. tostring(a) .. ", " .. tostring(b), 2)
      end
      return fn(a, b)
    end
    local x, y = value(a), value(b)
    return sym("bt_" .. name .. "(" .. code(a) .. ", " .. code(b) .. ")", x and y and C_HELPERS[name](x, y))
  end
end
-- Helpers a launch function may call; each works on numbers and symbols.
M.helpers = {
  min = fold("min", math.min),
  max = fold("max", math.max),
  ceil_div = fold("ceil_div", function(a, b)
    if b <= 0 then error("ceil_div by " .. b, 3) end
    return (a + b - 1) // b
  end),
}

-- Sizes and device as symbols, for the header: s.n reads as bt_s_n, dev.sms
-- as bt_sms; the rest of dev stays the tuned device's numbers. With `at`
-- (sizes), each symbol also holds its value there (dev.sms: the device's).
function M.symbolic(P, dev, at)
  local s = {}
  for _, z in ipairs(P.sizes) do s[z.name] = sym("bt_s_" .. z.name, at and at[z.name]) end
  local d = {}
  for k, v in pairs(dev) do d[k] = v end
  d.sms = sym("bt_sms", at and dev.sms)
  return s, d
end

-- Runs the space's launch function; checks the shape of what it returns.
-- Values are integers (numbers) or C++ text (symbols).
function M.geometry(fn, c, s, dev, where)
  local g = fn(c, s, dev)
  if type(g) ~= "table" then error(where .. ": launch() must return { grid = {...}, block = {...}, smem = ... }", 0) end
  local out, values = {}, { grid = {}, block = {} }
  for _, k in ipairs({ "grid", "block" }) do
    local t = rawget(g, k)
    if type(t) ~= "table" or rawlen(t) < 1 or rawlen(t) > 3 then
      error(where .. ": launch()." .. k .. " must be a list of 1 to 3 integers", 0)
    end
    out[k] = {}
    for i = 1, 3 do
      local v = rawget(t, i)
      if v == nil then v = 1 end
      if not is_sym(v) and math.type(v) ~= "integer" then
        error(where .. ": launch()." .. k .. "[" .. i .. "] is " .. tostring(v) .. ", not an integer", 0)
      end
      out[k][i] = is_sym(v) and code(v) or v
      values[k][i] = value(v)
    end
  end
  local smem = rawget(g, "smem") or 0
  if not is_sym(smem) and math.type(smem) ~= "integer" then
    error(where .. ": launch().smem must be an integer", 0)
  end
  out.smem = is_sym(smem) and code(smem) or smem
  values.smem = value(smem)
  -- resident: the blocks per SM this geometry counts on being resident at
  -- once; the runner records over_occupancy when fewer fit.
  local resident = rawget(g, "resident") or 0
  if math.type(resident) ~= "integer" then
    error(where .. ": launch().resident must be an integer (blocks per SM the grid assumes)", 0)
  end
  out.resident = resident
  -- min_cc: the compute capability the kernel needs (70 for 7.0); the header
  -- runs the variant only where the binary holds code at least that new.
  local min_cc = rawget(g, "min_cc") or 0
  if math.type(min_cc) ~= "integer" or min_cc < 0 then
    error(where .. ": launch().min_cc must be an integer (e.g. 90 for sm_90)", 0)
  end
  out.min_cc = min_cc
  out.tensor_maps, values.tensor_maps = M.tensor_maps(rawget(g, "tensor_maps"), where)
  return out, values
end

-- tensor_maps: the bulk-tensor-copy descriptors a kernel takes after its
-- args, each { buffer = "A", dims = { inner, ... }, strides = { bytes of
-- dims 2.. }, box = { ... }, swizzle = 0 | 32 | 64 | 128 }. The runner
-- encodes them with cuTensorMapEncodeTiled on the buffer's device pointer;
-- the header encodes the same maps from the call's sizes.
function M.tensor_maps(maps, where)
  if maps == nil then return nil, nil end
  local bad = where .. ": launch().tensor_maps must be a list of { buffer = name, dims = {...}, strides = {...}, box = {...}, swizzle = 0|32|64|128 }"
  if type(maps) ~= "table" or rawlen(maps) > 8 then error(bad .. " (at most 8)", 0) end
  local out, values = {}, {}
  for i = 1, rawlen(maps) do
    local m = rawget(maps, i)
    if type(m) ~= "table" or type(rawget(m, "buffer")) ~= "string" or not rawget(m, "buffer"):match(IDENT) then error(bad, 0) end
    local e = { buffer = rawget(m, "buffer"), swizzle = rawget(m, "swizzle") or 0 }
    local ev = { buffer = e.buffer, swizzle = e.swizzle }
    if e.swizzle ~= 0 and e.swizzle ~= 32 and e.swizzle ~= 64 and e.swizzle ~= 128 then error(bad, 0) end
    local rank = type(rawget(m, "dims")) == "table" and rawlen(rawget(m, "dims")) or 0
    if rank < 1 or rank > 5 then error(bad .. " (1 to 5 dims)", 0) end
    for key, n in pairs({ dims = rank, strides = rank - 1, box = rank }) do
      local t = rawget(m, key)
      if type(t) ~= "table" or rawlen(t) ~= n then error(bad .. " (" .. key .. ": " .. n .. " entries)", 0) end
      e[key], ev[key] = {}, {}
      for k = 1, n do
        local v = rawget(t, k)
        if not is_sym(v) and math.type(v) ~= "integer" then error(bad .. " (" .. key .. "[" .. k .. "] is " .. tostring(v) .. ")", 0) end
        if key == "box" and is_sym(v) then error(bad .. " (the box is a compile-time shape: an integer)", 0) end
        e[key][k] = is_sym(v) and code(v) or v
        ev[key][k] = value(v)
      end
    end
    out[i], values[i] = e, ev
  end
  return out, values
end

return M
