// The lesson's __syncthreads kernel as written: double buffered, two
// all-stops per tile, one standing for "filled" and one for "ready". (The
// second is redundant with the next tile's first; schedule_lockstep.cuh is
// the one-barrier form bartune tunes.)
static_assert(kStages == 2, "the lesson's kernel is double buffered");
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n, unsigned char* smem,
                                             float* tiles, long long mine) {
    const int tid = threadIdx.x;
    if (tid < kProducerThreads && mine > 0) produce(in, tiles, blockIdx.x, n, tid, smem, 0);
    for (long long j = 0; j < mine; ++j) {
        __syncthreads();  // filled: tiles[j & 1] holds tile j
        if (tid < kProducerThreads) {
            if (j + 1 < mine)
                produce(in, tiles + ((j + 1) & 1) * kTile, blockIdx.x + (j + 1) * gridDim.x, n, tid,
                        smem, (int)((j + 1) & 1));
        } else {
            consume(tiles + (j & 1) * kTile, out, blockIdx.x + j * gridDim.x, n,
                    tid - kProducerThreads);
        }
        __syncthreads();  // ready: tiles[j & 1] may be overwritten
    }
}
