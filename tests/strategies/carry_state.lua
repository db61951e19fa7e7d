-- A strategy that leaves a mark on the candidates it is given and, seeing
-- the mark of an earlier seed, asks nothing: with independent seeds every
-- seed measures the same (tests/cases/replay_independent_seeds.case).
local S, list, i = {}, nil, 1
function S.init(space)
  list, i = space.candidates, 1
  if list[1].seen_by_an_earlier_seed then list = {} end
  if list[1] then list[1].seen_by_an_earlier_seed = true end
end
function S.ask(k)
  local out = {}
  while #out < k and i <= #list do out[#out + 1] = list[i]; i = i + 1 end
  return out
end
function S.tell() end
return S
