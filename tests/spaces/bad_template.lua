space { name = "bad", template = "nope.cu", problem = "pipeline", n = 1000 }
param("stages", { 2 })
