// The second translation unit of the sgemm header test: the same header.
#include "sgemm.cuh"

cudaError_t other_unit_sgemm(int M, int N, int K, float alpha, const float* A, int lda,
                             const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t s) {
    return bartune_sgemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, s);
}
