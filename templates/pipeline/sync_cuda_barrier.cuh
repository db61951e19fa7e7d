// libcu++ cuda::barrier, the seed's split arrive/wait: full[s] ("filled")
// and empty[s] ("ready") per stage, every thread of the block counted on
// both. A group that only signals arrives and drops the token.
using block_barrier = cuda::barrier<cuda::thread_scope_block>;
static_assert(2 * kStages * sizeof(block_barrier) <= kBarArea, "barriers fit their area");
__device__ __forceinline__ block_barrier& full_bar(unsigned char* smem, int s) {
    return reinterpret_cast<block_barrier*>(smem)[s];
}
__device__ __forceinline__ block_barrier& empty_bar(unsigned char* smem, int s) {
    return reinterpret_cast<block_barrier*>(smem)[kStages + s];
}
__device__ __forceinline__ void sync_init(unsigned char* smem) {
    for (int s = 0; s < kStages; ++s) {
        init(&full_bar(smem, s), kThreads);
        init(&empty_bar(smem, s), kThreads);
    }
}
__device__ __forceinline__ void producer_acquire(unsigned char* smem, int s, uint32_t) {
    empty_bar(smem, s).arrive_and_wait();
}
__device__ __forceinline__ void producer_commit(unsigned char* smem, int s) {
    (void)full_bar(smem, s).arrive();
}
__device__ __forceinline__ void consumer_wait(unsigned char* smem, int s, uint32_t) {
    full_bar(smem, s).arrive_and_wait();
}
__device__ __forceinline__ void consumer_release(unsigned char* smem, int s) {
    (void)empty_bar(smem, s).arrive();
}
