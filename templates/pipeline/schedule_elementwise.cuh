// No shared memory, no producers, no barrier: what a user would write
// instead. Every thread loads kCvec floats, runs the chains and stores them,
// grid-stride over the array; the tiles only set the work per block.
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n, unsigned char*, float*,
                                             long long mine) {
    (void)mine;
    const unsigned long long stride = (unsigned long long)gridDim.x * kThreads * kCvec;
    for (unsigned long long g = ((unsigned long long)blockIdx.x * kThreads + threadIdx.x) * kCvec;
         g < n; g += stride) {
        float e[kCvec];
        load_global<kCvec>(in, g, n, e);
#pragma unroll
        for (int i = 0; i < 64; ++i) {
#pragma unroll
            for (int u = 0; u < kCvec; ++u) e[u] = fmaf(e[u], 0.999f, 0.0013f);
        }
        store_global<kCvec>(out, g, n, e);
    }
}
