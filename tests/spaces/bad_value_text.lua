space { name = "bad", template = "pipeline.cu", problem = "pipeline", n = 1000 }
param("stages", { 2, "a b" })
