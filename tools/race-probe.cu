// Does compute-sanitizer's racecheck model bar.arrive? Four kernels of two
// warps share a ring of shared-memory stages; run each under racecheck
// (tools/race-probe.sh). Correct by the PTX memory model: `sync` (both
// groups bar.sync), `arrive` (the skeleton's ring: the signalling group
// bar.arrive, the waiting group bar.sync), `mbarrier` (the same ring on
// mbarriers). Racy on purpose: `none` (no barrier at all, a control that
// racecheck must flag).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

constexpr int kStages = 2, kRounds = 8, kThreads = 64;

__device__ __forceinline__ void bar_sync(int id) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mb_init(unsigned long long* b, int n) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mb_arrive(unsigned long long* b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mb_wait(unsigned long long* b, unsigned phase) {
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 " @!p bra W;\n}" ::"r"(smem_u32(b)), "r"(phase) : "memory");
}

// mode 0 none, 1 sync, 2 arrive, 3 mbarrier; warp 0 produces, warp 1 consumes
__global__ void ring(int mode, float* out) {
    __shared__ float tile[kStages][32];
    __shared__ unsigned long long full[kStages], empty[kStages];
    const int lane = threadIdx.x % 32;
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) mb_init(&full[s], 32), mb_init(&empty[s], 32);
    __syncthreads();
    float acc = 0.f;
    for (int j = 0; j < kRounds; ++j) {
        const int s = j % kStages;
        const unsigned phase = (j / kStages) & 1;
        if (threadIdx.x < 32) {
            if (j >= kStages) {
                if (mode == 1 || mode == 2) bar_sync(1 + kStages + s);
                if (mode == 3) mb_wait(&empty[s], phase ^ 1u);
            }
            tile[s][(lane + j) % 32] = float(j * 32 + lane);
            if (mode == 1) bar_sync(1 + s);
            if (mode == 2) bar_arrive(1 + s);
            if (mode == 3) mb_arrive(&full[s]);
        } else {
            if (mode == 1 || mode == 2) bar_sync(1 + s);
            if (mode == 3) mb_wait(&full[s], phase);
            acc += tile[s][lane];
            if (j + kStages < kRounds) {
                if (mode == 1) bar_sync(1 + kStages + s);
                if (mode == 2) bar_arrive(1 + kStages + s);
                if (mode == 3) mb_arrive(&empty[s]);
            }
        }
    }
    if (threadIdx.x >= 32) out[lane] = acc;
}

int main(int argc, char** argv) {
    const char* names[] = {"none", "sync", "arrive", "mbarrier"};
    int mode = -1;
    for (int m = 0; m < 4; ++m)
        if (argc > 1 && !strcmp(argv[1], names[m])) mode = m;
    if (mode < 0) {
        fprintf(stderr, "usage: race-probe none|sync|arrive|mbarrier\n");
        return 2;
    }
    float* out;
    if (cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess) return 77;
    ring<<<1, kThreads>>>(mode, out);
    float h[32];
    cudaError_t e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stderr, "race-probe %s: %s\n", names[mode], cudaGetErrorString(e));
        return 1;
    }
    float want = 0.f;  // lane 0's sum over rounds of the element written for it
    for (int j = 0; j < kRounds; ++j) want += float(j * 32 + (32 - j % 32) % 32);
    printf("race-probe %s: out[0] = %g (%g expected)\n", names[mode], h[0], want);
    return 0;
}
