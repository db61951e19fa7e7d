// The lesson's cuda::barrier kernel as written (programming guide 7.26.5):
// ready[b] (empty) and filled[b] (full), every thread counted on both;
// consumers arrive on both ready barriers up front ("both buffers start out
// writable"), producers arrive_and_wait on ready before every fill, and
// consumers hand back every tile, the last ones included.
static_assert(kStages == 2, "the lesson's kernel is double buffered");
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n, unsigned char* smem,
                                             float* tiles, long long mine) {
    const int tid = threadIdx.x;
    if (tid < 2) {
        init(&full_bar(smem, tid), kThreads);
        init(&empty_bar(smem, tid), kThreads);
    }
    __syncthreads();  // no thread may touch a barrier before init
    if (tid < kProducerThreads) {
        for (long long j = 0; j < mine; ++j) {
            const int b = (int)(j & 1);
            producer_acquire(smem, b, 0);  // consumers done with tiles[b]
            produce(in, tiles + b * kTile, blockIdx.x + j * gridDim.x, n, tid, smem, b);
        }
    } else {
        consumer_release(smem, 0);
        consumer_release(smem, 1);
        for (long long j = 0; j < mine; ++j) {
            const int b = (int)(j & 1);
            consumer_wait(smem, b, 0);  // producers filled tiles[b]
            consume(tiles + b * kTile, out, blockIdx.x + j * gridDim.x, n, tid - kProducerThreads);
            consumer_release(smem, b);  // hand back; do not wait
        }
    }
}
