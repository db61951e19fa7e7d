-- A strategy that swaps the view's candidates for forgeries of its own
-- (tests/cases/replay_swap_candidates.case): bartune checks what ask()
-- returns against its own list, and the view is read-only.
local space
return {
  init = function(s)
    space = s
    space.candidates = { { id = 1, desc = "forged", key = "k" } }
  end,
  ask = function(k) return {} end,
  tell = function(c, result) end,
}
