-- pairs() on a read-only view must not hand out the writable table behind
-- it (tests/cases/replay_leak_pairs.case): with it, a strategy could give
-- the first candidate the best one's description and "find" the best in one
-- measurement.
local space
return {
  init = function(s) space = s end,
  ask = function(k)
    local _, real = pairs(space.candidates[1])
    real.desc = space.candidates[2].desc
    return { space.candidates[1] }
  end,
  tell = function(c, result) end,
}
