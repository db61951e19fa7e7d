// The header's entry for this variant (bartune emit): the tuned kernel
// where the call is of the class the check sizes verified it for
// (gen/problems/gemm_bf16.lua) and the binary holds its sm_90a code (the
// dispatcher's usable()); otherwise the simt kernel, which takes any leading
// dimension and layout. BLAS's conventions: M or N = 0 is a no-op, K = 0
// or alpha = 0 scales C by beta (the plain kernel, A and B not read); a
// layout other than 0 or 1, a null matrix a non-empty call reads or writes,
// a leading dimension below its stored row, or a size within 4096 of
// INT_MAX, is cudaErrorInvalidValue.
// The kernels' tile arithmetic is 32-bit: a size within a few tiles of
// INT_MAX would wrap it (no k-tiles at all, or a last tile taken for a
// whole one), so such calls are refused rather than computed wrong.
constexpr int kMaxSize = 2147483647 - 4096;
inline bool shape_ok(int transa, int transb, int M, int N, int K, const void* A, int lda,
                     const void* B, int ldb, const void* C, int ldc) {
    if (transa < 0 || transa > 1 || transb < 0 || transb > 1) return false;
    if (M > kMaxSize || N > kMaxSize || K > kMaxSize) return false;
    if (M < 0 || N < 0 || K < 0 || lda < (transa ? M : K) || ldb < (transb ? K : N) || ldc < N)
        return false;
    const bool empty = M == 0 || N == 0;
    return empty || (C && (K == 0 || (A && B)));
}
// The simt kernel's grid has a block per 64 x 64 tile of C, its rows along
// y, where a grid has at most 65535 blocks: a call of more rows runs as
// launches of kSimtRows rows each, A's and C's pointers moved to them (A's
// columns where it is stored K x M; each element's sum is as in one launch).
constexpr long long kSimtRows = 65535LL * kSimtTile;
template <typename Launch>
inline cudaError_t by_rows(int transa, int M, const __nv_bfloat16* A, int lda, $(ctype.C)* C, int ldc,
                           Launch launch) {
    for (long long m0 = 0; m0 < M; m0 += kSimtRows) {
        const int rows = (int)(M - m0 < kSimtRows ? M - m0 : kSimtRows);
        const __nv_bfloat16* a = A ? A + (transa ? m0 : m0 * lda) : A;  // null where K = 0
        const cudaError_t e = launch(rows, a, C + m0 * ldc);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
//% if kind == "wgmma" then
static __global__ void __launch_bounds__(kSimtThreads)
fallback_kernel(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* __restrict__ A, int lda,
                const __nv_bfloat16* __restrict__ B, int ldb, float beta,
                $(ctype.C)* __restrict__ C, int ldc) {
    simt_gemm(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// Why run() takes the simt kernel for this call rather than the tuned one
// (nullptr: it does not): the class of calls the check sizes cover.
inline const char* fallback_reason(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A,
                                   int lda, const __nv_bfloat16* B, int ldb, float beta,
                                   $(ctype.C)* C, int ldc) {
    (void)alpha;
    (void)beta;
    if (!shape_ok(transa, transb, M, N, K, A, lda, B, ldb, C, ldc))
        return "an invalid call (a negative size, one above 2^31 - 4097, a layout other than 0 "
               "or 1, a leading dimension below its stored row, a null matrix): cudaErrorInvalidValue";
    if (M == 0 || N == 0) return "an empty C: nothing to do";
    if (K == 0 || alpha == 0.f) return "K = 0 or alpha = 0: C = beta C by the plain kernel, A and B not read (BLAS)";
    if (lda % 8 || ldb % 8 || ldc % 8)
        return "a leading dimension that is not a multiple of 8: the plain kernel";
    if (reinterpret_cast<uintptr_t>(A) % 16 || reinterpret_cast<uintptr_t>(B) % 16 ||
        reinterpret_cast<uintptr_t>(C) % 16)
        return "a matrix not 16-byte aligned: the plain kernel";
    return nullptr;
}

inline cudaError_t run(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A, int lda,
                       const __nv_bfloat16* B, int ldb, float beta, $(ctype.C)* C, int ldc,
                       cudaStream_t stream) {
    if (!shape_ok(transa, transb, M, N, K, A, lda, B, ldb, C, ldc)) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    if (!fallback_reason(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc))
        return launch_kernel(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    if (alpha == 0.f) K = 0;  // BLAS: A and B not read (a NaN there never reaches C)
    return by_rows(transa, M, A, lda, C, ldc, [&](int rows, const __nv_bfloat16* a, $(ctype.C)* c) {
        const dim3 grid((unsigned)((N + kSimtTile - 1) / kSimtTile), (unsigned)((rows + kSimtTile - 1) / kSimtTile));
        void* args[] = {&transa, &transb, &rows, &N, &K, &alpha, &a, &lda, &B, &ldb, &beta, &c, &ldc};
        // the launch's own error (an error the caller left pending stays theirs)
        return cudaLaunchKernel((const void*)fallback_kernel, grid, dim3(kSimtThreads), args, 0, stream);
    });
}
//% else
inline const char* fallback_reason(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A,
                                   int lda, const __nv_bfloat16* B, int ldb, float beta,
                                   $(ctype.C)* C, int ldc) {
    (void)alpha;
    (void)beta;
    if (!shape_ok(transa, transb, M, N, K, A, lda, B, ldb, C, ldc)) return "an invalid call: cudaErrorInvalidValue";
    return nullptr;
}

inline cudaError_t run(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A, int lda,
                       const __nv_bfloat16* B, int ldb, float beta, $(ctype.C)* C, int ldc,
                       cudaStream_t stream) {
    if (!shape_ok(transa, transb, M, N, K, A, lda, B, ldb, C, ldc)) return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    if (alpha == 0.f) K = 0;  // BLAS: A and B not read (a NaN there never reaches C)
    return by_rows(transa, M, A, lda, C, ldc, [&](int rows, const __nv_bfloat16* a, $(ctype.C)* c) {
        return launch_kernel(transa, transb, rows, N, K, alpha, a, lda, B, ldb, beta, c, ldc, stream);
    });
}
//% end
