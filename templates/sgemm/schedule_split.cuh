// Warp-specialised (the seed's split arrive/wait, CUTLASS's pipeline):
// producer warps fill a ring of kStages stages, consumer warps compute from
// it; producers wait only for empty[s], consumers only for full[s]. The
// first kStages fills need no wait and the last kStages drains no release,
// so both sides arrive the same number of times on every barrier.
__device__ __forceinline__ void run_schedule(const Gemm& g, unsigned char* smem) {
    const int tid = threadIdx.x;
    if (tid == 0) sync_init(smem);
    __syncthreads();  // no thread may touch a barrier before init
    float acc[kTM][kTN] = {};
    if (tid < kProducerThreads) {
        for (int kt = 0; kt < g.ktiles; ++kt) {
            const int s = kt % kStages;
            const uint32_t phase = (uint32_t)((kt / kStages) & 1);
            if (kt >= kStages) producer_acquire(smem, s, phase ^ 1u);
            produce(g, kt, tid, smem, s);
        }
        if (kSplit > 1) finish_tile(g, smem, -1, acc);  // the cluster's barriers count producers too
        return;
    }
    const int ctid = tid - kProducerThreads;
    for (int kt = 0; kt < g.ktiles; ++kt) {
        const int s = kt % kStages;
        const uint32_t phase = (uint32_t)((kt / kStages) & 1);
        consumer_wait(smem, s, phase);
        compute_tile(a_stage(smem, s), b_stage(smem, s), ctid, acc);
        if (kt + kStages < g.ktiles) consumer_release(smem, s);
    }
    finish_tile(g, smem, ctid, acc);
}
