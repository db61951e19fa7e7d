// Lockstep (the seed's __syncthreads kernel): in step j producers fill tile j
// while consumers drain tile j-(S-1); one __syncthreads per step stops all
// warps at every boundary, so each step lasts as long as the slower group.
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n, unsigned char* smem,
                                             float* tiles, long long mine) {
    const int tid = threadIdx.x;
    for (long long j = 0; j < mine + kStages - 1; ++j) {
        if (tid < kProducerThreads) {
            if (j < mine) {
                const int s = (int)(j % kStages);
                produce(in, tiles + s * kTile, blockIdx.x + j * gridDim.x, n, tid, smem, s);
            }
        } else if (j >= kStages - 1) {
            const long long t = j - (kStages - 1);
            consume(tiles + (t % kStages) * kTile, out, blockIdx.x + t * gridDim.x, n,
                    tid - kProducerThreads);
        }
        __syncthreads();  // uniform: every thread runs the same number of steps
    }
}
