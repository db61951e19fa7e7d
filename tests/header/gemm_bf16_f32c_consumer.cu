// The gemm_bf16 header test for kernels/gemm_bf16_f32c.cuh (C in fp32).
#define GEMM_F32C 1
#include "gemm_bf16_consumer.cu"
