// The second translation unit of the gemm_bf16 header test: the same header.
#include "gemm_bf16.cuh"

cudaError_t other_unit_gemm_bf16(int transa, int transb, int M, int N, int K, float alpha,
                                 const __nv_bfloat16* A, int lda, const __nv_bfloat16* B, int ldb,
                                 float beta, __nv_bfloat16* C, int ldc, cudaStream_t s) {
    return bartune_gemm_bf16(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, s);
}
