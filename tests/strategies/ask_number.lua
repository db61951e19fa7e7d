-- ask(k) returns a number instead of a list: the run ends with an error naming the
-- strategy, not quietly with exit 0.
return { init = function() end, ask = function() return 7 end, tell = function() end }
