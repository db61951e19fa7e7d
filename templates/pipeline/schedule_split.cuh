// Split schedule (programming guide 7.26.5, CUTLASS's pipeline): producers
// and consumers loop in separate branches over a ring of kStages stages.
// Producers wait only for empty[s], consumers only for full[s]. The first
// kStages fills need no wait and the last kStages drains no release, so the
// two groups arrive the same number of times on every barrier.
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n, unsigned char* smem,
                                             float* tiles, long long mine) {
    const int tid = threadIdx.x;
    if (tid == 0) sync_init(smem);
    __syncthreads();  // no thread may touch a barrier before init
    if (tid < kProducerThreads) {
        if (!producer_active(tid)) return;
        for (long long j = 0; j < mine; ++j) {
            const int s = (int)(j % kStages);
            const uint32_t phase = (uint32_t)((j / kStages) & 1);
            if (j >= kStages) producer_acquire(smem, s, phase ^ 1u);
            produce(in, tiles + s * kTile, blockIdx.x + j * gridDim.x, n, tid, smem, s);
        }
    } else {
        const int ctid = tid - kProducerThreads;
        for (long long j = 0; j < mine; ++j) {
            const int s = (int)(j % kStages);
            const uint32_t phase = (uint32_t)((j / kStages) & 1);
            consumer_wait(smem, s, phase);
            consume(tiles + s * kTile, out, blockIdx.x + j * gridDim.x, n, ctid);
            if (j + kStages < mine) consumer_release(smem, s);
        }
    }
}
