// Producer threads copy through registers, kVec floats per access; a batch
// of loads is issued before its stores so several are in flight.
constexpr int kPIters = kTile / (kProducerThreads * kVec);
constexpr int kBatch = kPIters % 8 == 0 ? 8 : kPIters % 4 == 0 ? 4 : kPIters % 2 == 0 ? 2 : 1;
__device__ __forceinline__ bool producer_active(int) { return true; }
__device__ __forceinline__ void produce(const float* __restrict__ in, float* dst, long long tile,
                                        unsigned long long n, int ptid, unsigned char* smem,
                                        int s) {
    const unsigned long long base = (unsigned long long)tile * kTile;
#pragma unroll
    for (int b = 0; b < kPIters; b += kBatch) {
        float r[kBatch][kVec];
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
            load_global<kVec>(in, base + ((b + u) * kProducerThreads + ptid) * kVec, n, r[u]);
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
            store_smem<kVec>(dst + ((b + u) * kProducerThreads + ptid) * kVec, r[u]);
    }
    producer_commit(smem, s);
}
