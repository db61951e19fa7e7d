space { name = "bad", template = "pipeline.cu", problem = "pipeline" }
os.execute("touch /tmp/bartune-pwned")
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
