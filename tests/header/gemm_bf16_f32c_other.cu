// The second translation unit of the gemm_bf16_f32c header test.
#define GEMM_F32C 1
#include "gemm_bf16_other.cu"
