-- Search strategies and their replay against a recorded landscape.
--
-- A strategy is a Lua file in gen/lib/strategies/<name>.lua, run in the same
-- sandbox as spaces, that returns a table of three functions:
--   init(space, budget, rng)  space.candidates: every launch configuration of
--                             every variant, each { id = i, values = {name = v},
--                             key = compile key (candidates of one key share a
--                             cubin) }; space.params: { {name, values}... } in
--                             declaration order; space.neighbours(c): the
--                             candidates that differ from c in one value;
--                             space.near(c): those and the ones whose
--                             change of one value brings or takes away
--                             conditional parameters (a `when`'s);
--                             space.find(values): the candidate with those
--                             values, or nil where the constraints rule it out;
--                             space.untried(tried, rng): a random candidate
--                             whose id is not a key of `tried`, nil when none
--                             is left (random draws, then a scan, so a small
--                             space nearly searched is still searched out);
--                             space.elsewhere: candidates that were fastest in
--                             other landscapes (replay --warm-from), best
--                             first; empty when nothing is known;
--                             space.landscapes: those landscapes themselves,
--                             the nearest first, each a list of
--                             { candidate = c, time = ms }, fastest first;
--                             rng:int(n) in 1..n, rng:float() in [0, 1)
--   ask(k)                    up to k candidates to evaluate next (none: done)
--   tell(c, result)           result.status ("ok", "over_occupancy", ...) and,
--                             when ok, result.time (ms)
-- Replay answers tell from the records, with no GPU and no nvcc, and counts
-- what a run would have paid: measured configurations (over_occupancy is
-- known from the compiled variant's occupancy and costs no measurement) and
-- variants compiled.
local space_lib, template = ...
local M = {}

-- xorshift64*, seeded: the same seed gives the same search everywhere.
local function new_rng(seed)
  local s = seed * 2654435761 + 0x9E3779B97F4A7C15
  if s == 0 then s = 1 end
  local rng = {}
  local function next64()
    s = s ~ (s >> 12)
    s = s ~ (s << 25)
    s = s ~ (s >> 27)
    return (s * 0x2545F4914F6CDD1D) >> 11 -- 53 bits
  end
  function rng:float() return next64() / 9007199254740992.0 end
  function rng:int(n) return 1 + next64() % n end
  return rng
end

-- Read-only views of bartune's tables, made once per space: a strategy
-- reads candidates, their values and the params through them and cannot
-- write into them (strategies get no rawset, and the metatable is hidden),
-- so nothing of one seed's search reaches the next, nor bartune's copy.
local REAL = setmetatable({}, { __mode = "k" })
local function ro_write() error("the space a strategy sees is read-only: keep state in tables of its own", 2) end
local function ro_len(p) return #REAL[p] end
-- pairs() walks the real table through a closure: it never hands it out
-- (next, t would give a strategy the writable table itself)
local function ro_pairs(p)
  local t = REAL[p]
  return function(_, k) return next(t, k) end, p, nil
end
local function readonly(t)
  local p = setmetatable({}, { __index = t, __newindex = ro_write, __len = ro_len, __pairs = ro_pairs,
    __metatable = false })
  REAL[p] = t
  return p
end

-- "a=1 b=x": a config as the records' key (space.lua's describe_values)
M.describe = space_lib.describe_values

-- Every launch configuration of every variant of S for dev, in the order
-- of M.variants (variant by variant, launch configuration by launch
-- configuration), so that a candidate's id names both for the C side.
-- A candidate's values hold every parameter that applies, those at their
-- declared default too; its desc leaves those out, as its records do.
function M.candidates(S, dev, overrides)
  local list = space_lib.variants(S, dev, overrides or {})
  local out, params = {}, {}
  for _, p in ipairs(S.params) do params[#params + 1] = { name = p.name, values = p.values, default = p.default } end
  for _, p in ipairs(S.launch) do params[#params + 1] = { name = p.name, values = p.values } end
  local defaults = M.defaults_of(params)
  for _, v in ipairs(list) do
    local base, key = {}, {}
    for _, pv in ipairs(v.params) do base[pv[1]] = pv[2]; key[#key + 1] = pv[1] .. "=" .. tostring(pv[2]) end
    for _, pv in ipairs(v.defaults) do base[pv[1]] = pv[2] end
    for _, combo in ipairs(v.launches) do
      local values = {}
      for k, x in pairs(base) do values[k] = x end
      for _, lv in ipairs(combo) do values[lv[1]] = lv[2] end
      out[#out + 1] = readonly({ id = #out + 1, values = readonly(values), key = table.concat(key, " "),
        desc = M.describe(values, defaults) })
    end
  end
  for i, p in ipairs(params) do
    params[i] = readonly({ name = p.name, values = readonly(p.values), default = p.default })
  end
  return readonly(out), readonly(params)
end

-- name -> declared default, of the params that declare one
function M.defaults_of(params)
  local d = {}
  for _, p in ipairs(params) do
    if p.default ~= nil then d[p.name] = p.default end
  end
  return d
end

-- The candidates by their canonical description (made once, like them).
local function index_of(cands)
  local by_desc = {}
  for _, c in ipairs(cands) do by_desc[c.desc] = c end
  return by_desc
end

-- The candidates grouped by the values of the parameters every candidate
-- has (those no `when` leaves out): a group holds what differs only in
-- conditional parameters. Built once per expansion, when a search first
-- asks for neighbours.
local function groups_of(cands, params)
  local has = {}
  for _, c in ipairs(cands) do
    for k in pairs(c.values) do has[k] = (has[k] or 0) + 1 end
  end
  local always, is_always = {}, {}
  for _, p in ipairs(params) do
    if has[p.name] == #cands then always[#always + 1], is_always[p.name] = p.name, true end
  end
  local function key(values)
    local parts = {}
    for i, k in ipairs(always) do parts[i] = tostring(values[k]) end
    return table.concat(parts, "\0")
  end
  local group = {}
  for _, c in ipairs(cands) do
    local g = key(c.values)
    group[g] = group[g] or {}
    table.insert(group[g], c)
  end
  return { always = is_always, key = key, group = group }
end

-- d is c's neighbour through parameter p: they differ in p, and every other
-- parameter both have is the same (those only one has follow from p: a
-- schedule that exists for two consumer warpgroups and not for one).
local function one_apart(c, d, p)
  local a, b = c.values, d.values
  if b[p] == nil or b[p] == a[p] then return false end
  for k, v in pairs(a) do
    if k ~= p and b[k] ~= nil and b[k] ~= v then return false end
  end
  return true
end

-- The view of the space a strategy gets, with neighbours by one value: a
-- fresh one for every search (every seed of a replay), over the read-only
-- candidates. x: the expansion (its groups are built on first use).
local function space_view(cands, params, by_desc, warm, x)
  by_desc = by_desc or index_of(cands)
  x = x or {}
  warm = warm or {}
  local view = { candidates = cands, params = params, elsewhere = readonly(warm.elsewhere or {}),
    landscapes = warm.landscapes or readonly({}) }
  local function frozen() return readonly(view) end
  local defaults = M.defaults_of(params)
  -- The candidate with exactly these values, or nil (not valid in the space).
  function view.find(values) return by_desc[M.describe(values, defaults)] end
  function view.untried(tried, rng)
    if type(tried) ~= "table" or type(rng) ~= "table" then
      error("space.untried(tried, rng): tried is a table keyed by candidate id, rng the one init got", 2)
    end
    if #cands == 0 then return nil end
    for _ = 1, 50 do
      local c = cands[rng:int(#cands)]
      if not tried[c.id] then return c end
    end
    local from = rng:int(#cands)
    for i = 0, #cands - 1 do
      local c = cands[(from + i - 1) % #cands + 1]
      if not tried[c.id] then return c end
    end
    return nil
  end
  local cache, near_cache = {}, {}
  function view.neighbours(c)
    if cache[c.id] then return cache[c.id] end
    local out = {}
    for _, p in ipairs(params) do
      if c.values[p.name] ~= nil then
        for _, v in ipairs(p.values) do
          if v ~= c.values[p.name] then
            local values = {}
            for k, x in pairs(c.values) do values[k] = x end
            values[p.name] = v
            local n = by_desc[M.describe(values, defaults)]
            if n then out[#out + 1] = n end
          end
        end
      end
    end
    cache[c.id] = readonly(out)
    return cache[c.id]
  end
  -- One parameter's value changed, with the conditional parameters that
  -- change brings or takes away (any of their values): beside neighbours,
  -- the regions behind a `when` (gemm_bf16's one consumer warpgroup, which
  -- has no schedule) are one step away, not islands. Searched among the
  -- groups: the same unconditional values but p's.
  function view.near(c)
    if near_cache[c.id] then return near_cache[c.id] end
    x.groups = x.groups or groups_of(cands, params)
    local gr, out = x.groups, {}
    for _, p in ipairs(params) do
      local now = c.values[p.name]
      if now ~= nil then
        local looked = {}
        for _, v in ipairs(p.values) do
          if v ~= now then
            local values = c.values
            if gr.always[p.name] then
              values = {}
              for k, w in pairs(c.values) do values[k] = w end
              values[p.name] = v
            end
            local g = gr.key(values)
            if not looked[g] then
              looked[g] = true
              for _, d in ipairs(gr.group[g] or {}) do
                if one_apart(c, d, p.name) then out[#out + 1] = d end
              end
            end
          end
        end
      end
    end
    near_cache[c.id] = readonly(out)
    return near_cache[c.id]
  end
  return frozen() -- the strategy cannot swap candidates for tables of its own
end

-- A strategy's answer to ask(k): a list (empty or nil: done); anything
-- else is the strategy's error, named, not a quiet end of the search.
local function asked(batch, chunkname)
  if batch == nil then return {} end
  if type(batch) ~= "table" then
    error(chunkname:gsub("^@", "") .. ": ask(k) returned " .. type(batch) ..
      "; it returns a list of candidates from space.candidates (an empty list when done)", 0)
  end
  return batch
end

-- Loads a strategy's text in the sandbox; returns its table.
function M.load_strategy(text, chunkname)
  local env = space_lib.sandbox({})
  env.rawset = nil -- it would write into the read-only views
  local chunk, err = load(text, chunkname, "t", env)
  if not chunk then error(err, 0) end
  local st = chunk()
  if type(st) ~= "table" or type(st.init) ~= "function" or type(st.ask) ~= "function"
      or type(st.tell) ~= "function" then
    error(chunkname:gsub("^@", "") .. ": a strategy returns { init = function(space, budget, rng), ask = function(k), tell = function(c, result) }", 0)
  end
  return st
end

-- One replay of a strategy with one seed. landscape: desc -> { status, ms }.
-- Returns the evaluations it needed to come within 1, 2 and 5% of the best
-- recorded time, its best at budgets of 50, 100, 200 and 500 (relative to
-- the best), and what it compiled by the 2% point.
local function replay_one(st_text, chunkname, cands, view, landscape, best, budget, seed)
  local st = M.load_strategy(st_text, chunkname)
  st.init(view, budget, new_rng(seed))
  local seen, keys, compiled = {}, {}, 0
  local measured, evaluations, found = 0, 0, nil
  local out = { within = {}, at = {}, compiled_at_2 = nil, trace = {} }
  local marks = { 50, 100, 200, 500 }
  local stalled = 0
  while measured < budget and evaluations < #cands and stalled < 1000 do
    local batch = asked(st.ask(8), chunkname)
    if #batch == 0 then break end
    local fresh = 0
    for _, c in ipairs(batch) do
      if type(c) == "table" and cands[c.id] == c then -- one of bartune's, not a forgery
        local rec = landscape[c.desc] or { status = "not_measured" }
        if not seen[c.id] then
          seen[c.id] = true
          evaluations = evaluations + 1
          fresh = fresh + 1
          if not keys[c.key] then keys[c.key] = true; compiled = compiled + 1 end
          if rec.status ~= "over_occupancy" and rec.status ~= "compile_error" then
            measured = measured + 1
            if rec.status == "ok" and (not found or rec.ms < found) then found = rec.ms end
            for _, pct in ipairs({ 1, 2, 5 }) do
              local key = tostring(pct)
              if not out.within[key] and found and found <= best * (1 + pct / 100) then
                out.within[key] = measured
                if pct == 2 then out.compiled_at_2 = compiled end
              end
            end
            for _, m in ipairs(marks) do
              if measured == m then out.at[tostring(m)] = found and found / best - 1 or false end
            end
            out.trace[measured] = found and found / best - 1 or -1
          end
        end
        st.tell(c, { status = rec.status, time = rec.status == "ok" and rec.ms or nil })
      end
    end
    stalled = fresh == 0 and stalled + 1 or 0
  end
  for _, m in ipairs(marks) do
    if out.at[tostring(m)] == nil then out.at[tostring(m)] = found and found / best - 1 or false end
  end
  out.measured, out.compiled = measured, compiled
  return out
end

-- What other landscapes (desc -> { status, ms }) say, as this space's
-- candidates: landscapes, each one's ok candidates fastest first (read-only
-- { candidate, time } pairs, shared by every seed's view), and elsewhere,
-- the landscapes' bests taken in turn (every one's best, then every one's
-- second...), each candidate once, at most MAX_ELSEWHERE.
local MAX_ELSEWHERE = 64
local function elsewhere_of(warm, by_desc)
  local lands = {}
  for _, land in ipairs(warm or {}) do
    local list = {}
    for desc, r in pairs(land) do
      if r.status == "ok" and by_desc[desc] then list[#list + 1] = { desc = desc, ms = r.ms } end
    end
    table.sort(list, function(a, b) return a.ms < b.ms or (a.ms == b.ms and a.desc < b.desc) end)
    local entries = {}
    for i, e in ipairs(list) do entries[i] = readonly({ candidate = by_desc[e.desc], time = e.ms }) end
    lands[#lands + 1] = entries
  end
  local out, seen = {}, {}
  for rank = 1, MAX_ELSEWHERE do
    for _, entries in ipairs(lands) do
      local e = entries[rank]
      if e and not seen[e.candidate] and #out < MAX_ELSEWHERE then
        seen[e.candidate] = true
        out[#out + 1] = e.candidate
      end
    end
  end
  for i, entries in ipairs(lands) do lands[i] = readonly(entries) end
  return { elsewhere = out, landscapes = readonly(lands) }
end

-- The candidates do not depend on the sizes: a run's size tuples, and the
-- replays of a report (one per strategy), share one expansion (tens of
-- seconds for a space of 10^5 variants), kept for the same space, device
-- and k=v values.
local expanded
local function expansion(S, dev, overrides)
  local key = M.describe(dev) .. "|" .. M.describe(overrides or {})
  if not expanded or expanded.S ~= S or expanded.key ~= key then
    expanded = nil -- the last one is garbage before this one is built
    local cands, params = M.candidates(S, dev, overrides)
    expanded = { S = S, key = key, cands = cands, params = params, by_desc = index_of(cands) }
  end
  return expanded
end

-- The expansion as a landscape's records hold it (replay --recorded): only
-- the candidates with a record there, numbered afresh, and each parameter's
-- values those candidates have, so that a landscape recorded completely
-- before the space grew (a value, a parameter with a default) is still the
-- complete landscape of the space it was recorded in.
local function as_recorded(x, landscape)
  local cands, seen = {}, {}
  for _, c in ipairs(x.cands) do
    if landscape[c.desc] then
      cands[#cands + 1] = readonly({ id = #cands + 1, values = c.values, key = c.key, desc = c.desc })
      for k, v in pairs(c.values) do
        seen[k] = seen[k] or {}
        seen[k][v] = true
      end
    end
  end
  local params = {}
  for _, p in ipairs(x.params) do
    local values = {}
    for _, v in ipairs(p.values) do
      if seen[p.name] and seen[p.name][v] then values[#values + 1] = v end
    end
    if #values > 0 then params[#params + 1] = readonly({ name = p.name, values = readonly(values), default = p.default }) end
  end
  cands, params = readonly(cands), readonly(params)
  return { S = x.S, key = x.key, cands = cands, params = params, by_desc = index_of(cands) }
end

-- A replay in three calls, so that each seed has the limits of one call
-- into Lua (as each ask and tell of a live search has): replay_begin
-- expands the space, replay_seed(seed) runs one seed's search (its own
-- strategy state and view: independent searches), replay_end returns the
-- runs, the number of candidates and of ok ones, and the median curve.
-- warm: other landscapes, told as space.elsewhere; recorded: the space as
-- the landscape's records hold it (as_recorded).
local rp
function M.replay_begin(S, dev, landscape, st_text, chunkname, budget, warm, recorded)
  rp = nil
  local x = expansion(S, dev, {})
  if recorded then x = as_recorded(x, landscape) end
  local cands, params, by_desc = x.cands, x.params, x.by_desc
  local best, ok = nil, 0
  for _, c in ipairs(cands) do
    local r = landscape[c.desc]
    if r and r.status == "ok" then
      ok = ok + 1
      if not best or r.ms < best then best = r.ms end
    end
  end
  if not best then error("the records hold no ok measurement of this space's candidates", 0) end
  rp = { cands = cands, params = params, by_desc = by_desc, warm = elsewhere_of(warm, by_desc), x = x,
    landscape = landscape, best = best, ok = ok, text = st_text, chunkname = chunkname,
    budget = budget, runs = {} }
end

function M.replay_seed(seed)
  rp.runs[#rp.runs + 1] = replay_one(rp.text, rp.chunkname, rp.cands,
    space_view(rp.cands, rp.params, rp.by_desc, rp.warm, rp.x), rp.landscape, rp.best, rp.budget, seed)
end

function M.replay_end()
  local runs, budget = rp.runs, rp.budget
  -- the median over seeds of best-so-far after each measured configuration
  -- (a seed with nothing verified yet counts as infinitely far)
  local curve = {}
  for m = 1, budget do
    local vals = {}
    for _, r in ipairs(runs) do
      local v = r.trace[m] or r.trace[#r.trace] or -1
      vals[#vals + 1] = v >= 0 and v or math.huge
    end
    table.sort(vals)
    local med = vals[(#vals + 1) // 2]
    if med == math.huge then
      if #curve > 0 then break end
    else
      curve[#curve + 1] = { m, med }
    end
  end
  for _, r in ipairs(runs) do r.trace = nil end
  local out = { runs = runs, candidates = #rp.cands, ok = rp.ok, best = rp.best, curve = curve }
  rp = nil
  return out
end

-- A live search for bartune run --strategy: expand, start, then ask and tell.
local live

-- The expansion alone, its own call into Lua (and so its own limits): a
-- space of 10^5 variants takes most of one call's instructions to expand,
-- and the strategy's start with warm landscapes then ran past them.
function M.expand(S, dev, overrides)
  return #expansion(S, dev, overrides).cands
end

function M.start(S, dev, overrides, st_text, chunkname, budget, seed, warm)
  live = nil -- the last size tuple's search is garbage before this one is built
  local x = expansion(S, dev, overrides)
  local cands, params, by_desc = x.cands, x.params, x.by_desc
  live = { cands = cands, view = space_view(cands, params, by_desc, elsewhere_of(warm, by_desc), x),
    st = M.load_strategy(st_text, chunkname), given = {}, chunkname = chunkname }
  live.st.init(live.view, budget, new_rng(seed))
  return #cands
end

-- Up to k candidate ids not given before (strategies may repeat one).
function M.ask(k)
  local batch = asked(live.st.ask(k), live.chunkname)
  local ids = {}
  for i = 1, math.min(rawlen(batch), k) do
    local c = rawget(batch, i)
    if type(c) == "table" and live.cands[c.id] == c and not live.given[c.id] then
      live.given[c.id] = true
      ids[#ids + 1] = c.id
    end
  end
  return ids
end

function M.tell(id, status, ms)
  live.st.tell(live.cands[id], { status = status, time = status == "ok" and ms or nil })
end

return M
