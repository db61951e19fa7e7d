-- A strategy whose init takes most of one call's 500 million instructions,
-- then asks candidates in order (tests/cases/strategy_limits_per_call.case).
local space, next_id = nil, 1
return {
  init = function(sp)
    space = sp
    local x = 0
    for i = 1, 150000000 do x = x + i end
  end,
  ask = function(k)
    local out = {}
    while #out < k and next_id <= #space.candidates do
      out[#out + 1] = space.candidates[next_id]
      next_id = next_id + 1
    end
    return out
  end,
  tell = function() end,
}
