// The kernel's body under tail: whole tiles and slices on paths of their own.
__device__ __forceinline__ void run_tail(int M, int N, int K, float alpha, const float* A, int lda,
                                         const float* B, int ldb, float beta, float* C, int ldc,
                                         float* scratch, unsigned char* smem) {
//% if loaders == "all" then
    const TailRows tr = tail_rows(M);
    if ((int)blockIdx.y < tr.whole) {  // make_gemm's tile: blockIdx
        run_schedule(make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), smem);
        return;
    }
    tail_scratch = scratch;  // every thread writes the same address
    const int j = (int)blockIdx.y - tr.whole;
    run_schedule(make_gemm_tail(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, j / tr.split,
                                (tr.whole + j % tr.split) * (int)gridDim.x + (int)blockIdx.x),
                 smem);
//% else
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
//% end
}
