// No shared memory, no producers, no barrier: what a user would write
// instead, with two knobs. chunk: "stride" walks the array grid-stride;
// "block" gives each block one contiguous, equal share, so that all blocks
// end together (no partial last wave). prefetch: load the next step's floats
// into registers before running this step's chains.
__device__ __forceinline__ void run_schedule(const float* __restrict__ in, float* __restrict__ out,
                                             unsigned long long n) {
    constexpr unsigned long long kStep = (unsigned long long)kThreads * kCvec;
//% if chunk == "block" then
    const unsigned long long units = (n + kStep - 1) / kStep;
    const unsigned long long u0 = units * blockIdx.x / gridDim.x;
    const unsigned long long u1 = units * (blockIdx.x + 1) / gridDim.x;
    unsigned long long g = u0 * kStep + threadIdx.x * kCvec;
    const unsigned long long step = kStep, end = u1 * kStep < n ? u1 * kStep : n;
//% else
    unsigned long long g = ((unsigned long long)blockIdx.x * kThreads + threadIdx.x) * kCvec;
    const unsigned long long step = (unsigned long long)gridDim.x * kStep, end = n;
//% end
    float e[kCvec];
//% if prefetch == 1 then
    if (g < end) load_global<kCvec>(in, g, n, e);
//% end
    for (; g < end; g += step) {
//% if prefetch == 1 then
        float next[kCvec];
        if (g + step < end) load_global<kCvec>(in, g + step, n, next);
//% else
        load_global<kCvec>(in, g, n, e);
//% end
#pragma unroll
        for (int i = 0; i < 64; ++i) {
#pragma unroll
            for (int u = 0; u < kCvec; ++u) e[u] = fmaf(e[u], 0.999f, 0.0013f);
        }
        store_global<kCvec>(out, g, n, e);
//% if prefetch == 1 then
#pragma unroll
        for (int u = 0; u < kCvec; ++u) e[u] = next[u];
//% end
    }
}
