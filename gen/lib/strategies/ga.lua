-- A genetic algorithm over the space's candidates (in the manner of Kernel
-- Tuner's genetic_algorithm and of Holland's): a population of verified
-- candidates, tournament selection, uniform crossover and mutation by one
-- neighbour step. A child that is not a candidate of the space (invalid by
-- its constraints) is repaired to the nearest one by neighbour steps from a
-- parent; candidates that did not verify never breed, so invalid regions
-- cost at most one evaluation each. Random immigrants (one child in five)
-- and a restart of the population after 40 evaluations without a better
-- best keep it from settling in one kind of kernel.
local S = {}
local space, rng
local tried, pop, queue = {}, {}, {}
local POP = 10
local since_best = 0

local function random_candidate()
  return space.untried(tried, rng) or space.candidates[rng:int(#space.candidates)]
end

local function tournament()
  local a, b = pop[rng:int(#pop)], pop[rng:int(#pop)]
  return a.t <= b.t and a.c or b.c
end

-- Uniform crossover; falls back to a neighbour of a parent when the mix is
-- not a candidate.
local function child(p, q)
  local values = {}
  for k, v in pairs(p.values) do values[k] = v end
  for _, param in ipairs(space.params) do -- in declaration order: repeatable with a seed
    local k, v = param.name, q.values[param.name]
    if v ~= nil and values[k] ~= nil and rng:float() < 0.5 then values[k] = v end
  end
  local c = space.find(values) or p
  if c == p or c == q or rng:float() < 0.3 then -- mutation: one neighbour step
    local ns = space.neighbours(c)
    if #ns > 0 then c = ns[rng:int(#ns)] end
  end
  return c
end

function S.init(sp, budget, r)
  space, rng = sp, r
  tried, pop, queue, since_best = {}, {}, {}, 0
  for _ = 1, 2 * POP do queue[#queue + 1] = random_candidate() end
end

function S.ask(k)
  local out, guard = {}, 0
  while #out < k and guard < 50 * k do
    guard = guard + 1
    local c
    if #queue > 0 then
      c = table.remove(queue, 1)
    elseif #pop >= 2 and rng:float() >= 0.2 then
      c = child(tournament(), tournament())
    else
      c = random_candidate()
    end
    if not tried[c.id] then
      tried[c.id] = true
      out[#out + 1] = c
    end
  end
  -- children and draws all tried (a small space nearly searched): any untried
  -- one, so the search ends only when the space is searched out
  local c = #out == 0 and space.untried(tried, rng)
  if c then tried[c.id] = true; out[1] = c end
  return out
end

function S.tell(c, result)
  since_best = since_best + 1
  if since_best > 40 and #pop > 1 then -- stagnation: keep the best, start the rest afresh
    pop = { pop[1] }
    since_best = 0
    for _ = 1, POP do queue[#queue + 1] = random_candidate() end
  end
  if result.status ~= "ok" then return end
  if #pop == 0 or result.time < pop[1].t then since_best = 0 end
  pop[#pop + 1] = { c = c, t = result.time }
  table.sort(pop, function(a, b) return a.t < b.t end)
  while #pop > POP do table.remove(pop) end
end

return S
