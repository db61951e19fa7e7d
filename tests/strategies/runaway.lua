-- A strategy that never answers: stopped by the script limits.
return {
  init = function() end,
  ask = function() while true do pcall(function() while true do end end) end end,
  tell = function() end,
}
