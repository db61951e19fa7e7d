// Every warp loads and computes (the classic multistage kernel): kStages - 1
// k-tiles in flight as cp.async groups; one __syncthreads per k-tile both
// publishes the tile that landed and frees the stage the next copy reuses.
__device__ __forceinline__ void run_schedule(const Gemm& g, unsigned char* smem) {
    const int tid = threadIdx.x;
    float acc[kTM][kTN] = {};
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < g.ktiles) issue(g, s, tid, a_stage(smem, s), b_stage(smem, s));
        cp_async_commit();  // empty groups keep the count: kStages - 2 may stay pending
    }
    for (int kt = 0; kt < g.ktiles; ++kt) {
        cp_async_wait<kStages - 2>();  // this thread's copies of tile kt have landed
        __syncthreads();               // everyone's have; everyone is done with tile kt - 1
        const int next = kt + kStages - 1;
        if (next < g.ktiles) issue(g, next, tid, a_stage(smem, next % kStages), b_stage(smem, next % kStages));
        cp_async_commit();
        compute_tile(a_stage(smem, kt % kStages), b_stage(smem, kt % kStages), tid, acc);
    }
    finish_tile(g, smem, tid, acc);
}
