// Raw mbarrier (PTX, sm_80+). One-sided counts: full[s] expects
// kFullCount producer arrivals, empty[s] kEmptyCount consumer arrivals
// (one per thread, or one per warp). Waiters spin on try_wait.parity with
// the phase bit of the stage's current round.
constexpr int kFullCount = $(full_count);
constexpr int kEmptyCount = $(empty_count);
static_assert(2 * kStages * 8 <= kBarArea, "barriers fit their area");
__device__ __forceinline__ uint32_t full_bar(unsigned char* smem, int s) {
    return smem_addr(smem + 8 * s);
}
__device__ __forceinline__ uint32_t empty_bar(unsigned char* smem, int s) {
    return smem_addr(smem + 8 * (kStages + s));
}
__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// try_wait (sm_90) suspends the thread for a while inside the instruction;
// sm_80 has only the non-blocking test_wait.
#if __CUDA_ARCH__ >= 900
#define BARTUNE_MBAR_WAIT "mbarrier.try_wait.parity.shared::cta.b64"
#else
#define BARTUNE_MBAR_WAIT "mbarrier.test_wait.parity.shared::cta.b64"
#endif
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     BARTUNE_MBAR_WAIT " p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
__device__ __forceinline__ void sync_init(unsigned char* smem) {
    for (int s = 0; s < kStages; ++s) {
        mbar_init(full_bar(smem, s), kFullCount);
        mbar_init(empty_bar(smem, s), kEmptyCount);
    }
}
__device__ __forceinline__ void producer_acquire(unsigned char* smem, int s, uint32_t parity) {
    mbar_wait(empty_bar(smem, s), parity);
}
__device__ __forceinline__ void producer_commit(unsigned char* smem, int s) {
    mbar_arrive(full_bar(smem, s));
}
__device__ __forceinline__ void consumer_wait(unsigned char* smem, int s, uint32_t parity) {
    mbar_wait(full_bar(smem, s), parity);
}
__device__ __forceinline__ void consumer_release(unsigned char* smem, int s) {
//% if release == "warp" then
    __syncwarp();  // the warp's reads of the stage are done before lane 0 arrives
    if ((threadIdx.x & 31) == 0) mbar_arrive(empty_bar(smem, s));
//% else
    mbar_arrive(empty_bar(smem, s));
//% end
}
