-- A strategy that would carry what one replay seed found to the next by
-- writing it into the space it is given (tests/cases/replay_carry_state.case):
-- the space is read-only, so the replay stops with the error.
local space
return {
  init = function(s) space = s end,
  ask = function(k)
    local memo = space.candidates[1]
    memo.best_so_far = (memo.best_so_far or 0) + 1 -- read back by the next seed
    return { space.candidates[1] }
  end,
  tell = function(c, result) end,
}
