-- The problem interface: what a workload is, apart from any kernel for it.
-- A problem file (gen/problems/<name>.lua, or problems/<name>.lua beside a
-- space) declares, in one problem{} table:
--
--   name       an identifier; the CPU reference is registered under it in
--              templates/<name>/reference.c (see templates/bartune_reference.h)
--   sizes      { { "n", "size_t" }, { "lda", "int", default = function(s) return s.K end } }
--              named integer sizes, with the C type the header and kernel take;
--              values = { 0, 1 }: a size that selects (a layout, a mode)
--              rather than measures: a call must give one of them, and the
--              header runs a tuned variant only for calls of the value it was
--              tuned at (the others take another tuned tuple or the
--              portable variant); launch() sees it as a number, also in the
--              header, so it may branch on it
--   scalars    { { "alpha", "float", value = 1.5, range = { -2, 2 }, special = { 0, 1 } } }:
--              values passed to the kernel; input set 0 gets value, set 1 a
--              value drawn from range (at the tuned sizes) or each check
--              size's next special value in turn (optional: without range and
--              special the scalar is the same in every set)
--   buffers    { { "x", "float", role = "in", length = "n", init = { "uniform", -1, 1 } } }
--              role: in | out | inout; length: a size's name or function(s);
--              init (in, inout): { "uniform", lo, hi } | { "const", v } |
--              { "logmag", lo, hi } (a random sign, magnitudes from lo to hi
--              at every scale: their logarithm uniform); init2: the second
--              input set's distribution, over the range the problem's
--              precision allows (default: init), so a kernel computing in a
--              narrower type fails; view = { rows = "M", cols = "N", ld =
--              "ldc" } (sizes' names or function(s)): a row-major matrix
--              view, whose padding (columns cols..ld-1 of every row) the
--              runner fills with a pattern the kernel must leave as it is;
--              unset_when_zero = "beta" (a floating input): where that scalar
--              is 0 the kernel must not read this buffer's values (BLAS: C
--              need not be set when beta is 0); in an input set where it is
--              0 (its special values) the runner fills them with NaN, so a
--              kernel that reads them anyway fails, and the reference must
--              not read them either
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
--   checks     { { n = 1 }, { n = 1000003, offsets = { x = 1 } } } or
--              function(s) returning such a list for tuned sizes s: sizes
--              every candidate must also verify at (untimed) before it can be
--              ranked or emitted: the calls a header serves that the tuned
--              sizes are not (odd sizes, partial tiles, padded leading
--              dimensions, sizes of 1); offsets (elements) move a buffer's
--              start, for pointers a header may be called with; at most 16
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

-- Names the emitted header's functions take as parameters cannot be C++'s
-- own, nor the header's: its names start with bt_ (or bartune_), and a
-- call's stream is `stream`.
local RESERVED = {}
for w in ([[alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
  char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
  co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
  export extern false float for friend goto if inline int long mutable namespace new noexcept not
  not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires
  return short signed sizeof static static_assert static_cast struct switch template this
  thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
  wchar_t while xor xor_eq restrict stream dim3 size_t int32_t int64_t uint32_t uint64_t uintptr_t
  cudaError_t cudaStream_t cudaSuccess CUtensorMap NULL main]]):gmatch("%S+") do RESERVED[w] = true end

local function check_ident(file, what, name)
  -- at most 64 characters: records are read back with that limit (tuner/record.c)
  if type(name) ~= "string" or not name:match(IDENT) or #name > 64 then
    fail(file, what .. " name must be a C identifier of at most 64 characters, got " .. tostring(name):sub(1, 80))
  end
  if what ~= "problem" and (RESERVED[name] or name:match("^bt_") or name:match("^bartune_") or name:match("^__")) then
    fail(file, what .. " name '" .. name .. "' is C++'s or the emitted header's own (reserved: C++ keywords, " ..
      "stream, dim3, the size types, names starting with bt_, bartune_ or __): rename it")
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

-- A size's values = { ... }: distinct integers >= 0 of its type (at most 16).
local function read_choices(file, z)
  local v = rawget(z, "values")
  if v == nil then return nil end
  local what = "size '" .. z[1] .. "': values"
  if type(v) ~= "table" or rawlen(v) == 0 or rawlen(v) > 16 then
    fail(file, what .. " must be a list of 1 to 16 integers (the values a call may give)")
  end
  local seen, out = {}, {}
  for i = 1, rawlen(v) do
    local x = rawget(v, i)
    if math.type(x) ~= "integer" or x < 0 or x > 0x7fffffff then
      fail(file, what .. "[" .. i .. "] must be an integer from 0 to 2^31 - 1, got " .. tostring(x))
    end
    if seen[x] then fail(file, what .. " lists " .. x .. " twice") end
    seen[x], out[i] = true, x
  end
  return out
end

-- A buffer's unset_when_zero: a declared scalar's name, on a floating input.
local function read_unset(file, b, seen)
  local u = b.unset_when_zero
  if u == nil then return nil end
  local where = "buffer '" .. b[1] .. "': unset_when_zero"
  if b.role == "out" then fail(file, where .. " is for inputs (in, inout): an output is never read") end
  if INTEGER_TYPES[b[2]] then fail(file, where .. " fills the buffer with NaN: it needs a floating type, not " .. b[2]) end
  if type(u) ~= "string" or seen[u] ~= "scalar" then
    fail(file, where .. " = '" .. tostring(u) .. "' is not a scalar declared in scalars (name the scalar whose 0 leaves the buffer unread, as BLAS's beta leaves C)")
  end
  return u
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
    P.sizes[#P.sizes + 1] = { name = z[1], type = z[2], default = z.default, values = read_choices(file, z) }
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
    local range, special = M.read_scalar_values(file, v)
    P.scalars[#P.scalars + 1] = { name = v[1], type = v[2], value = v.value, range = range, special = special }
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
    local init, init2
    if b.role ~= "out" then
      init = M.read_init(file, b[1], b[2], "init", b.init)
      if b.init2 ~= nil then init2 = M.read_init(file, b[1], b[2], "init2", b.init2) end
    elseif b.init ~= nil or b.init2 ~= nil then
      fail(file, "buffer '" .. b[1] .. "' is an output: it takes no init (the runner poisons it)")
    end
    P.buffers[#P.buffers + 1] = { name = b[1], type = b[2], role = b.role, length = len,
      init = init, init2 = init2, view = M.read_view(file, b[1], b.view, seen),
      unset_when_zero = read_unset(file, b, seen) }
  end
  return seen
end

-- The largest magnitude of each element type (integers: exact in a double).
local TYPE_MAX = {
  ["float"] = 3.4028234663852886e38, ["__nv_bfloat16"] = 3.3895313892515355e38,
  ["double"] = 8.98846567431158e307, ["int"] = 2147483647, ["unsigned"] = 4294967295,
  ["long long"] = 2 ^ 53, ["unsigned long long"] = 2 ^ 53, ["size_t"] = 2 ^ 53,
}
local TYPE_MIN = { ["unsigned"] = 0, ["unsigned long long"] = 0, ["size_t"] = 0 }

-- Whether v is a number an element (or scalar) of type t holds.
local function fits(t, v)
  if type(v) ~= "number" or v ~= v then return false end
  if INTEGER_TYPES[t] and math.type(v) ~= "integer" and v ~= math.floor(v) then return false end
  return v <= TYPE_MAX[t] and v >= (TYPE_MIN[t] or -TYPE_MAX[t])
end

-- init / init2 of buffer `name` of type t: { kind, lo, hi }, checked so
-- the runner can draw from it (no empty range, nothing past the type).
function M.read_init(file, name, t, field, init)
  local where = "buffer '" .. name .. "' (" .. t .. "): " .. field
  if type(init) ~= "table" or (init[1] ~= "uniform" and init[1] ~= "const" and init[1] ~= "logmag") then
    fail(file, where .. " must be { \"uniform\", lo, hi }, { \"const\", v } or { \"logmag\", lo, hi }")
  end
  local kind, lo = init[1], init[2]
  local hi = kind == "const" and lo or init[3]
  for _, v in ipairs({ lo, hi }) do
    if not fits(t, v) then
      fail(file, string.format("%s: %s is not a value of %s (finite%s, within +-%g)", where, tostring(v), t,
        INTEGER_TYPES[t] and ", an integer" or "", TYPE_MAX[t]))
    end
  end
  if not (lo <= hi) then fail(file, string.format("%s: the range %s..%s is empty (lo > hi)", where, tostring(lo), tostring(hi))) end
  if kind == "logmag" and not (lo > 0 and not INTEGER_TYPES[t]) then
    fail(file, where .. ": logmag draws magnitudes: a floating type and 0 < lo <= hi")
  end
  return { kind = kind, lo = lo, hi = hi }
end

-- A scalar's range = { lo, hi } and special = { values } (both optional).
function M.read_scalar_values(file, v)
  local where = "scalar '" .. v[1] .. "' (" .. v[2] .. ")"
  if not fits(v[2], v.value) then fail(file, where .. ": value " .. tostring(v.value) .. " is not a " .. v[2]) end
  local range, special
  if v.range ~= nil then
    local r = v.range
    if type(r) ~= "table" or rawlen(r) ~= 2 or not fits(v[2], r[1]) or not fits(v[2], r[2]) or not (r[1] <= r[2]) then
      fail(file, where .. ": range must be { lo, hi } with lo <= hi, values of its type")
    end
    range = { r[1], r[2] }
  end
  if v.special ~= nil then
    if type(v.special) ~= "table" or rawlen(v.special) < 1 or rawlen(v.special) > 16 then
      fail(file, where .. ": special must be a list of 1 to 16 values")
    end
    special = {}
    for i = 1, rawlen(v.special) do
      if not fits(v[2], v.special[i]) then fail(file, where .. ": special[" .. i .. "] is not a " .. v[2]) end
      special[i] = v.special[i]
    end
  end
  return range, special
end

-- view = { rows = ..., cols = ..., ld = ... }: sizes' names or function(s).
function M.read_view(file, name, view, seen)
  if view == nil then return nil end
  local bad = "buffer '" .. name .. "': view must be { rows = ..., cols = ..., ld = ... }, each a size's name or function(s)"
  if type(view) ~= "table" then fail(file, bad) end
  local out = {}
  for _, k in ipairs({ "rows", "cols", "ld" }) do
    local v = rawget(view, k)
    if not (type(v) == "function" or (type(v) == "string" and seen[v] == "size")) then fail(file, bad .. " (" .. k .. ")") end
    out[k] = v
  end
  return out
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
-- problem{ extends = "other", name = ... }: the other problem's table with
-- this one's fields in place of its own; sizes, scalars and buffers are
-- replaced entry by entry (by name: C as float, say), new names appended.
-- The reference may be the other's: templates/<other>/reference.c
-- registering this name too (P.extends says where bartune looks next).
local ENTITY_LISTS = { sizes = true, scalars = true, buffers = true }
local function merge_entities(base, own)
  local out, at = {}, {}
  for i, e in ipairs(base or {}) do
    out[i] = e
    if type(e) == "table" then at[e[1]] = i end
  end
  for _, e in ipairs(own) do
    local i = type(e) == "table" and at[e[1]]
    if i then out[i] = e else out[#out + 1] = e end
  end
  return out
end
local function merged_problem(base, own)
  local t = {}
  for k, v in pairs(base) do if k ~= "name" and k ~= "extends" then t[k] = v end end
  for k, v in pairs(own) do
    if ENTITY_LISTS[k] and type(v) == "table" then t[k] = merge_entities(base[k], v)
    elseif k ~= "extends" then t[k] = v end
  end
  return t
end

-- read_problem (optional): a problem's text and chunk name by name, for extends.
function M.load(text, chunkname, sandbox, read_problem)
  local file = chunkname:gsub("^@", "")
  local P
  local seen_files = { [file] = true }
  -- the table a problem file declares
  local function captured(ptext, pchunk)
    local got
    local chunk, err = load(ptext, pchunk, "t", sandbox({ problem = function(t) got = got or t end }))
    if not chunk then error(err, 0) end
    chunk()
    if type(got) ~= "table" then fail((pchunk:gsub("^@", "")), "no problem{ name = ..., ... } declaration to extend") end
    return got
  end
  -- t with what it extends merged in, and the names it extends, nearest first
  local function resolved(t, tfile, depth)
    if t.extends == nil then return t, {} end
    if type(t.extends) ~= "string" or not t.extends:match(IDENT) then
      fail(tfile, "problem{} extends names another problem, such as \"gemm_bf16\"")
    end
    if depth > 8 or not read_problem then fail(tfile, "problem{} extends more than 8 problems deep") end
    local btext, bchunk = read_problem(t.extends)
    if not btext then fail(tfile, "problem{} extends: " .. bchunk) end
    local bfile = bchunk:gsub("^@", "")
    if seen_files[bfile] then fail(tfile, "problem{} extends " .. t.extends .. ", which extends it again (a cycle)") end
    seen_files[bfile] = true
    local base, chain = resolved(captured(btext, bchunk), bfile, depth + 1)
    table.insert(chain, 1, t.extends)
    return merged_problem(base, t), chain
  end
  local decl = {
    problem = function(t)
      if P then error("problem{} is declared twice", 2) end
      if type(t) ~= "table" then error("problem{} needs a table", 2) end
      local chain
      t, chain = resolved(t, file, 1)
      P = { file = file, sizes = {}, scalars = {}, buffers = {}, extends = chain }
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
      if t.checks ~= nil and type(t.checks) ~= "table" and type(t.checks) ~= "function" then
        fail(file, "problem{}: checks must be a list of sizes or function(s) returning one")
      end
      P.checks = t.checks
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

-- Is v one of size z's declared values?
local function is_choice(z, v)
  for _, x in ipairs(z.values) do
    if x == v then return true end
  end
  return false
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
    if z.values and not is_choice(z, v) then
      local vs = {}
      for i, x in ipairs(z.values) do vs[i] = tostring(x) end
      fail(where, string.format("size %s = %d is not one of the values it declares (%s)", z.name, v,
        table.concat(vs, ", ")))
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

-- A view's rows, cols and ld at sizes s, checked against the buffer's
-- length without wrapping.
local function view_at(P, b, s, len)
  if not b.view then return nil end
  local out, where = {}, "buffer '" .. b.name .. "': view"
  for _, k in ipairs({ "rows", "cols", "ld" }) do
    local v = b.view[k]
    if type(v) == "string" then v = s[v] else v = v(s) end
    if math.type(v) ~= "integer" then fail(P.file, where .. "." .. k .. " at these sizes is " .. tostring(v) .. ", not an integer") end
    out[k] = v
  end
  if not (out.rows >= 1 and out.cols >= 1 and out.ld >= out.cols and out.cols <= len and
      out.rows - 1 <= (len - out.cols) // out.ld) then
    fail(P.file, string.format("%s: rows %d, cols %d, ld %d do not fit its %d elements (1 <= cols <= ld, (rows - 1) ld + cols <= length)",
      where, out.rows, out.cols, out.ld, len))
  end
  return out
end

local OFFSET_BYTES = 1 << 20

-- The runner's description of one size tuple: buffers with their lengths
-- (views, offsets, both distributions), scalars with their values (and what
-- set 1 draws: `pick`, a check's index, chooses a special value), and the
-- cost model's figures.
local function instance_at(P, s, offsets, pick)
  local inst = { sizes = {}, scalars = {}, buffers = {} }
  for _, z in ipairs(P.sizes) do inst.sizes[#inst.sizes + 1] = { name = z.name, type = z.type, value = s[z.name] } end
  for _, v in ipairs(P.scalars) do
    inst.scalars[#inst.scalars + 1] = { name = v.name, type = v.type, value = v.value, range = v.range,
      special = v.special, pick = v.special and pick or nil }
  end
  for _, b in ipairs(P.buffers) do
    local len = length_of(P, b, s)
    if math.type(len) ~= "integer" or len < 1 or len > MAX_BYTES // M.TYPES[b.type] then
      fail(P.file, string.format("buffer '%s': length %s at these sizes is not an integer in 1..%d",
        b.name, tostring(len), MAX_BYTES // M.TYPES[b.type]))
    end
    inst.buffers[#inst.buffers + 1] = { name = b.name, type = b.type, elem = M.TYPES[b.type], role = b.role,
      length = len, init = b.init, init2 = b.init2, view = view_at(P, b, s, len),
      offset = offsets and offsets[b.name] or nil, unset_when_zero = b.unset_when_zero }
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

-- One check entry: its sizes (completed) and offsets, checked.
local function read_check(P, entry, i)
  local where = P.file .. ": check " .. i
  if type(entry) ~= "table" then error(where .. " is not a table of sizes", 0) end
  local sizes, offsets = {}, nil
  for k, v in pairs(entry) do
    if k == "offsets" then offsets = v else sizes[k] = v end
  end
  if offsets ~= nil then
    if type(offsets) ~= "table" then error(where .. ": offsets must be { buffer = elements }", 0) end
    local known = {}
    for _, b in ipairs(P.buffers) do known[b.name] = b end
    local out = {}
    for k, v in pairs(offsets) do
      local b = known[k]
      if not b then error(where .. ": offsets names '" .. tostring(k) .. "', which is not a buffer", 0) end
      if math.type(v) ~= "integer" or v < 0 or v * M.TYPES[b.type] > OFFSET_BYTES then
        error(string.format("%s: offset of '%s' must be an integer of 0..%d elements", where, k, OFFSET_BYTES // M.TYPES[b.type]), 0)
      end
      out[k] = v
    end
    offsets = out
  end
  return M.sizes(P, sizes, where), offsets
end

-- "M=129 N=257 (offsets A=8)": how a check names itself in messages.
local function check_label(P, s, offsets)
  local parts = {}
  for _, z in ipairs(P.sizes) do parts[#parts + 1] = z.name .. "=" .. s[z.name] end
  local text = table.concat(parts, " ")
  if offsets and next(offsets) then
    local o = {}
    for _, b in ipairs(P.buffers) do
      if offsets[b.name] then o[#o + 1] = b.name .. "=" .. offsets[b.name] end
    end
    text = text .. " (offsets " .. table.concat(o, " ") .. ")"
  end
  return text
end

local MAX_CHECKS = 16 -- the runner holds the tuned sizes and up to 16 check sizes

-- The check sizes of tuned sizes s (the problem's checks, a list or a
-- function of s): each { label, sizes, instance }.
local function checks_at(P, s)
  local list = P.checks
  if type(list) == "function" then list = list(s) end
  if list == nil then return {} end
  if type(list) ~= "table" or rawlen(list) > MAX_CHECKS then
    fail(P.file, "checks must give a list of at most " .. MAX_CHECKS .. " size tables")
  end
  local out = {}
  for i = 1, rawlen(list) do
    local cs, offsets = read_check(P, rawget(list, i), i)
    out[i] = { label = check_label(P, cs, offsets), sizes = cs, instance = instance_at(P, cs, offsets, i - 1) }
  end
  return out
end

-- What the runner needs for one size tuple: instance_at, and its checks
-- (unless `light`: a tune list of 200,000 tuples is expanded first, and each
-- tuple's checks are made when it is measured).
function M.instance(P, s, light)
  local inst = instance_at(P, s, nil, nil)
  if not light then inst.checks = checks_at(P, s) end
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
  for _, z in ipairs(P.sizes) do
    -- a size of declared values is the tuned one's: the header runs the
    -- variant only for calls of that value
    if z.values and at and at[z.name] ~= nil then
      s[z.name] = at[z.name]
    else
      s[z.name] = sym("bt_s_" .. z.name, at and at[z.name])
    end
  end
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
  -- scratch: bytes of device memory the kernel takes as its last argument
  -- (after any tensor maps), zero at the start of every launch (the runner
  -- and the header clear it in the launch's stream order) unless
  -- scratch_zero says how much of it must be; absent: no such
  -- argument. For what a launch shares between its blocks (split-K sums).
  local scratch = rawget(g, "scratch")
  if scratch ~= nil then
    if not is_sym(scratch) and math.type(scratch) ~= "integer" then
      error(where .. ": launch().scratch must be an integer (bytes)", 0)
    end
    out.scratch = is_sym(scratch) and code(scratch) or scratch
    values.scratch = value(scratch)
  end
  -- scratch_zero: only the first scratch_zero bytes are zero at the start of
  -- a launch (tile counters, say); the rest holds anything (the runner fills
  -- it with a poison pattern before every launch, outside the timing), so a
  -- call clears a few bytes, not every partial sum. Absent: all of it.
  local zero = rawget(g, "scratch_zero")
  if zero ~= nil then
    if scratch == nil then error(where .. ": launch().scratch_zero without launch().scratch", 0) end
    if not is_sym(zero) and math.type(zero) ~= "integer" then
      error(where .. ": launch().scratch_zero must be an integer (bytes)", 0)
    end
    out.scratch_zero = is_sym(zero) and code(zero) or zero  -- past 0..scratch: launch_refused
    values.scratch_zero = value(zero)
  end
  -- scratch_zero_kept = true: the kernel leaves the zero prefix (all of the
  -- scratch without scratch_zero) zero when it ends (its last block resets
  -- the counters it counted with): the header keeps one scratch per stream,
  -- zeroed once, and a call clears nothing; the runner zeroes it once and
  -- fails a kernel that leaves it otherwise (wrong_result).
  local kept = rawget(g, "scratch_zero_kept")
  if kept ~= nil then
    if type(kept) ~= "boolean" then error(where .. ": launch().scratch_zero_kept must be true or false", 0) end
    if kept and scratch == nil then error(where .. ": launch().scratch_zero_kept without launch().scratch", 0) end
    out.scratch_zero_kept = kept or nil
    values.scratch_zero_kept = out.scratch_zero_kept
  end
  -- cluster: the CTAs of the kernel's compile-time cluster (__cluster_dims__)
  -- where it is over 8, a size Hopper allows only when asked (non-portable):
  -- the runner and the header ask for the kernel before launching it (a
  -- launch without it fails: CUDA_ERROR_INVALID_CLUSTER_SIZE). Absent: 8 or
  -- fewer, nothing to ask.
  local cluster = rawget(g, "cluster")
  if cluster ~= nil then
    if math.type(cluster) ~= "integer" or cluster < 1 or cluster > 16 then
      error(where .. ": launch().cluster must be an integer from 1 to 16 (the CTAs of the kernel's cluster)", 0)
    end
    out.cluster = cluster
  end
  -- persistent: grid[1] is at most what runs at once (the kernel walks its
  -- work with a stride of gridDim.x): the runner and the header lower it to
  -- the clusters of the kernel that fit (cuOccupancyMaxActiveClusters; a
  -- cluster lives in one GPC, so fewer than SMs / cluster may: 30 of 4 on
  -- the H200), or without a cluster to the blocks that fit
  local persistent = rawget(g, "persistent")
  if persistent ~= nil then
    if type(persistent) ~= "boolean" then error(where .. ": launch().persistent must be true or false", 0) end
    out.persistent = persistent or nil
  end
  -- together: how many consecutive blocks wait for each other (a split-K
  -- tile's blocks summing one another's slots, say), so they must all run
  -- at once: on a device that holds fewer of the kernel's blocks (its
  -- clusters' blocks) at once, a MIG slice say, the runner refuses the
  -- launch (over_occupancy) and the header returns
  -- cudaErrorCooperativeLaunchTooLarge rather than hang. Absent: none wait.
  local together = rawget(g, "together")
  if together ~= nil then
    if math.type(together) ~= "integer" or together < 1 then
      error(where .. ": launch().together must be an integer of 1 or more (blocks that must run at once)", 0)
    end
    out.together = together > 1 and together or nil
  end
  out.tensor_maps, values.tensor_maps = M.tensor_maps(rawget(g, "tensor_maps"), where)
  return out, values
end

-- tensor_maps: the bulk-tensor-copy descriptors a kernel takes after its
-- args, each { buffer = "A", dims = { inner, ... }, strides = { bytes of
-- dims 2.. }, box = { ... }, swizzle = 0 | 32 | 64 | 128 }. The runner
-- encodes them with cuTensorMapEncodeTiled on the buffer's device pointer;
-- the header encodes the same maps from the call's sizes. optional = true:
-- a map the copy engine can take only at some calls (a problem that allows
-- any leading dimension and alignment): encoded where the buffer's address
-- and every stride are multiples of 16 bytes, elsewhere passed as zeros,
-- which the kernel must not use (it tests the same: address % 16 and the
-- strides) and takes another path.
function M.tensor_maps(maps, where)
  if maps == nil then return nil, nil end
  local bad = where .. ": launch().tensor_maps must be a list of { buffer = name, dims = {...}, strides = {...}, box = {...}, swizzle = 0|32|64|128, optional = true|false }"
  if type(maps) ~= "table" or rawlen(maps) > 8 then error(bad .. " (at most 8)", 0) end
  local out, values = {}, {}
  for i = 1, rawlen(maps) do
    local m = rawget(maps, i)
    if type(m) ~= "table" or type(rawget(m, "buffer")) ~= "string" or not rawget(m, "buffer"):match(IDENT) then error(bad, 0) end
    local e = { buffer = rawget(m, "buffer"), swizzle = rawget(m, "swizzle") or 0 }
    local ev = { buffer = e.buffer, swizzle = e.swizzle }
    if e.swizzle ~= 0 and e.swizzle ~= 32 and e.swizzle ~= 64 and e.swizzle ~= 128 then error(bad, 0) end
    local optional = rawget(m, "optional")
    if optional ~= nil and type(optional) ~= "boolean" then error(bad .. " (optional: true or false)", 0) end
    e.optional, ev.optional = optional or nil, optional or nil
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
