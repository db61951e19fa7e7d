-- A value open only to some earlier values (param's allow): depth 3 only
-- where stages is 4. The walk never visits what allow closes, and a
-- configuration that names a closed value is refused, naming the rule.
space { name = "allow", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2, 4 })
param("depth", { 1, 2, 3 }, { allow = function(c, v) return v ~= 3 or c.stages == 4 end })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
