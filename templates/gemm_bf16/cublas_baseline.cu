// cuBLAS bf16 GEMM as a host baseline of the gemm_bf16 problem (see
// templates/bartune_baseline.h): cublasGemmEx with bf16 A, B and C and
// CUBLAS_COMPUTE_32F. cuBLAS is column-major: the row-major C = alpha op(A)
// op(B) + beta C is the column-major C^T = alpha op(B)^T op(A)^T + beta C^T,
// i.e. GemmEx(N, M, K) with the operands swapped; a row-major operand is its
// column-major transpose, so transb = 0 is CUBLAS_OP_N on B, transb = 1
// (B stored N x K) CUBLAS_OP_T, and likewise transa on A.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "bartune_baseline.h"

#ifndef BARTUNE_GEMM_C_TYPE  // C's element type: cublas_baseline_f32c.cu says CUDA_R_32F
#define BARTUNE_GEMM_C_TYPE CUDA_R_16BF
#endif

static cublasHandle_t handle;  // made on the first call, kept for the runner's life

extern "C" int bartune_baseline(void* const* args, cudaStream_t stream, char* error, size_t error_len) {
    // args: transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc (problems/gemm_bf16.lua)
    const int transa = BARTUNE_BASELINE_ARG(args, 0, int), transb = BARTUNE_BASELINE_ARG(args, 1, int);
    const int M = BARTUNE_BASELINE_ARG(args, 2, int), N = BARTUNE_BASELINE_ARG(args, 3, int);
    const int K = BARTUNE_BASELINE_ARG(args, 4, int);
    const float alpha = BARTUNE_BASELINE_ARG(args, 5, float), beta = BARTUNE_BASELINE_ARG(args, 10, float);
    const void* A = BARTUNE_BASELINE_ARG(args, 6, void*);
    const void* B = BARTUNE_BASELINE_ARG(args, 8, void*);
    void* C = BARTUNE_BASELINE_ARG(args, 11, void*);
    const int lda = BARTUNE_BASELINE_ARG(args, 7, int), ldb = BARTUNE_BASELINE_ARG(args, 9, int);
    const int ldc = BARTUNE_BASELINE_ARG(args, 12, int);
    const cublasOperation_t op_a = transa ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    if (!handle) st = cublasCreate(&handle);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasGemmEx(handle, op_b, op_a, N, M, K, &alpha, B, CUDA_R_16BF, ldb, A,
                          CUDA_R_16BF, lda, &beta, C, BARTUNE_GEMM_C_TYPE, ldc, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(error, error_len, "cuBLAS: %s", cublasGetStatusString(st));
        return 1;
    }
    return 0;
}
