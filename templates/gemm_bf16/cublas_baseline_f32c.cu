// cuBLAS as the host baseline of gemm_bf16_f32c: cublasGemmEx with bf16 A
// and B, fp32 C and CUBLAS_COMPUTE_32F (cublas_baseline.cu, C's type apart).
#define BARTUNE_GEMM_C_TYPE CUDA_R_32F
#include "cublas_baseline.cu"
