// How fast an SM takes in bytes by bulk copies (tools/gpu-trust.sh's
// intake-probe phase; issue 25). The GEMM bests of every shape take in
// 42-72 GB/s an SM (A, B and C's old values over the time; NOTES.md, 45th
// session), ~35 B a clock at the H200's 1.98 GHz, and the tall-K ncu found
// each SM held near that rate. If it is the hardware's ceiling, the lever
// left is fewer bytes an SM (bigger tiles, the epilogue hidden); if the
// ceiling is well above it, the kernels wait on something else.
// Each CTA streams PER_CTA bytes of a buffer through a ring of STAGES
// shared-memory slots of CHUNK bytes: one thread issues cp.async.bulk into a
// slot once it is free, the slot's mbarrier counting the bytes in; another
// waits for each slot and frees it. Nothing computes: the time is the
// intake alone. For a buffer L2 holds (16 MiB, each CTA reading it from its
// own offset) and one it does not (1 GiB: every CTA its own 8 MiB, from
// HBM), chunks of 4 to 32 KiB, 2 to 8 stages and 1 or 2 CTAs an SM, it
// prints GB/s an SM (bytes over the kernel's time) and bytes an SM a clock
// (over the CTAs' own clock64 cycles).
// Usage: intake-probe [PER_CTA_MIB (8)]
#include "probe.cuh"
#include <algorithm>
#include <cstdint>
#include <cuda.h> // CUtensorMap, named by ptx.cuh's tensor copies (unused here)
#include <vector>

// The bf16 GEMM's mbarrier primitives, so the probe waits as its kernels do
#include "../templates/gemm_bf16/ptx.cuh"
using namespace bartune_gemm_bf16_ptx;

// The slot's barrier expects `bytes`, and the copy engine brings them: a
// plain bulk copy (ptx.cuh has the tensor forms only).
__device__ __forceinline__ void fetch(uint32_t slot, const char *src, uint32_t bytes,
                                      uint32_t bar) {
    mbar_expect_tx(bar, bytes);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(slot),
        "l"(src), "r"(bytes), "r"(bar)
        : "memory");
}

// Block of 32 (issuers + 1) threads: lane 0 of warps 0 .. issuers - 1 the
// producers (slot s by warp s % issuers, so each slot's chunks come in order
// from one thread: do copies from several threads overlap where one
// thread's do not?), lane 0 of the last warp the consumer.
// Chunks wrap around the buffer from the CTA's offset.
__global__ void intake(const char *buf, size_t buf_bytes, size_t stride, unsigned chunk,
                       unsigned stages, unsigned long long chunks, unsigned long long *cycles,
                       unsigned issuers) {
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned long long *bars = reinterpret_cast<unsigned long long *>(smem); // full[s], empty[s]
    unsigned char *ring = smem + 1024;
    if (threadIdx.x == 0) {
        for (unsigned s = 0; s < 2 * stages; s++)
            mbar_init(smem_u32(bars + s), 1);
        fence_barrier_init();
    }
    __syncthreads();
    const size_t base = (blockIdx.x * stride) % buf_bytes;
    const unsigned long long t0 = clock64();
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp < issuers && lane == 0) {
        for (unsigned long long i = 0; i < chunks; i++) {
            const unsigned s = i % stages;
            if (s % issuers != warp) continue;
            if (i >= stages) mbar_wait(smem_u32(bars + stages + s), ((i / stages) - 1) & 1);
            fetch(smem_u32(ring + (size_t)s * chunk), buf + (base + i * chunk) % buf_bytes, chunk,
                  smem_u32(bars + s));
        }
    } else if (warp == issuers && lane == 0) {
        for (unsigned long long i = 0; i < chunks; i++) {
            const unsigned s = i % stages;
            mbar_wait(smem_u32(bars + s), (i / stages) & 1);
            mbar_arrive(smem_u32(bars + stages + s));
        }
        cycles[blockIdx.x] = clock64() - t0;
    }
}

struct Case {
    size_t buf_bytes, stride;
    const char *where;
};

// One configuration: the median of 5 timed launches after one to warm L2.
static void measure(const char *buf, const Case &c, unsigned chunk, unsigned stages,
                    unsigned per_sm, unsigned issuers, int sms, size_t optin, size_t per_cta,
                    unsigned long long *cycles, cudaEvent_t a, cudaEvent_t b) {
    const unsigned threads = 32 * (issuers + 1);
    const unsigned grid = sms * per_sm;
    const size_t smem = 1024 + (size_t)stages * chunk;
    int most = 0;
    if (smem > optin || stages % issuers) return; // more than a CTA may have; a slot's issuer
    CHECK(cudaFuncSetAttribute(intake, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, intake, threads, smem));
    if (most < (int)per_sm) {
        printf("%-4s %6u %7u %7u %7u   (%d CTAs of %zu KB fit an SM)\n", c.where, chunk >> 10,
               stages, per_sm, issuers, most, smem >> 10);
        return;
    }
    std::vector<float> ms;
    for (int r = 0; r < 6; r++) {
        CHECK(cudaEventRecord(a));
        intake<<<grid, threads, smem>>>(buf, c.buf_bytes, c.stride, chunk, stages,
                                        per_cta / chunk, cycles, issuers);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaGetLastError());
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<unsigned long long> cyc(grid);
    CHECK(cudaMemcpy(cyc.data(), cycles, grid * sizeof cyc[0], cudaMemcpyDeviceToHost));
    double mean = 0;
    for (unsigned long long v : cyc)
        mean += (double)v / grid;
    const double gbps = (double)per_cta * per_sm / (ms[ms.size() / 2] * 1e-3) / 1e9;
    printf("%-4s %6u %7u %7u %7u %9.4f %10.1f %10.1f\n", c.where, chunk >> 10, stages, per_sm,
           issuers, ms[ms.size() / 2], gbps, (double)per_cta * per_sm / mean);
}

int main(int argc, char **argv) {
    const size_t per_cta = (argc > 1 ? strtoull(argv[1], nullptr, 10) : 8) << 20;
    int dev = 0, sms = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    const size_t big = (size_t)2 * sms * per_cta; // room for 2 CTAs an SM, each its own bytes
    char *buf = nullptr;
    unsigned long long *cycles = nullptr;
    CHECK(cudaMalloc(&buf, big));
    CHECK(cudaMemset(buf, 1, big));
    CHECK(cudaMalloc(&cycles, 2 * sms * sizeof(unsigned long long)));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    printf("%s, %d SMs, L2 %d MB; %zu MiB a CTA\n", p.name, sms, p.l2CacheSize >> 20,
           per_cta >> 20);
    printf("%-4s %6s %7s %7s %7s %9s %10s %10s\n", "from", "KiB", "stages", "CTA/SM", "issuers",
           "ms", "GB/s/SM", "B/clk/SM");
    const Case cases[] = {{(size_t)16 << 20, (size_t)1 << 20, "L2"}, {big, per_cta, "HBM"}};
    for (const Case &c : cases)
        for (unsigned issuers : {1u, 4u})
            for (unsigned per_sm : {1u, 2u})
                for (unsigned chunk : {4u << 10, 16u << 10, 32u << 10})
                    for (unsigned stages : {2u, 4u, 8u})
                        measure(buf, c, chunk, stages, per_sm, issuers, sms,
                                p.sharedMemPerBlockOptin, per_cta, cycles, a, b);
    return 0;
}
