space { name = "churn", template = "pipeline.cu", problem = "pipeline" }
param("stages", { 2 })
-- Holds 576 MiB and makes 768 MiB of garbage tables beside it: live memory
-- stays under the limit, so the space is fine (garbage not yet collected is
-- not the script's: Lua collects when the limit first refuses, and only a
-- refusal after that collection is over the limit).
local keep = {}
for i = 1, 576 do keep[i] = string.rep("k", 1 << 20) .. i end
for i = 1, 12 do
  local g = {}
  for j = 1, 1 << 22 do g[j] = j end -- 64 MiB of array
  keep.last = #g
end
derive(function(c) c.threads = 64; c.smem_bytes = 0 end)
launch(function(c, s, dev) return { grid = { 1 }, block = { c.threads } } end)
