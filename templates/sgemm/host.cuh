// The header's entry for an sgemm variant (bartune emit). Its kernels take
// any leading dimension and alignment (the check sizes verify odd ones and
// unaligned pointers), so the tuned kernel takes every valid call with a
// product to add. BLAS's conventions: M or N = 0 is a no-op, K = 0 or alpha
// = 0 scales C by beta (a kernel of its own, A and B not read); a null
// matrix a non-empty call reads or writes, a leading dimension below its
// row, or a size within 4096 of INT_MAX, is cudaErrorInvalidValue.
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
    (void)beta;
    if (!shape_ok(M, N, K, A, lda, B, ldb, C, ldc))
        return "an invalid call (a negative size, one above 2^31 - 4097, a leading dimension "
               "below its row, a null matrix): cudaErrorInvalidValue";
    if (M == 0 || N == 0) return "an empty C: nothing to do";
    if (K == 0 || alpha == 0.0f) return "K = 0 or alpha = 0: C = beta C, A and B not read (BLAS)";
    return nullptr;
}

// BLAS's C = beta C where K = 0 or alpha = 0: A and B are not read (a NaN or
// an Inf there never reaches C through 0 x NaN), nor C where beta = 0.
static __global__ void scale_c(int M, int N, float beta, float* C, int ldc) {
    const long long n = (long long)M * N, step = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += step) {
        float* c = C + e / N * ldc + e % N;
        *c = beta != 0.0f ? beta * *c : 0.0f;
    }
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
    if (K == 0 || alpha == 0.0f) {
        const long long blocks = ((long long)M * N + 255) / 256;
        void* args[] = {&M, &N, &beta, &C, &ldc};
        // the launch's own error (an error the caller left pending stays theirs)
        return cudaLaunchKernel((const void*)scale_c, dim3((unsigned)(blocks < 65536 ? blocks : 65536)), dim3(256),
                                args, 0, stream);
    }
    for (long long m0 = 0; m0 < M; m0 += kRowsPerLaunch) {
        const int rows = (int)(M - m0 < kRowsPerLaunch ? M - m0 : kRowsPerLaunch);
        const cudaError_t e = launch_kernel(rows, N, K, alpha, A + m0 * lda, lda, B, ldb, beta, C + m0 * ldc, ldc, stream);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
