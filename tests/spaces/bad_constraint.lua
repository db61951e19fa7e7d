space { name = "bad", template = "pipeline.cu", problem = "pipeline", n = 1000 }
param("stages", { 2 })
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
constraint("boom", function(c)
  return c.nothing.field
end)
