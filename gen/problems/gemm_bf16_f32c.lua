-- gemm_bf16 with C in fp32: C = alpha * op(A) * op(B) + beta * C with A and
-- B bf16 (the layouts and sizes of problems/gemm_bf16.lua), fp32
-- accumulation, and C fp32 (M x N, row-major, ldc >= N), read and written as
-- fp32: the result is not rounded to bf16, so the accuracy test holds the
-- kernel to the fp32 sums' own error. The reference is gemm_bf16's
-- (templates/gemm_bf16/reference.c, which registers this name too and
-- reads C's type).
problem {
  extends = "gemm_bf16",
  name = "gemm_bf16_f32c",
  buffers = {
    { "C", "float", role = "inout", unset_when_zero = "beta", length = function(s) return (s.M - 1) * s.ldc + s.N end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = "M", cols = "N", ld = "ldc" } },
  },
  -- The expected error per element is now the fp32 sum's (rounding, or
  -- truncating as tensor cores may: a bound on that bias, so the unit is
  -- generous at large K) and the epilogue's. tests/test_accuracy.c: honest
  -- fp32 orders stay under an RMS of 0.54 and a maximum of 2.4 at every
  -- tuned K; C rounded to bf16 and a relative error of 1e-3 are over 1.19
  -- in RMS at K = 16384 (and far over elsewhere).
  accuracy = { precision = "bf16 inputs, fp32 sums, C in fp32", rms = 1, max = 4 },
  cost = function(s)
    return { bytes = 2 * (s.M * s.K + s.K * s.N) + 8 * s.M * s.N, mma = s.M * s.N * s.K }
  end,
  host_baselines = { { "cuBLAS GemmEx fp32 C", source = "gemm_bf16/cublas_baseline_f32c.cu", libs = { "cublas" } } },
  tune = {
    { M = 4096, N = 4096, K = 4096 },
    { M = 4096, N = 4096, K = 4096, transb = 1 },
    { M = 2048, N = 2048, K = 2048 },
    { M = 16384, N = 128, K = 4096 },
    { M = 256, N = 256, K = 16384 },
  },
}
