// The kernel's body under tail: whole tiles and slices on paths of their own.
__device__ __forceinline__ void run_tail(int M, int N, int K, float alpha, const float* A, int lda,
                                         const float* B, int ldb, float beta, float* C, int ldc,
                                         float* scratch, unsigned char* smem) {
    const TailSplit ts = tail_split(M, N);
    const int b = (int)blockIdx.x;
    if (b < ts.whole) {
        run_schedule(make_gemm_tail(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, -1, b), smem);
        return;
    }
    tail_scratch = scratch;  // every thread writes the same address
    run_schedule(make_gemm_tail(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, (b - ts.whole) % kTail,
                                ts.whole + (b - ts.whole) / kTail),
                 smem);
}
