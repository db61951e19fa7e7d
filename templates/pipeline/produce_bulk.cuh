// Bulk copy (sm_90): one elected producer thread moves the whole tile with
// cp.async.bulk, completing on full[s] through its byte transaction count
// (expect_tx). The last tile's few floats past a 16-byte multiple are stored
// by that thread before it arrives.
__device__ __forceinline__ bool producer_active(int ptid) { return ptid == 0; }
__device__ __forceinline__ void produce(const float* __restrict__ in, float* dst, long long tile,
                                        unsigned long long n, int ptid, unsigned char* smem,
                                        int s) {
    (void)ptid;
    const unsigned long long base = (unsigned long long)tile * kTile;
    const unsigned long long left = n - base;
    const uint32_t elems = left < (unsigned long long)kTile ? (uint32_t)left : (uint32_t)kTile;
    const uint32_t bulk = (elems * 4u) & ~15u;  // bulk copies move multiples of 16 bytes
    for (uint32_t e = bulk / 4; e < elems; ++e) dst[e] = in[base + e];
    const uint32_t bar = full_bar(smem, s);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bulk)
                 : "memory");
    if (bulk)
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                     "l"(in + base), "r"(bulk), "r"(bar)
                     : "memory");
}
