-- Iterated local search (Lourenco, Martin and Stutzle, "Iterated Local
-- Search", 2003) over the space's neighbourhood (candidates that differ in
-- one value, with the conditional parameters that value brings or takes
-- away: space.near), for mixed categorical/integer spaces with many invalid
-- points:
--   1. a random start (a spread start that showed every value of every
--      parameter first cost more than it taught: NOTES.md 2026-12-04,
--      twenty-second session);
--   2. descent from the incumbent: its untried neighbours, the most
--      promising first by a score per parameter value, summed (cold: how
--      close the fastest point measured with that value came to the best),
--      kept over all measured so far (three queued at a time, so the
--      newest scores pick the next). Equal scores (every value unseen, as
--      in the first steps) go to the earlier-listed value of a categorical
--      parameter (spaces list the plain kind first: barrier = none, one
--      consumer warpgroup, producer = warp), and at random among numeric
--      values, whose ascending order says nothing of which is faster;
--   3. at a local optimum, a kick: a random walk of a few steps from the
--      incumbent, or a fresh start, and descend again. A fresh start goes where
--      the search has been least (the values tried least often): regions a
--      neighbour step cannot reach (pipeline's barrier = none, 4% of the
--      space and its best) are found there. It is descended from to its own
--      local optimum even when slower than the incumbent, then the search
--      returns to the incumbent: on a plateau (gemm_bf16 at 1024^3, where
--      hundreds of variants lie within 10%) a search that only ever descends
--      from its best stays in that best's basin (NOTES.md 2026-12-02).
-- Warm (space.elsewhere: what other landscapes found fastest), step 1 is the
-- best few of those, and the model of step 2 starts
-- from what the nearest landscapes say (space.landscapes), trusted as far as
-- they rank this one's measured points alike.
local S = {}
local space, rng
local tried = {}
local queue = {}
local incumbent, best_time
-- a fresh start is descended from until its own local optimum (base), then
-- the search returns to the best (incumbent)
local base, base_time, restart
-- what the model and the fresh starts read, kept as points come: each
-- candidate's "name=value" strings (built once), the sums and the least of
-- log time per value over the measured points, and how often each value
-- was tried
local keys_of = {}
local sum, n, all, count = {}, {}, 0, 0
local least, lowest = {}, math.huge
local seen = {}

local function untried(list)
  local out = {}
  for _, c in ipairs(list) do if not tried[c.id] then out[#out + 1] = c end end
  return out
end

-- A parameter with one value in the space (split_one where the recorded
-- space of a replay holds 1 alone) tells candidates apart only by being
-- present, which the values it depends on already say: left out, so that a
-- parameter added to the space does not move a search of the old part
local single = {}

local function keys(c)
  local ks = keys_of[c.id]
  if not ks then
    ks = {}
    for k, v in pairs(c.values) do
      if not single[k] then ks[#ks + 1] = k .. "=" .. tostring(v) end
    end
    table.sort(ks) -- pairs' order changes from run to run; sums over it must not
    keys_of[c.id] = ks
  end
  return ks
end

-- Warm, what other landscapes say (space.landscapes, nearest first) is a
-- prior on the value scores: each landscape's value effects (its mean log
-- time per value less its mean), trusted as far as it ranks the candidates
-- measured here as they rank here (Kendall's tau, counted as points come; a
-- landscape that ranks them backwards counts for nothing, and once none
-- counts the search is cold).
local PRIORS, PRIOR_W = 3, 3
local priors = {}

local function landscape_prior(land, weight)
  if #land < 8 then return nil end
  local sums, counts, total = {}, {}, 0
  for _, e in ipairs(land) do total = total + math.log(e.time) end
  local mean = total / #land
  local p = { score = {}, time = {}, pts = {}, agree = 0, pairs = 0, weight = weight }
  for _, e in ipairs(land) do
    local lt = math.log(e.time) - mean
    p.time[e.candidate.id] = e.time
    for _, key in ipairs(keys(e.candidate)) do sums[key], counts[key] = (sums[key] or 0) + lt, (counts[key] or 0) + 1 end
  end
  for key, s in pairs(sums) do p.score[key] = -(s / counts[key]) * counts[key] / (counts[key] + 1) end
  return p
end

-- A measured candidate that a prior's landscape holds: its pairs with the
-- earlier ones counted, agreeing or not.
local function prior_learn(c, time)
  for _, p in ipairs(priors) do
    local there = p.time[c.id]
    if there then
      for _, q in ipairs(p.pts) do
        local a = (time - q[1]) * (there - q[2])
        if a > 0 then p.agree = p.agree + 1 elseif a < 0 then p.agree = p.agree - 1 end
        p.pairs = p.pairs + 1
      end
      p.pts[#p.pts + 1] = { time, there }
    end
  end
end

-- Each prior's trust (its tau once 4 points say, a half before), and their
-- scores blended by it; nil when none is trusted.
local function prior_scores()
  local blend, wsum, top = {}, {}, 0
  for _, p in ipairs(priors) do
    local t = #p.pts >= 4 and math.max(0, p.agree / p.pairs) or 0.5
    t = t * p.weight
    if t > 0 then
      top = math.max(top, t)
      for key, s in pairs(p.score) do blend[key], wsum[key] = (blend[key] or 0) + t * s, (wsum[key] or 0) + t end
    end
  end
  if top == 0 then return nil end
  for key, s in pairs(blend) do blend[key] = s / wsum[key] end
  return blend, PRIOR_W * top
end

-- Each (name, value)'s score, higher the faster, 0 unseen, shrunk by
-- n / (n + 1) (one point says little). Cold: how far the fastest measured
-- point holding the value is from the fastest of all, in log time: what a
-- value can reach, not its average, since the search wants the best and
-- the best often lies where a value's average is poor (gemm_bf16 1024^3:
-- grid = tile is 0.21 slower on average than persistent, and holds the
-- best; within 2% in a median of 40 measured instead of 44 over 100 seeds,
-- no landscape worse: NOTES.md 2026-12-03, fourteenth). Warm: the mean of
-- log time over the points holding it less the mean over all, blended
-- with the trusted priors (value effects of the same kind), which count as
-- w measurements of each value.
local function value_scores()
  local score = {}
  local prior, w
  if #priors > 0 then prior, w = prior_scores() end
  if not prior then
    for key, m in pairs(n) do score[key] = -(least[key] - lowest) * m / (m + 1) end
    return score
  end
  for key, p in pairs(prior) do score[key] = p * w / PRIOR_W end
  for key, s in pairs(sum) do
    local r = -(s / n[key] - all / count)
    score[key] = (n[key] * r + w * (prior[key] or 0)) / (n[key] + w)
  end
  return score
end

local function promise(c, score)
  local s = 0
  for _, key in ipairs(keys(c)) do s = s + (score[key] or 0) end
  return s
end

-- How far down their parameters' lists c's categorical values are (summed
-- positions; numeric values count nothing), the tie-break of equal scores.
local rank_of = {}
local function listed(c)
  if rank_of[c.id] then return rank_of[c.id] end
  local r = 0
  for _, prm in ipairs(space.params) do
    local v = c.values[prm.name]
    if v ~= nil and type(v) ~= "number" then
      for i, w in ipairs(prm.values) do if w == v then r = r + i - 1 end end
    end
  end
  rank_of[c.id] = r
  return r
end

-- The candidates, the most promising first (each scored once); equal
-- scores by listed(), then at random (NOTES.md 2026-12-04, twenty-second:
-- within 2% in 3, 8, 9, 12, 10, 12, 26, 21 measured on the eight complete
-- landscapes at 300 seeds, against 3, 12, 12, 12, 17, 20, 38, 30 by id)
local function by_promise(list)
  local score, p, tie = value_scores(), {}, {}
  for _, c in ipairs(list) do p[c] = promise(c, score); tie[c] = listed(c) + 0.5 * rng:float() end
  table.sort(list, function(a, b) return p[a] > p[b] or (p[a] == p[b] and tie[a] < tie[b]) end)
  return list
end

local function descend()
  local ns = by_promise(untried(space.near(base or incumbent)))
  for i = 1, math.min(#ns, 3) do queue[#queue + 1] = ns[i] end
end

local function kick()
  if rng:float() < 0.7 and incumbent then
    local c = incumbent
    for _ = 1, 2 + rng:int(2) do
      local ns = space.near(c)
      if #ns == 0 then break end
      c = ns[rng:int(#ns)]
    end
    if not tried[c.id] then queue[#queue + 1] = c end
    for _, n in ipairs(untried(space.near(c))) do
      if #queue >= 3 then break end
      queue[#queue + 1] = n
    end
  end
  if #queue == 0 then
    -- a fresh start where the search has been least: of a few untried
    -- candidates, the one whose values were tried least often
    local pick, least
    local function consider(c)
      if tried[c.id] then return end
      local t = 0
      for _, key in ipairs(keys(c)) do t = t + (seen[key] or 0) end
      if not least or t < least then pick, least = c, t end
    end
    for _ = 1, 20 do consider(space.candidates[rng:int(#space.candidates)]) end
    -- all 20 drawn were tried (a small space nearly searched): every untried
    -- one is a candidate, else the search would end with some never measured
    if not pick then for _, c in ipairs(space.candidates) do consider(c) end end
    if pick then queue[#queue + 1] = pick; restart = pick end
  end
end

-- The k candidates the priors alone rank first (no measurement yet), of
-- every candidate or, in a large space, of PRIOR_POOL drawn at random (each
-- scored candidate keeps its keys).
local PRIOR_POOL = 20000
local function prior_best(k)
  if #priors == 0 then return {} end
  local pool, cands = {}, space.candidates
  if #cands <= PRIOR_POOL then
    for i = 1, #cands do pool[i] = cands[i] end
  else
    for i = 1, PRIOR_POOL do pool[i] = cands[rng:int(#cands)] end
  end
  return { table.unpack(by_promise(pool), 1, math.min(k, #pool)) }
end

-- Warm (space.elsewhere known: the fastest candidates of other landscapes):
-- the best few of them come first, then the two the priors rank first, and
-- the priors stand in for the random start (NOTES.md 2026-12-02, eleventh:
-- gemm_bf16 1024^3 warm 38 -> 13). An
-- improvement puts the incumbent's neighbours ahead of the queue, so a good
-- prediction is descended from at once; a misleading one costs only its few.
local WARM_START = 4

function S.init(sp, budget, r)
  space, rng = sp, r
  tried, queue, incumbent, best_time = {}, {}, nil, nil
  base, base_time, restart = nil, nil, nil
  keys_of, sum, n, all, count, seen = {}, {}, {}, 0, 0, {}
  rank_of = {}
  least, lowest = {}, math.huge
  single = {}
  for _, p in ipairs(space.params) do single[p.name] = #p.values == 1 or nil end
  priors = {}
  for i = 1, math.min(PRIORS, #space.landscapes) do
    priors[#priors + 1] = landscape_prior(space.landscapes[i], 1 / i)
  end
  for i = 1, math.min(WARM_START, #space.elsewhere) do queue[#queue + 1] = space.elsewhere[i] end
  for _, c in ipairs(prior_best(2)) do queue[#queue + 1] = c end
  if #priors == 0 then queue[#queue + 1] = space.untried(tried, rng) end
end

function S.ask(k)
  local out = {}
  for _ = 1, 3 do
    while #out < k and #queue > 0 do
      local c = table.remove(queue, 1)
      if not tried[c.id] then
        tried[c.id] = true
        for _, key in ipairs(keys(c)) do seen[key] = (seen[key] or 0) + 1 end
        out[#out + 1] = c
      end
    end
    if #out > 0 then return out end
    if incumbent or base then descend() end
    if #queue == 0 and base then base, base_time = nil, nil; descend() end  -- back to the best
    if #queue == 0 then kick() end
  end
  return out
end

-- An improvement (on the best, or on a fresh start's base): its most
-- promising neighbour before anything else (with near: one gave 20 and 22
-- measured on the pipeline landscapes, 9 and 13 on the skeleton's, 43 and 31
-- on gemm_bf16's; two 22, 28, 9, 14, 43, 33; NOTES.md 2026-12-02, ninth)
local function neighbours_first(c)
  local best = by_promise(untried(space.near(c)))[1]
  if best then table.insert(queue, 1, best) end
end

function S.tell(c, result)
  if result.status ~= "ok" then return end
  local lt = math.log(result.time)
  prior_learn(c, result.time)
  all, count = all + lt, count + 1
  for _, key in ipairs(keys(c)) do
    sum[key], n[key] = (sum[key] or 0) + lt, (n[key] or 0) + 1
    least[key] = math.min(least[key] or math.huge, lt)
  end
  lowest = math.min(lowest, lt)
  local fresh = c == restart
  if fresh then restart = nil end
  if not best_time or result.time < best_time then
    base, best_time, incumbent = nil, result.time, c
    neighbours_first(c)
  elseif fresh then
    base, base_time = c, result.time
  elseif base and result.time < base_time then
    base, base_time = c, result.time
    neighbours_first(c)
  end
end

return S
