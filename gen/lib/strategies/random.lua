-- Candidates in a random order (the baseline every learning strategy must beat).
local S = {}
local order, next_i

function S.init(space, budget, rng)
  order = {}
  for i, c in ipairs(space.candidates) do order[i] = c end
  for i = #order, 2, -1 do
    local j = rng:int(i)
    order[i], order[j] = order[j], order[i]
  end
  next_i = 1
end

function S.ask(k)
  local out = {}
  while #out < k and next_i <= #order do
    out[#out + 1] = order[next_i]
    next_i = next_i + 1
  end
  return out
end

function S.tell() end

return S
