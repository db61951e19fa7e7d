// What the gemm_bf16 header tests take from the header they test: its name,
// its entry points, C's element type and the result's rounding (ldexp's
// exponent): gemm_bf16 (C bf16), or with GEMM_F32C gemm_bf16_f32c (C fp32).
#pragma once
#include <cuda_bf16.h>
#ifdef GEMM_F32C
#define GEMM_HEADER "gemm_bf16_f32c.cuh"
#define GEMM_FN(suffix) bartune_gemm_bf16_f32c##suffix
#define GEMM_C_ROUNDING (-24)
typedef float gemm_c;
#else
#define GEMM_HEADER "gemm_bf16.cuh"
#define GEMM_FN(suffix) bartune_gemm_bf16##suffix
#define GEMM_C_ROUNDING (-8)
typedef __nv_bfloat16 gemm_c;
#endif
