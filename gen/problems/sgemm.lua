-- C = alpha * A * B + beta * C in fp32 (no TF32), row-major: A is M x K
-- (leading dimension lda >= K), B is K x N (ldb >= N), C is M x N (ldc >= N).
-- The CPU reference (templates/sgemm/reference.c) works in double.
problem {
  name = "sgemm",
  sizes = {
    { "M", "int" }, { "N", "int" }, { "K", "int" },
    { "lda", "int", default = function(s) return s.K end },
    { "ldb", "int", default = function(s) return s.N end },
    { "ldc", "int", default = function(s) return s.N end },
  },
  -- the second input set: scalars from their ranges (tuned sizes) or their
  -- special values in turn (check sizes: beta = 0 and 1, alpha = 1 and -1)
  scalars = {
    { "alpha", "float", value = 1.25, range = { -2, 2 }, special = { 1, -1 } },
    { "beta", "float", value = -0.75, range = { -2, 2 }, special = { 0, 1 } },
  },
  -- the last row needs only K (N) elements, not a whole leading dimension;
  -- views: the padding between rows holds a pattern, C's must stay as it
  -- is; the second set's magnitudes span 2^-10 to 2^17 (fp16 fails there)
  buffers = {
    { "A", "float", role = "in", length = function(s) return (s.M - 1) * s.lda + s.K end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = "M", cols = "K", ld = "lda" } },
    { "B", "float", role = "in", length = function(s) return (s.K - 1) * s.ldb + s.N end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = "K", cols = "N", ld = "ldb" } },
    { "C", "float", role = "inout", unset_when_zero = "beta", length = function(s) return (s.M - 1) * s.ldc + s.N end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = "M", cols = "N", ld = "ldc" } },
  },
  args = { "M", "N", "K", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc" },
  signature = { "M", "N", "K", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc" },
  -- Any order of fp32 FMAs (or multiplies and adds) over K terms, then
  -- alpha * acc + beta * c, differs from the exact value by at most
  -- gamma_{K+2} * (|alpha| sum_k |a_ik b_kj| + |beta c_ij|), where
  -- gamma_n = n u / (1 - n u) and u = 2^-24 (Higham, Accuracy and Stability
  -- of Numerical Algorithms, 3.1 and 3.5). The reference computes both in
  -- double. A kernel that drops a k-step or reads a tile twice moves an
  -- element by about |a b| ~ 0.25, far past the bound at the fault tests'
  -- shapes (gamma ~ 6e-5 at K = 1000: a bound of ~0.015).
  verify = "bound",
  -- The bound grows like K; an honest fp32 order's error grows like sqrt(K)
  -- (TF32 inputs or a relative error of 1e-5 stay inside the bound). The
  -- reference writes the expected error of an honest fp32 evaluation per
  -- element (the sum's rounding averaged over orders, the products' if not
  -- fused, the epilogue's); errors in those units must stay within an RMS
  -- of 1.5 and a maximum of 32 (tests/test_accuracy.c: honest orders at
  -- every tuned K stay under 0.8 and 7; TF32 is at 100 to 850, a relative
  -- error of 1e-5 at 2.8 to 21).
  accuracy = { precision = "fp32 (no TF32)", rms = 1.5, max = 32 },
  cost = function(s)
    return { bytes = 4 * (s.M * s.K + s.K * s.N + 2 * s.M * s.N), fma = s.M * s.N * s.K }
  end,
  -- bench times cuBLAS (default math: fp32, no TF32) beside the tuned kernel
  host_baselines = { { "cuBLAS SGEMM", source = "sgemm/cublas_baseline.cu", libs = { "cublas" } } },
  tune = {
    { M = 4096, N = 4096, K = 4096 },
    { M = 2048, N = 2048, K = 2048 },
    { M = 1024, N = 1024, K = 1024 },
    { M = 512, N = 512, K = 512 },
    { M = 3001, N = 2999, K = 4097 },
    { M = 16384, N = 128, K = 4096 },
    { M = 4096, N = 4096, K = 256 },
    { M = 256, N = 256, K = 16384 },
  },
  -- What the header serves besides the tuned sizes (its kernels take any
  -- leading dimension and alignment): partial tiles with padded rows, sizes
  -- of 1, odd leading dimensions with unaligned pointers, the tuned K with
  -- lda > K. Untimed.
  checks = function(s)
    return {
      { M = 129, N = 257, K = 65, lda = 72, ldb = 264, ldc = 264 },
      { M = 1, N = 1, K = 1 },
      { M = 97, N = 131, K = 67, lda = 69, ldb = 133, ldc = 135, offsets = { A = 1, B = 3, C = 1 } },
      { M = 200, N = 136, K = s.K, lda = s.K + 4, ldb = 136, ldc = 140 },
    }
  end,
}
