// The plain kernel: fp32 FMAs on CUDA cores, any GPU, any leading
// dimension, alignment and layout (transa, transb: A, B stored
// transposed, as problems/gemm_bf16.lua says). A 64 x 64 tile of C per block of 256 threads,
// each thread a 4 x 4 sub-tile; k-tiles of 16 staged as floats.
//% local c_f32 = ctype.C == "float"  -- C in fp32 (problems/gemm_bf16_f32c.lua): no conversion
constexpr int kSimtThreads = 256, kSimtTile = 64, kSimtK = 16;

__device__ __forceinline__ void simt_gemm(int transa, int transb, int M, int N, int K, float alpha,
                                          const __nv_bfloat16* __restrict__ A, int lda,
                                          const __nv_bfloat16* __restrict__ B, int ldb, float beta,
                                          $(ctype.C)* __restrict__ C, int ldc) {
    __shared__ float as[kSimtK][kSimtTile + 1], bs[kSimtK][kSimtTile];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const long long m0 = (long long)blockIdx.y * kSimtTile, n0 = (long long)blockIdx.x * kSimtTile;
    float acc[4][4] = {};
    // element strides of op(A) along i and k, of op(B) along k and j
    const long long a_i = transa ? 1 : lda, a_k = transa ? lda : 1;
    const long long b_k = transb ? 1 : ldb, b_j = transb ? ldb : 1;
    for (int k0 = 0; k0 < K; k0 += kSimtK) {
        for (int i = threadIdx.x; i < kSimtK * kSimtTile; i += kSimtThreads) {
            const int r = i / kSimtK, k = i % kSimtK;  // A: 64 rows x 16 k
            const long long gm = m0 + r, gk = k0 + k;
            as[k][r] = gm < M && gk < K ? __bfloat162float(A[gm * a_i + gk * a_k]) : 0.f;
            const int kb = i / kSimtTile, c = i % kSimtTile;  // B: 16 k x 64 columns
            const long long bk = k0 + kb, bn = n0 + c;
            bs[kb][c] = bk < K && bn < N ? __bfloat162float(B[bk * b_k + bn * b_j]) : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kSimtK; ++k)
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(as[k][ty * 4 + i], bs[k][tx * 4 + j], acc[i][j]);
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const long long r = m0 + ty * 4 + i, c = n0 + tx * 4 + j;
            if (r >= M || c >= N) continue;
            float v = alpha * acc[i][j];
            if (beta != 0.f) v += beta * $(c_f32 and "" or "__bfloat162float")(C[r * ldc + c]);
            C[r * ldc + c] = $(c_f32 and "" or "__float2bfloat16_rn")(v);
        }
}
