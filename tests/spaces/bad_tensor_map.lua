-- A tensor map of something that is not one of the problem's buffers (here
-- a size): refused with the map's name, before anything is compiled or run.
space { name = "bad_tensor_map", template = "gemm_bf16.cu", host = "gemm_bf16/host.cuh", problem = "gemm_bf16" }
param("kind", { "simt" })
derive(function(c) c.threads, c.smem_bytes, c.fault = 256, 0, "none" end)
launch(function(c, s, dev)
  return { grid = { ceil_div(s.N, 64), ceil_div(s.M, 64) }, block = { 256 },
           tensor_maps = { { buffer = "lda", dims = { s.K }, strides = {}, box = { 64 } } } }
end)
portable("portable", { kind = "simt" })
