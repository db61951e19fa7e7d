-- The same through rawset (tests/cases/replay_carry_rawset.case): strategies
-- get no rawset.
local space
return {
  init = function(s) space = s end,
  ask = function(k)
    rawset(space.candidates, "memo", true)
    return { space.candidates[1] }
  end,
  tell = function(c, result) end,
}
