// bartune template of skeleton (written by bartune new; yours to change).
// The contract of a template (README, "Your own problem and space"): all of
// its code inside namespace <ns>, so that a header holds several variants;
// the kernel declared as <kernel_linkage> __global__ void <kernel_name>(...)
// with the problem's args in order (each <name> written as a dollar sign and
// the name in parentheses pastes its value, as below); //% lines are Lua.
// The protocol (templates/pipeline/sync_<barrier>.cuh) needs kStages,
// kThreads, kBarArea and smem_addr() defined first, and gives sync_init,
// producer_acquire/commit, consumer_wait/release.
// Variant: $(describe)
#include <cstdint>
#include <cuda_runtime.h>
//% if barrier == "cuda_barrier" then
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
//% end

namespace $(ns) {

constexpr int kStages = $(stages), kTile = $(tile);
constexpr int kProducerThreads = 32 * $(producer_warps), kConsumerThreads = 32 * $(consumer_warps);
constexpr int kThreads = kProducerThreads + kConsumerThreads;
constexpr int kBarArea = $(bar_area);  // bytes of barrier objects before the stages

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)
//% include("pipeline/sync_" .. barrier .. ".cuh")
#endif

// Block b takes tiles b, b + gridDim.x, ...; tile j of the block goes
// through stage j % kStages in round j / kStages. The first kStages fills
// need no acquire and the last kStages drains no release, so both groups
// arrive on every barrier the same number of times.
$(kernel_linkage) __global__ void __launch_bounds__(kThreads)
$(kernel_name)(const float* __restrict__ x, float* __restrict__ y, float a, float b, size_t n) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)
    extern __shared__ __align__(16) unsigned char smem[];
    float* tiles = reinterpret_cast<float*>(smem + kBarArea);
    const unsigned long long ntiles = (n + kTile - 1) / kTile;
    const long long mine = blockIdx.x < ntiles ? (long long)((ntiles - 1 - blockIdx.x) / gridDim.x + 1) : 0;
    if (threadIdx.x == 0) sync_init(smem);
    __syncthreads();  // no thread touches a barrier before init
    if (threadIdx.x < kProducerThreads) {
        for (long long j = 0; j < mine; ++j) {
            const int s = (int)(j % kStages);
            const uint32_t phase = (uint32_t)((j / kStages) & 1);
            if (j >= kStages) producer_acquire(smem, s, phase ^ 1u);
            const unsigned long long base = (blockIdx.x + j * (unsigned long long)gridDim.x) * kTile;
            for (int i = threadIdx.x; i < kTile; i += kProducerThreads)
                tiles[s * kTile + i] = base + i < n ? x[base + i] : 0.f;
            producer_commit(smem, s);
        }
    } else {
        const int t = threadIdx.x - kProducerThreads;
        for (long long j = 0; j < mine; ++j) {
            const int s = (int)(j % kStages);
            const uint32_t phase = (uint32_t)((j / kStages) & 1);
            consumer_wait(smem, s, phase);
            const unsigned long long base = (blockIdx.x + j * (unsigned long long)gridDim.x) * kTile;
            for (int i = t; i < kTile; i += kConsumerThreads)  // your work goes here
                if (base + i < n) y[base + i] = fmaf(a, tiles[s * kTile + i], b);
            if (j + kStages < mine) consumer_release(smem, s);
        }
    }
#else
    __trap();  // below the barrier's architecture: the header never launches this
#endif
}

}  // namespace $(ns)
