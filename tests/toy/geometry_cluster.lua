-- launch().cluster (tests/geometry.sh): a kernel's compile-time cluster over
-- 8 CTAs, which the header must allow before launching; a value outside
-- 1..16 is an error of the space; so is a launch().persistent or a
-- launch().scratch_zero_kept that is not a boolean, and a launch().together
-- that is not a count. scratch_zero_kept: the header keeps the stream's
-- scratch memory between calls.
space { name = "geometry_cluster", template = "axpy2d.cu", problem = "axpy2d" }
param("shape", { "plain", "sixteen", "bad", "persistent_bad", "kept", "kept_bad", "kept_alone", "together_bad" })
derive(function(c)
  c.block_x, c.block_y, c.fault, c.checked = 32, 4, "none", false
  c.threads, c.smem_bytes = 128, 0
end)
launch(function(c, s, dev)
  local cluster = ({ sixteen = 16, bad = 17 })[c.shape]
  local persistent = c.shape == "persistent_bad" and 1 or nil
  local kept = ({ kept = true, kept_bad = 1, kept_alone = true })[c.shape]
  local scratch = (c.shape == "kept" or c.shape == "kept_bad") and 4096 or nil
  local together = c.shape == "together_bad" and 0 or nil
  return { grid = { ceil_div(s.cols, 32), ceil_div(s.rows, 4) }, block = { 32, 4 }, smem = 1024, cluster = cluster,
           persistent = persistent, scratch = scratch, scratch_zero = scratch and 256, scratch_zero_kept = kept,
           together = together }
end)
portable("portable", { shape = "plain" })
