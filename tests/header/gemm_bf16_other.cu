// The second translation unit of the gemm_bf16 header test: the same header
// (gemm_bf16_f32c's with GEMM_F32C: gemm_bf16_f32c_other.cu).
#include "gemm_c_type.h"
#include GEMM_HEADER

cudaError_t other_unit_gemm(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A,
                            int lda, const __nv_bfloat16* B, int ldb, float beta, gemm_c* C, int ldc,
                            cudaStream_t s) {
    return GEMM_FN()(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, s);
}
