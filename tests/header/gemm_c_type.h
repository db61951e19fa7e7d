// What the gemm_bf16 header tests take from the header they test: its name,
// its entry points, C's element type and the result's rounding (ldexp's
// exponent), and whether its problem's tune list holds A column-major (transa
// = 1): gemm_bf16 (C bf16), or with GEMM_F32C gemm_bf16_f32c (C fp32, tuned
// with A row-major only: gen/problems/gemm_bf16_f32c.lua).
#pragma once
#include <cuda_bf16.h>
#ifdef GEMM_F32C
#define GEMM_HEADER "gemm_bf16_f32c.cuh"
#define GEMM_FN(suffix) bartune_gemm_bf16_f32c##suffix
#define GEMM_C_ROUNDING (-24)
#define GEMM_TUNED_TRANSA1 0
typedef float gemm_c;
#else
#define GEMM_HEADER "gemm_bf16.cuh"
#define GEMM_FN(suffix) bartune_gemm_bf16##suffix
#define GEMM_C_ROUNDING (-8)
#define GEMM_TUNED_TRANSA1 1
typedef __nv_bfloat16 gemm_c;
#endif
