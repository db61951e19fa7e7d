space { name = "bad", template = "pipeline.cu", problem = "pipeline", n = 1000 }
param("stages", { 2 })
derive(function(c) c.threads = 64 end)
