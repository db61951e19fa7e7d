-- C = alpha * op(A) * op(B) + beta * C with A, B in bf16 and fp32
-- accumulation, C bf16 (M x N, row-major, ldc >= N), in CBLAS's row-major
-- convention: transa = 0: A is M x K row-major (lda >= K); transa = 1: A is
-- stored K x M (column-major M x K, lda >= M). transb = 0: B is K x N
-- row-major (ldb >= N); transb = 1: B is stored N x K (column-major, K
-- contiguous: x W^T with the weights W of N x K, ldb >= K). The CPU
-- reference (templates/gemm_bf16/reference.c) works in double from the bf16
-- inputs.
local function a_rows(s) return s.transa == 1 and s.K or s.M end   -- A as stored
local function a_cols(s) return s.transa == 1 and s.M or s.K end
local function b_rows(s) return s.transb == 1 and s.N or s.K end   -- B as stored
local function b_cols(s) return s.transb == 1 and s.K or s.N end
local function up8(x) return (x + 7) // 8 * 8 end
problem {
  name = "gemm_bf16",
  sizes = {
    -- layouts: sizes of declared values, so the header runs a variant only
    -- for calls of the layout it was tuned at (the others: another tuned
    -- one, or the portable kernel)
    { "transa", "int", values = { 0, 1 }, default = function() return 0 end },
    { "transb", "int", values = { 0, 1 }, default = function() return 0 end },
    { "M", "int" }, { "N", "int" }, { "K", "int" },
    { "lda", "int", default = a_cols },
    { "ldb", "int", default = b_cols },
    { "ldc", "int", default = function(s) return s.N end },
  },
  -- the second input set draws the scalars from their ranges (at the tuned
  -- sizes) or, at the check sizes in turn, their special values: beta = 0
  -- and 1, alpha = 1 and -1
  scalars = {
    { "alpha", "float", value = 1.25, range = { -2, 2 }, special = { 1, -1 } },
    { "beta", "float", value = -0.75, range = { -2, 2 }, special = { 0, 1 } },
  },
  -- Views: the runner fills the padding between rows (lda > K, ...) with a
  -- pattern and checks after every launch that C's is unchanged. The second
  -- input set spans the range bf16 holds with fp32 sums of K <= 16384 terms
  -- (magnitudes 2^-10 to 2^17: past fp16's 65504, so fp16 arithmetic fails).
  buffers = {
    { "A", "__nv_bfloat16", role = "in", length = function(s) return (a_rows(s) - 1) * s.lda + a_cols(s) end,
      init = { "uniform", -1, 1 }, init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = a_rows, cols = a_cols, ld = "lda" } },
    { "B", "__nv_bfloat16", role = "in", length = function(s) return (b_rows(s) - 1) * s.ldb + b_cols(s) end,
      init = { "uniform", -1, 1 }, init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = b_rows, cols = b_cols, ld = "ldb" } },
    { "C", "__nv_bfloat16", role = "inout", unset_when_zero = "beta", length = function(s) return (s.M - 1) * s.ldc + s.N end, init = { "uniform", -1, 1 },
      init2 = { "logmag", 2 ^ -10, 2 ^ 17 }, view = { rows = "M", cols = "N", ld = "ldc" } },
  },
  args = { "transa", "transb", "M", "N", "K", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc" },
  signature = { "transa", "transb", "M", "N", "K", "alpha", "A", "lda", "B", "ldb", "beta", "C", "ldc" },
  -- Products of bf16 values are exact in fp32; any order of fp32 additions
  -- of the K products, rounding to nearest or truncating (tensor cores may
  -- truncate: u = 2^-23, twice fp32's unit roundoff), then alpha * acc +
  -- beta * c, is within E = gamma_{K+2} (|alpha| sum_k |a_ik b_kj| + |beta
  -- c_ij|) of the exact value (Higham 3.1, 3.5); rounding that to bf16 adds
  -- at most 2^-8 of it: |got - exact| <= E (1 + 2^-8) + 2^-8 |exact|. A
  -- dropped k-slice of 16 moves an element by about sqrt(16 / 9) = 1.3
  -- (uniform inputs), a k-tile read twice by 2.7: far past the bound at the
  -- fault shapes (K = 1000: E ~ 0.03, output rounding ~ 0.05). fp16 read as
  -- bf16 is wrong in every element (see tests/test_gemm_bf16_reference.c).
  verify = "bound",
  -- What the bound cannot see (C truncated rather than rounded, a relative
  -- error of one ulp): the reference writes the expected error of an honest
  -- evaluation per element (the fp32 sum's, rounding or truncating, and C's
  -- rounding to bf16, which dominates); errors in those units must stay
  -- within an RMS of 1.3 and a maximum of 6 (tests/test_accuracy.c: honest
  -- orders at every tuned K stay under 1.0 and 1.8, C truncated is at 1.6
  -- to 2.0).
  accuracy = { precision = "bf16 inputs, fp32 sums, C rounded to nearest", rms = 1.3, max = 6 },
  cost = function(s)
    return { bytes = 2 * (s.M * s.K + s.K * s.N + 2 * s.M * s.N), mma = s.M * s.N * s.K }
  end,
  -- bench times cuBLAS (cublasGemmEx, bf16 in and out, fp32 compute) beside it
  host_baselines = { { "cuBLAS bf16 GemmEx", source = "gemm_bf16/cublas_baseline.cu", libs = { "cublas" } } },
  -- A row-major with B in both layouts at seven shapes; A column-major at one
  tune = {
    { M = 4096, N = 4096, K = 4096 },
    { M = 8192, N = 8192, K = 8192 },
    { M = 2048, N = 2048, K = 2048 },
    { M = 1024, N = 1024, K = 1024 },
    { M = 16384, N = 128, K = 4096 },
    { M = 4096, N = 4096, K = 256 },
    { M = 256, N = 256, K = 16384 },
    { M = 4096, N = 4096, K = 4096, transb = 1 },
    { M = 8192, N = 8192, K = 8192, transb = 1 },
    { M = 2048, N = 2048, K = 2048, transb = 1 },
    { M = 1024, N = 1024, K = 1024, transb = 1 },
    { M = 16384, N = 128, K = 4096, transb = 1 },
    { M = 4096, N = 4096, K = 256, transb = 1 },
    { M = 256, N = 256, K = 16384, transb = 1 },
    { M = 4096, N = 4096, K = 4096, transa = 1 },
    { M = 4096, N = 4096, K = 4096, transa = 1, transb = 1 },
  },
  -- The calls the header serves with a tuned variant (templates/gemm_bf16/
  -- host.cuh: leading dimensions multiples of 8, 16-byte aligned pointers,
  -- K >= 1), in the tuned tuple's layout, that the tuned sizes are not:
  -- partial tiles in M, N and K with padded rows, sizes of 1, offset
  -- pointers, and the tuned K with a padded leading dimension (a kernel
  -- assuming lda == K verified at every tuned shape). Untimed.
  checks = function(s)
    local function at(t)
      t.transa, t.transb = s.transa, s.transb
      t.lda, t.ldb = up8(a_cols(t)) + t.lda, up8(b_cols(t)) + t.ldb  -- padding past the stored row
      return t
    end
    return {
      at { M = 129, N = 257, K = 65, lda = 0, ldb = 0, ldc = 264 },
      { transa = s.transa, transb = s.transb, M = 1, N = 1, K = 1, lda = 8, ldb = 8, ldc = 8 },
      at { M = 383, N = 200, K = 1000, lda = 32, ldb = 8, ldc = 216, offsets = { A = 8, B = 8, C = 8 } },
      at { M = 200, N = 136, K = s.K, lda = 8, ldb = 8, ldc = 136 },
    }
  end,
}
