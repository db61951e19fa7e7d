-- A strategy that rewrites what a warm start is told
-- (tests/cases/replay_tamper_landscapes.case): every seed's view shares the
-- other landscapes, so a write would tell the later seeds lies; they are
-- read-only, down to each { candidate, time }.
return {
  init = function(s)
    local e = s.landscapes[1] and s.landscapes[1][1]
    if not e then error("no landscape told", 0) end
    e.time = 0
  end,
  ask = function(k) return {} end,
  tell = function(c, result) end,
}
