space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, 4 }, { default = setmetatable({}, { __tostring = function() while true do end end }) })
launch(function(c, s, dev) return { grid = { 1 }, block = { 32 } } end)
