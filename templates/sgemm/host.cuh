// The header's entry for an sgemm variant (bartune emit). Its kernels take
// any leading dimension and alignment (the check sizes verify odd ones and
// unaligned pointers), so the tuned kernel takes every valid call. BLAS's
// conventions: M or N = 0 is a no-op, K = 0 scales C by beta; a null matrix
// a non-empty call reads or writes, a leading dimension below its row, or a
// size within 4096 of INT_MAX, is cudaErrorInvalidValue.
// The kernels' tile arithmetic is 32-bit: a size within a few tiles of
// INT_MAX would wrap it (no k-tiles at all, or a last tile taken for a
// whole one), so such calls are refused rather than computed wrong.
constexpr int kMaxSize = 2147483647 - 4096;
inline bool shape_ok(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                     const float* C, int ldc) {
    if (M < 0 || N < 0 || K < 0 || lda < K || ldb < N || ldc < N) return false;
    if (M > kMaxSize || N > kMaxSize || K > kMaxSize) return false;
    return M == 0 || N == 0 || (C && (K == 0 || (A && B)));
}

inline const char* fallback_reason(int M, int N, int K, float alpha, const float* A, int lda,
                                   const float* B, int ldb, float beta, float* C, int ldc) {
    (void)alpha;
    (void)beta;
    if (!shape_ok(M, N, K, A, lda, B, ldb, C, ldc))
        return "an invalid call (a negative size, one above 2^31 - 4097, a leading dimension "
               "below its row, a null matrix): cudaErrorInvalidValue";
    return nullptr;
}

// A grid has at most 65535 blocks along y, where the kernels put their
// tiles' rows: a call of more rows than that many tiles hold runs as
// launches of kRowsPerLaunch rows each, A's and C's pointers moved to them
// (each element's sum is the same as in one launch).
constexpr long long kRowsPerLaunch = 65535LL * kBM;
inline cudaError_t run(int M, int N, int K, float alpha, const float* A, int lda, const float* B,
                       int ldb, float beta, float* C, int ldc, cudaStream_t stream) {
    if (!shape_ok(M, N, K, A, lda, B, ldb, C, ldc)) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    for (long long m0 = 0; m0 < M; m0 += kRowsPerLaunch) {
        const int rows = (int)(M - m0 < kRowsPerLaunch ? M - m0 : kRowsPerLaunch);
        const float* a = A ? A + m0 * lda : A;  // null where K = 0
        const cudaError_t e = launch_kernel(rows, N, K, alpha, a, lda, B, ldb, beta, C + m0 * ldc, ldc, stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
