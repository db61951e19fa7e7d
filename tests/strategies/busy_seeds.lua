-- A strategy whose every search spends 200 million loop steps before it
-- asks (under the 500 million instructions of one call into Lua): replay gives each seed
-- the limits of one call, as a live run gives each ask, so three seeds pass;
-- run --strategy gives its start a call apart from the expansion
-- (tests/cases/strategy_limits_per_call.case).
local S, space, next_id = {}, nil, 1
function S.init(sp)
  space, next_id = sp, 1
  local x = 0
  for i = 1, 200000000 do x = x + i end
  return x
end
function S.ask(k)
  local out = {}
  while #out < k and next_id <= #space.candidates do
    out[#out + 1] = space.candidates[next_id]
    next_id = next_id + 1
  end
  return out
end
function S.tell() end
return S
