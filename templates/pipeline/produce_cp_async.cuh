// cp.async (sm_80+): producer threads issue asynchronous global->shared
// copies of kVec floats, zero-filled past n, with no registers in between.
constexpr int kPIters = kTile / (kProducerThreads * kVec);
__device__ __forceinline__ bool producer_active(int) { return true; }
__device__ __forceinline__ void produce(const float* __restrict__ in, float* dst, long long tile,
                                        unsigned long long n, int ptid, unsigned char* smem,
                                        int s) {
    const unsigned long long base = (unsigned long long)tile * kTile;
#pragma unroll
    for (int it = 0; it < kPIters; ++it) {
        const int k = (it * kProducerThreads + ptid) * kVec;
        const unsigned long long g = base + k;
        const uint32_t bytes = g + kVec <= n ? kVec * 4 : (g < n ? (uint32_t)(n - g) * 4 : 0);
        asm volatile("cp.async.$(vec == 4 and "cg" or "ca").shared.global [%0], [%1], %2, %3;"
                     ::"r"(smem_addr(dst + k)), "l"(bytes ? in + g : in), "n"(kVec * 4), "r"(bytes)
                     : "memory");
    }
//% if barrier == "mbarrier" then
    // Arrive on full[s] once this thread's copies have landed; noinc: the
    // arrival is one of the kFullCount the barrier was initialised with.
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(full_bar(smem, s))
                 : "memory");
//% else
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
    producer_commit(smem, s);
//% end
}
