// Producer warps beside consumer warps in lockstep (the seed's __syncthreads
// kernel): in step j producers fill k-tile j while consumers compute k-tile
// j - (kStages - 1); one __syncthreads per step, so each step lasts as long
// as the slower side.
__device__ __forceinline__ void run_schedule(const Gemm& g, unsigned char* smem) {
    const int tid = threadIdx.x;
    float acc[kTM][kTN] = {};
    for (int j = 0; j < g.ktiles + kStages - 1; ++j) {
        if (tid < kProducerThreads) {
            if (j < g.ktiles) produce(g, j, tid, smem, j % kStages);
        } else if (j >= kStages - 1) {
            const int t = j - (kStages - 1);
            compute_tile(a_stage(smem, t % kStages), b_stage(smem, t % kStages), tid - kProducerThreads, acc);
        }
        __syncthreads();  // uniform: every thread runs the same number of steps
    }
    finish_tile(g, smem, tid >= kProducerThreads ? tid - kProducerThreads : -1, acc);
}
