// What a split-K variant's per-call scratch costs (tools/gpu-trust.sh's
// memset-probe phase): the runner and the headers clear a scratch kernel's
// counters with cudaMemsetAsync before every launch (launch().scratch_zero),
// and the headers take the scratch from a pool and give it back around it.
// At the tall-K shapes the kernels run 13 us (gemm_bf16) and 64 us (sgemm),
// so a microsecond a call is a few percent of them: the case for counters
// that the kernel leaves zero itself.
// For kernels of about SPIN_US microseconds (128 CTAs spinning on the
// global timer), it prints the time a call back to back, over REPS calls in
// one stream, of: the kernel alone; a 256-byte memset then the kernel; the
// headers' whole sequence (pool allocation, memset, kernel, free); the
// same without the memset; back to back, and one call between two events
// (as the runner times a launch).
// Usage: memset-probe [REPS (200)]
#include "probe.cuh"
#include <algorithm>

// Spins `ns` nanoseconds; reads the scratch's first word so the memset is
// a dependency of the kernel as the counters are.
__global__ void spin(unsigned long long ns, const unsigned *scratch, unsigned *sink) {
    const unsigned long long t0 = global_ns();
    unsigned v = scratch ? scratch[0] : 0;
    while (global_ns() - t0 < ns)
        v += 1;
    if (v == 0xffffffffu) *sink = v; // never: keeps the loop
}

enum Way { KERNEL, MEMSET, POOL_MEMSET, POOL };
static const char *kWays[] = {"kernel alone", "memset + kernel", "pool + memset + kernel + free",
                              "pool + kernel + free"};

static void call(Way w, unsigned long long ns, unsigned *fixed, unsigned *sink, cudaMemPool_t pool,
                 cudaStream_t s) {
    void *p = fixed;
    if (w == POOL_MEMSET || w == POOL) CHECK(cudaMallocFromPoolAsync(&p, 1 << 20, pool, s));
    if (w == MEMSET || w == POOL_MEMSET) CHECK(cudaMemsetAsync(p, 0, 256, s));
    spin<<<128, 128, 0, s>>>(ns, static_cast<unsigned *>(p), sink);
    CHECK(cudaGetLastError());
    if (w == POOL_MEMSET || w == POOL) CHECK(cudaFreeAsync(p, s));
}

int main(int argc, char **argv) {
    const int reps = argc > 1 ? atoi(argv[1]) : 200;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned *fixed, *sink;
    CHECK(cudaMalloc(&fixed, 1 << 20));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(fixed, 0, 1 << 20));
    cudaMemPool_t pool;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&pool, &props));
    unsigned long long keep = ~0ull;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (unsigned long long us : {2ull, 8ull, 13ull, 64ull}) {
        printf("kernel of %llu us:\n", us);
        for (int w = KERNEL; w <= POOL; w++) {
            for (int i = 0; i < 20; i++)
                call(Way(w), us * 1000, fixed, sink, pool, s); // warm
            CHECK(cudaEventRecord(a, s));
            for (int i = 0; i < reps; i++)
                call(Way(w), us * 1000, fixed, sink, pool, s);
            CHECK(cudaEventRecord(b, s));
            CHECK(cudaEventSynchronize(b));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            // one call between events, as the runner times a launch: the median
            float one[64];
            for (int i = 0; i < 64; i++) {
                CHECK(cudaEventRecord(a, s));
                call(Way(w), us * 1000, fixed, sink, pool, s);
                CHECK(cudaEventRecord(b, s));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaEventElapsedTime(&one[i], a, b));
            }
            std::sort(one, one + 64);
            printf("  %-32s %8.2f us a call back to back, %8.2f alone (median)\n", kWays[w],
                   1000.0 * ms / reps, 1000.0 * one[32]);
        }
    }
    return 0;
}
