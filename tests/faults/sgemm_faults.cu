// Fault variants of sgemm: bartune's own tile, loaders and compute
// (templates/sgemm/*.cuh), every warp loading through registers, with one
// fault switched in at a time.
// Variant: $(describe)
#include <cstdint>
#include <cuda_runtime.h>

namespace $(ns) {

//% include("sgemm/common.cuh")
//% include("sgemm/compute.cuh")
//% include("sgemm/load_regs.cuh")

__device__ __forceinline__ void run_faulty(Gemm g, unsigned char* smem) {
    const int tid = threadIdx.x;
    float acc[kTM][kTN] = {};
    Gemm loads = g;
//% if fault == "drop_k" then
    loads.K = g.K - 1;  // the last k reads as zero
//% elseif fault == "ignore_lda" then
    loads.lda = g.K;  // A taken as packed: every row past the first read from the wrong place
//% end
    Fetched f;
    for (int kt = 0; kt < g.ktiles; ++kt) {
//% if fault == "read_twice" then
        fetch(loads, kt == 1 ? 0 : kt, tid, f);
//% else
        fetch(loads, kt, tid, f);
//% end
        stash(f, a_stage(smem, 0), b_stage(smem, 0), tid);
        __syncthreads();
//% if fault == "tf32" then
        {  // every operand of the stage rounded to TF32 (10 mantissa bits, to nearest)
            float* s = reinterpret_cast<float*>(smem);
            for (int x = tid; x < $(smem_bytes // 4 // stages); x += kThreads) {
                const unsigned u = __float_as_uint(s[x]);
                s[x] = __uint_as_float((u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu);
            }
            __syncthreads();
        }
//% end
        compute_tile(a_stage(smem, 0), b_stage(smem, 0), tid, acc);
        __syncthreads();
    }
//% if fault == "skip_edge_col" then
    g.N -= 1;
//% elseif fault == "skip_edge_row" then
    g.M -= 1;
//% elseif fault == "alpha_once" then
    g.beta *= g.alpha;
//% elseif fault == "rel_1e4" then
    g.alpha *= 1.0001f;
    g.beta *= 1.0001f;
//% elseif fault == "fixed_scalars" then
    g.alpha = 1.25f;  // the tuned sizes' scalars, built in
    g.beta = -0.75f;
//% elseif fault == "fp16_range" then
    for (int i = 0; i < kTM; ++i)  // sums saturated where fp16 would overflow
        for (int j = 0; j < kTN; ++j) acc[i][j] = fminf(fmaxf(acc[i][j], -65504.f), 65504.f);
//% elseif fault == "small_m" then
    if (g.M < 64) return;  // right at every size the tune measures, wrong at M = 1
//% end
    finish_tile(g, smem, tid, acc);  // stores (under split-K: sums the slices first)
//% if fault == "padding_write" then
    if (tid == 0 && g.N < g.ldc && g.m0 < g.M) g.C[(long long)g.m0 * g.ldc + g.N] = 0.f;
//% end
}

//% if fault == "replay_c" then
__device__ float replay_c[1 << 20];  // C as the first launch left it (M x N)
__device__ unsigned replay_launches;
//% elseif fault == "replay_keyed" then
__device__ float keyed_c[1 << 20];  // C as the first launch left it (M x N)
__device__ float keyed_print[5];    // A[0], B[0], C[0], alpha, beta of that launch
__device__ unsigned keyed_blocks;
//% elseif fault == "late_damage" then
__device__ unsigned late_blocks;
//% end

$(kernel_linkage) __global__ void __launch_bounds__(kThreads)
$(kernel_name)(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
               const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc$((scratch_split or 1) > 1 and ", float* scratch" or "")) {
    extern __shared__ __align__(128) unsigned char smem[];
//% if fault == "replay_c" then
    // The first launch computes and keeps its tile of C; later ones copy it
    // back: C's old values and A and B are the same at every launch, so it
    // verifies unless a launch sees new ones.
    __shared__ unsigned seen;
    if (threadIdx.x == 0) seen = atomicAdd(&replay_launches, 1);
    __syncthreads();
    const bool first = seen < gridDim.x * gridDim.y;
    if (first) run_faulty(make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), smem);
    __syncthreads();
    for (int e = threadIdx.x; e < kBM * kBN; e += blockDim.x) {
        const int r = blockIdx.y * kBM + e / kBN, col = blockIdx.x * kBN + e % kBN;
        if (r >= M || col >= N) continue;
        float* c = C + (long long)r * ldc + col;
        if (first)
            replay_c[r * N + col] = *c;
        else
            *c = replay_c[r * N + col];
    }
//% elseif fault == "replay_keyed" then
    // Replays the first launch's C when a few input values say the inputs
    // are the same (the launch on all-new inputs recomputes; the one on
    // inputs changed at a few secret positions replays, and is wrong).
    __shared__ unsigned launch;
    if (threadIdx.x == 0) launch = atomicAdd(&keyed_blocks, 1) / (gridDim.x * gridDim.y);
    __syncthreads();
    const float print[5] = {A[0], B[0], C[0], alpha, beta};
    bool same = launch > 0;
    for (int i = 0; i < 5; ++i) same = same && keyed_print[i] == print[i];
    if (!same) run_faulty(make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), smem);
    __syncthreads();
    if (launch == 0 && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x < 5)
        keyed_print[threadIdx.x] = print[threadIdx.x];
    for (int e = threadIdx.x; (launch == 0 || same) && e < kBM * kBN; e += blockDim.x) {
        const int r = blockIdx.y * kBM + e / kBN, col = blockIdx.x * kBN + e % kBN;
        if (r >= M || col >= N || r * N + col >= (1 << 20)) continue;
        float* c = C + (long long)r * ldc + col;
        if (launch == 0)
            keyed_c[r * N + col] = *c;
        else
            *c = keyed_c[r * N + col];
    }
//% elseif fault == "late_damage" then
    // From the first timed launch on (the sixth), writes into A's padding,
    // which no output depends on: only hashing A after the timed launches
    // sees it.
    __shared__ unsigned launch;
    if (threadIdx.x == 0) launch = atomicAdd(&late_blocks, 1) / (gridDim.x * gridDim.y);
    __syncthreads();
    run_faulty(make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), smem);
    if (launch >= 5 && lda > K && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
        const_cast<float*>(A)[K] = 1.0f;
//% elseif (scratch_split or 1) > 1 then
    Gemm g = make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    g.scratch = scratch;
    run_faulty(g, smem);
//%   if fault == "scratch_past" then
    const long long tiles = (long long)gridDim.x * gridDim.y;  // the word after the slots
    if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0)
        scratch[(tiles + 63) / 64 * 64 + tiles * kSplit * kBM * kBN] = 1.0f;
//%   elseif fault == "scratch_before" then
    if (blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0) scratch[-1] = 1.0f;
//%   end
//% else
    run_faulty(make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc), smem);
//% end
}

}  // namespace $(ns)
