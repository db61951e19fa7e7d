// bartune template: the seed's producer/consumer pipeline.
// out[i] = f^64(in[i]), f(v) = fmaf(v, 0.999f, 0.0013f).
// Producer warps stage tiles of `in` in a ring of shared-memory stages;
// consumer warps run the FMA chain and write `out`. What holds the two
// groups together is the barrier kind; how tiles arrive is the producer kind.
// barrier = "none" is the plain kernel: no shared memory, no producers.
// Variant: $(describe)
#include <cstdint>
#include <cuda_runtime.h>
//% if barrier == "cuda_barrier" then
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
//% end
//% local staged = barrier ~= "none"

namespace $(ns) {

constexpr int kConsumerThreads = $(consumer_warps) * 32;
constexpr int kCvec = $(cvec);          // floats per consumer step (independent chains)
constexpr int kSmemBytes = $(smem_bytes);
constexpr int kMinArch = $(min_cc);     // the kernel needs compute capability >= this
static_assert(kMinArch >= 70, "barrier kinds start at compute capability 7.0");
//% if staged then
constexpr int kProducerThreads = $(producer_warps) * 32;
constexpr int kStages = $(stages);
constexpr int kTile = $(tile);          // floats per stage
constexpr int kVec = $(vec);            // floats per producer access
constexpr int kBarArea = $(bar_area);   // bytes of barrier objects before the tiles
static_assert(kSmemBytes == kBarArea + kStages * kTile * 4, "space and template disagree on shared memory");
static_assert(kTile % (kProducerThreads * kVec) == 0, "producers cover a tile in whole steps");
static_assert(kTile % kCvec == 0, "consumers cover a tile in whole steps");
//% else
constexpr int kProducerThreads = 0;     // every thread computes
static_assert(kSmemBytes == 0, "the plain kernel has no shared memory");
//% end
constexpr int kThreads = kProducerThreads + kConsumerThreads;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

//% include("pipeline/vec.cuh")
//% if staged then
//% include("pipeline/sync_" .. barrier .. ".cuh")
//% include("pipeline/produce_" .. producer .. ".cuh")

// Consumers: each thread runs kCvec independent chains per step.
__device__ __forceinline__ void consume(const float* src, float* __restrict__ out,
                                        long long tile, unsigned long long n, int ctid) {
    const unsigned long long base = (unsigned long long)tile * kTile;
    for (int k = ctid * kCvec; k < kTile; k += kConsumerThreads * kCvec) {
        float e[kCvec];
        load_smem<kCvec>(src + k, e);
#pragma unroll
        for (int i = 0; i < 64; ++i) {
#pragma unroll
            for (int u = 0; u < kCvec; ++u) e[u] = fmaf(e[u], 0.999f, 0.0013f);
        }
        store_global<kCvec>(out, base + k, n, e);
    }
}

//% local schedule = barrier == "syncthreads" and "lockstep" or "split"
//% if form == "seed" then schedule = "seed_" .. schedule end
//% include("pipeline/schedule_" .. schedule .. ".cuh")
//% else
//% include("pipeline/schedule_elementwise.cuh")
//% end

#endif  // arch guard

$(kernel_linkage) __global__ void __launch_bounds__(kThreads)
$(kernel_name)(const float* __restrict__ in, float* __restrict__ out, unsigned long long n) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)
//% if staged then
    extern __shared__ __align__(128) unsigned char smem[];
    float* tiles = reinterpret_cast<float*>(smem + kBarArea);
    const long long ntiles = (long long)((n + kTile - 1) / kTile);
    // Tiles of this block: blockIdx.x, blockIdx.x + gridDim.x, ...
    const long long mine = blockIdx.x < ntiles ? (ntiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    run_schedule(in, out, n, smem, tiles, mine);
//% else
    run_schedule(in, out, n);
//% end
#else
    __trap();  // compiled for an architecture below kMinArch: the launcher never calls this
#endif
}

}  // namespace $(ns)
