// Named barriers (bar.sync / bar.arrive; id 0 belongs to __syncthreads).
// full[s] is id 1+s, empty[s] id 1+kStages+s; each counts all kThreads: the
// signalling group arrives without waiting, the waiting group syncs.
__device__ __forceinline__ void bar_sync(int id) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
__device__ __forceinline__ void sync_init(unsigned char*) {}
__device__ __forceinline__ void producer_acquire(unsigned char*, int s, uint32_t) {
    bar_sync(1 + kStages + s);
}
__device__ __forceinline__ void producer_commit(unsigned char*, int s) { bar_arrive(1 + s); }
__device__ __forceinline__ void consumer_wait(unsigned char*, int s, uint32_t) { bar_sync(1 + s); }
__device__ __forceinline__ void consumer_release(unsigned char*, int s) {
    bar_arrive(1 + kStages + s);
}
