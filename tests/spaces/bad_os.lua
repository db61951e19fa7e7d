space { name = "bad", template = "pipeline.cu", problem = "pipeline", n = 1000 }
os.execute("touch /tmp/bartune-pwned")
