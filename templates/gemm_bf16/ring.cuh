// The ring of kStages shared-memory stages between producers and consumers,
// the mbarrier protocol of pipeline/sync_mbarrier.cuh with transaction
// counts: full[s] completes when its kIssuers arrivals (each announcing its
// bytes) and the copies' bytes are in; empty[s] when every consumer warp
// reading the stage, in every CTA of the cluster whose producer fills it,
// has arrived. Iteration `it` uses stage it % kStages in round it /
// kStages: consumers wait for the round's parity, producers for the
// previous round's (a fresh barrier counts as past round 1, so the first
// round of producers does not wait). Shared memory, 1024-aligned: barriers
// in the first kilobyte, then the stages (A tile, then B tile).
__device__ __forceinline__ uint32_t full_bar(uint32_t base, int s) { return base + 8 * s; }
__device__ __forceinline__ uint32_t empty_bar(uint32_t base, int s) { return base + 8 * (kStages + s); }
__device__ __forceinline__ uint32_t order_bar(uint32_t base, int wg) { return base + 8 * (2 * kStages + wg); }
__device__ __forceinline__ uint32_t stage_a(uint32_t base, int s) { return base + 1024 + s * kStageBytes; }
__device__ __forceinline__ uint32_t stage_b(uint32_t base, int s) { return stage_a(base, s) + kABytes; }
// The tma epilogue: warpgroup wg's rows of C after the stages, and the
// barrier its old values complete on.
__device__ __forceinline__ uint32_t c_buf(uint32_t base, int wg) { return stage_a(base, kStages) + wg * kCBytes; }
__device__ __forceinline__ uint32_t c_bar(uint32_t base, int wg) { return base + 8 * (2 * kStages + 2 + wg); }
static_assert(8 * (2 * kStages + 4) <= 1024, "barriers fit the first kilobyte");

__device__ __forceinline__ void ring_init(uint32_t base) {
    for (int s = 0; s < kStages; ++s) {
        mbar_init(full_bar(base, s), kIssuers);
        mbar_init(empty_bar(base, s), kEmptyCount);
    }
    mbar_init(order_bar(base, 0), 4);
    mbar_init(order_bar(base, 1), 4);
    mbar_init(c_bar(base, 0), 1);
    mbar_init(c_bar(base, 1), 1);
}
__device__ __forceinline__ int stage_of(int it) { return it % kStages; }
__device__ __forceinline__ uint32_t round_of(int it) { return (uint32_t)(it / kStages) & 1u; }

__device__ __forceinline__ void producer_acquire(uint32_t base, int it) {
    mbar_wait(empty_bar(base, stage_of(it)), round_of(it) ^ 1u);
}
__device__ __forceinline__ void consumer_wait(uint32_t base, int it) {
    mbar_wait(full_bar(base, stage_of(it)), round_of(it));
}
// After the warp's wgmmas on the stage completed (wgmma_wait): lane 0 of
// each consumer warp frees it in every CTA whose producer writes into it.
__device__ __forceinline__ void consumer_release(uint32_t base, int it) {
    if ((threadIdx.x & 31) != 0) return;
    const uint32_t bar = empty_bar(base, stage_of(it));
//% if (cluster_n or 1) > 1 and split > 1 then
    // split-K with cluster_n: A comes from this K slice's CTAs along N
    const int slice = slice_of(cluster_rank());
#pragma unroll
    for (int j = 0; j < kClusterN; ++j) mbar_arrive_cluster(bar, (uint32_t)(slice + j * kSplit));
//% elseif (cluster_n or 1) > 1 then
    // cluster_n: A comes from the CTAs along N, B from those along M
#pragma unroll
    for (int c = 0; c < kClusterDims; ++c) mbar_arrive_cluster(bar, (uint32_t)c);
//% else
    if (kCluster == 1) {
        mbar_arrive(bar);
    } else {
#pragma unroll
        for (int c = 0; c < kCluster; ++c) mbar_arrive_cluster(bar, (uint32_t)c);
    }
//% end
}

// Ping-pong: warpgroup wg's main loop waits its turn; the other's hands it on.
__device__ __forceinline__ void order_wait(uint32_t base, int wg, uint32_t& phase) {
//% if order == "named" then
    (void)base;
    (void)phase;
    asm volatile("bar.sync %0, 256;" ::"r"(1 + wg) : "memory");  // ids 1, 2: 0 is __syncthreads
//% else
    mbar_wait(order_bar(base, wg), phase);
    phase ^= 1u;
//% end
}
__device__ __forceinline__ void order_pass(uint32_t base, int to) {
//% if order == "named" then
    (void)base;
    asm volatile("bar.arrive %0, 256;" ::"r"(1 + to) : "memory");
//% else
    if ((threadIdx.x & 31) == 0) mbar_arrive(order_bar(base, to));
//% end
}
