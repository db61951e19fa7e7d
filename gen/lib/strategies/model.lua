-- Model-based search (sequential model-based optimisation, in the manner
-- of SMAC and of Bayesian optimisation): after a random start of START
-- measured, each round fits a model of log time to what was measured and
-- asks for the candidates it scores best, predicted time less a bonus for
-- distance from what it has seen (EXPLORE per parameter that differs),
-- among the neighbours of the best few and a random sample of the space.
-- Warm (space.elsewhere), the start begins with the best four of those.
-- Measured on the complete landscapes against ils (NOTES.md): it does not
-- pay there, so ils stays the default.
local S = {}
local space, rng
local tried, times, queue, codes, model
local measured, fitted_at

-- The model: a Gaussian process (kernel ridge regression) on log time with
-- the kernel RATIO^d, d = how many parameters two candidates differ in
-- (Rasmussen and Williams, Gaussian Processes for Machine Learning, 2.2),
-- over the fastest MODEL_POINTS measured: the model must rank the good
-- region right; the slow tail says only where not to go. Small on purpose:
-- every call into Lua has an instruction limit.
local MODEL_POINTS, POOL, START, EXPLORE = 40, 300, 10, 0.15
local RATIO, NOISE = 0.5, 0.05

-- A candidate as one small integer per parameter (0: the parameter is absent).
local function code_of(c)
  local code = codes[c.id]
  if code then return code end
  code = {}
  for i, p in ipairs(space.params) do
    local v, k = c.values[p.name], 0
    if v ~= nil then
      for j, x in ipairs(p.values) do if x == v then k = j break end end
    end
    code[i] = k
  end
  codes[c.id] = code
  return code
end

local function differ(a, b)
  local d = 0
  for i = 1, #a do if a[i] ~= b[i] then d = d + 1 end end
  return d
end

-- Solves A x = b for the symmetric positive definite n x n A (Cholesky).
local function spd_solve(A, n, b)
  local L = {}
  for i = 1, n do
    L[i] = {}
    for j = 1, i do
      local s = A[i][j]
      for k = 1, j - 1 do s = s - L[i][k] * L[j][k] end
      if i == j then
        if s <= 0 then return nil end
        L[i][i] = math.sqrt(s)
      else
        L[i][j] = s / L[j][j]
      end
    end
  end
  local z, x = {}, {}
  for i = 1, n do
    local s = b[i]
    for k = 1, i - 1 do s = s - L[i][k] * z[k] end
    z[i] = s / L[i][i]
  end
  for i = n, 1, -1 do
    local s = z[i]
    for k = i + 1, n do s = s - L[k][i] * x[k] end
    x[i] = s / L[i][i]
  end
  return x
end

local function fit()
  local pts = {}
  for id, t in pairs(times) do pts[#pts + 1] = { id = id, y = math.log(t) } end
  table.sort(pts, function(a, b) return a.y < b.y or (a.y == b.y and a.id < b.id) end)
  local n = math.min(#pts, MODEL_POINTS)
  if n < 6 then model = nil return end
  local X, y, mean = {}, {}, 0
  for i = 1, n do X[i] = code_of(space.candidates[pts[i].id]); mean = mean + pts[i].y end
  mean = mean / n
  for i = 1, n do y[i] = pts[i].y - mean end
  local pow = {}
  for d = 0, #space.params do pow[d] = RATIO ^ d end
  local A = {}
  for i = 1, n do
    A[i] = {}
    for j = 1, n do A[i][j] = pow[differ(X[i], X[j])] + (i == j and NOISE or 0) end
  end
  local alpha = spd_solve(A, n, y)
  model = alpha and { X = X, alpha = alpha, n = n, pow = pow } or nil
end

-- Predicted log time, less the mean (lower is faster), and how many
-- parameters the candidate is from the nearest point fitted (a cheap
-- stand-in for the model's uncertainty).
local function predict(c)
  local x, s, near = code_of(c), 0, #space.params
  for i = 1, model.n do
    local d = differ(x, model.X[i])
    s = s + model.alpha[i] * model.pow[d]
    if d < near then near = d end
  end
  return s, near
end

local function untried_random() return space.untried(tried, rng) end

-- The k untried candidates of the pool the model scores best.
local function proposals(k)
  if measured > fitted_at then fit(); fitted_at = measured end
  if not model then return {} end
  local ranked = {}
  for id, t in pairs(times) do ranked[#ranked + 1] = { id = id, t = t } end
  table.sort(ranked, function(a, b) return a.t < b.t or (a.t == b.t and a.id < b.id) end)
  local pool, inpool = {}, {}
  local function add(c)
    if c and not tried[c.id] and not inpool[c.id] then inpool[c.id] = true; pool[#pool + 1] = c end
  end
  for i = 1, math.min(3, #ranked) do
    for _, c in ipairs(space.neighbours(space.candidates[ranked[i].id])) do add(c) end
  end
  for _ = 1, POOL do add(untried_random()) end
  local score = {}
  for _, c in ipairs(pool) do
    local mean, near = predict(c)
    score[c.id] = mean - EXPLORE * near
  end
  table.sort(pool, function(a, b) return score[a.id] < score[b.id] or (score[a.id] == score[b.id] and a.id < b.id) end)
  local out = {}
  for i = 1, math.min(k, #pool) do out[i] = pool[i] end
  return out
end

function S.init(sp, budget, r)
  space, rng = sp, r
  tried, times, queue, codes, model, measured, fitted_at = {}, {}, {}, {}, nil, 0, 0
  for i = 1, math.min(4, #space.elsewhere) do queue[#queue + 1] = space.elsewhere[i] end
end

function S.ask(k)
  local out = {}
  while #out < k and #queue > 0 do
    local c = table.remove(queue, 1)
    if not tried[c.id] then out[#out + 1] = c end
  end
  if #out == 0 then
    -- a round of the model's proposals, or random ones while it has too few points
    local list = measured >= START and proposals(math.min(k, 4)) or {}
    if #list == 0 then list = { untried_random() } end
    for _, c in ipairs(list) do out[#out + 1] = c end
  end
  for _, c in ipairs(out) do tried[c.id] = true end
  return out
end

function S.tell(c, result)
  if result.status ~= "over_occupancy" then measured = measured + 1 end
  if result.status == "ok" then times[c.id] = result.time end
end

return S
