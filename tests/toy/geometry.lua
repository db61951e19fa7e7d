-- launch() giving geometries no GPU launches (tests/geometry.sh): each is a
-- launch_refused record of its configuration, and the run goes on.
space { name = "geometry", template = "axpy2d.cu", problem = "axpy2d" }
param("shape", { "fine", "zero_grid", "huge_grid", "negative_block", "huge_smem", "huge_scratch",
  "negative_scratch", "scratch", "zero_past_scratch", "negative_zero", "scratch_zero", "fine_again" })
derive(function(c)
  c.block_x, c.block_y, c.fault, c.checked = 32, 4, "none", false
  c.threads, c.smem_bytes = 128, 0
end)
launch(function(c, s, dev)
  local grid, block, smem = { ceil_div(s.cols, 32), ceil_div(s.rows, 4) }, { 32, 4 }, 0
  if c.shape == "zero_grid" then grid = { 0, 1 } end
  if c.shape == "huge_grid" then grid = { 1 << 31 } end
  if c.shape == "negative_block" then block = { -32, 4 } end
  if c.shape == "huge_smem" then smem = 1 << 40 end
  -- scratch memory: past any card's, negative, and a fine one (its bytes recorded)
  local scratch = ({ huge_scratch = 1 << 40, negative_scratch = -4, scratch = s.rows * s.cols * 4 })[c.shape]
  -- a zero prefix of scratch memory: past its end, negative, and a fine one
  local zero = ({ zero_past_scratch = 1024 + 4, negative_zero = -4, scratch_zero = 256 })[c.shape]
  if zero then scratch = 1024 end
  return { grid = grid, block = block, smem = smem, scratch = scratch, scratch_zero = zero }
end)
portable("portable", { shape = "fine" })
