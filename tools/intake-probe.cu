// How fast an SM takes in bytes by bulk copies (tools/gpu-trust.sh's
// intake-probe phase; issue 25). The GEMM bests of every shape take in
// 42-72 GB/s an SM (A, B and C's old values over the time; NOTES.md, 45th
// session), ~35 B a clock at the H200's 1.98 GHz, and the tall-K ncu found
// each SM held near that rate. If it is the hardware's ceiling, the lever
// left is fewer bytes an SM (bigger tiles, the epilogue hidden); if the
// ceiling is well above it, the kernels wait on something else.
// Each CTA streams PER_CTA bytes of a buffer through a ring of STAGES
// shared-memory slots of CHUNK bytes: issuing threads copy into a slot once
// it is free, the slot's mbarrier counting the bytes in; another thread
// waits for each slot and frees it. Nothing computes: the time is the
// intake alone. For a buffer L2 holds (16 MiB, each CTA reading it from its
// own offset) and one it does not (every CTA its own PER_CTA bytes, from
// HBM), chunks of 4 to 32 KiB, 2 to 8 stages, 1 or 2 CTAs an SM, 1 or 4
// issuing warps and two kinds of copy (`bulk`: cp.async.bulk of the chunk;
// `tensor`: one box of a 2-D tensor map of 128-byte rows with the 128-byte
// swizzle, as the GEMM's operands), it prints GB/s an SM (bytes over the
// kernel's time) and bytes an SM a clock (over the CTAs' own clock64 cycles).
// The first run (H100, NOTES.md 46th): with one issuer, stages changed
// nothing, as if a CTA's copies ran one at a time.
// Usage: intake-probe [PER_CTA_MIB (8)]
#include "probe.cuh"
#include <algorithm>
#include <cstdint>
#include <cuda.h> // CUtensorMap and cuTensorMapEncodeTiled's type (reached through the runtime)
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
// thread's do not?), lane 0 of the last warp the consumer. Chunks wrap
// around the buffer from the CTA's offset. The ring starts at a multiple of
// 1024 bytes (the 128-byte swizzle's).
__global__ void intake(const __grid_constant__ CUtensorMap map, bool tensor, const char *buf,
                       size_t buf_bytes, size_t stride, unsigned chunk, unsigned stages,
                       unsigned long long chunks, unsigned long long *cycles, unsigned issuers) {
    extern __shared__ __align__(128) unsigned char smem[];
    unsigned long long *bars = reinterpret_cast<unsigned long long *>(smem); // full[s], empty[s]
    const uint32_t ring = (smem_u32(smem) + 1024 + 1023) & ~1023u;
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
            const size_t at = (base + i * chunk) % buf_bytes;
            if (tensor) {
                mbar_expect_tx(smem_u32(bars + s), chunk);
                tma_load(ring + s * chunk, &map, 0, (int)(at / 128), smem_u32(bars + s));
            } else {
                fetch(ring + s * chunk, buf + at, chunk, smem_u32(bars + s));
            }
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

// What every measurement shares.
struct Probe {
    const char *buf;
    int sms;
    size_t optin, per_cta;
    unsigned long long *cycles;
    cudaEvent_t a, b;
};

// One configuration: the median of 5 timed launches after one to warm L2.
static void measure(const Probe &p, const Case &c, const CUtensorMap *map, unsigned chunk,
                    unsigned stages, unsigned per_sm, unsigned issuers) {
    const unsigned threads = 32 * (issuers + 1), grid = p.sms * per_sm;
    const size_t smem = 2048 + (size_t)stages * chunk; // barriers, the ring's alignment, the ring
    const char *kind = map ? "tensor" : "bulk";
    int most = 0;
    if (smem > p.optin || stages % issuers) return; // more than a CTA may have; a slot's issuer
    CHECK(cudaFuncSetAttribute(intake, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, intake, threads, smem));
    if (most < (int)per_sm) {
        printf("%-4s %-6s %6u %7u %7u %7u   (%d CTAs of %zu KB fit an SM)\n", c.where, kind,
               chunk >> 10, stages, per_sm, issuers, most, smem >> 10);
        return;
    }
    static const CUtensorMap none = {};
    std::vector<float> ms;
    for (int r = 0; r < 6; r++) {
        CHECK(cudaEventRecord(p.a));
        intake<<<grid, threads, smem>>>(map ? *map : none, map != nullptr, p.buf, c.buf_bytes,
                                        c.stride, chunk, stages, p.per_cta / chunk, p.cycles,
                                        issuers);
        CHECK(cudaEventRecord(p.b));
        CHECK(cudaEventSynchronize(p.b));
        CHECK(cudaGetLastError());
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, p.a, p.b));
        if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<unsigned long long> cyc(grid);
    CHECK(cudaMemcpy(cyc.data(), p.cycles, grid * sizeof cyc[0], cudaMemcpyDeviceToHost));
    double mean = 0;
    for (unsigned long long v : cyc)
        mean += (double)v / grid;
    const double bytes = (double)p.per_cta * per_sm;
    printf("%-4s %-6s %6u %7u %7u %7u %9.4f %10.1f %10.1f\n", c.where, kind, chunk >> 10, stages,
           per_sm, issuers, ms[ms.size() / 2], bytes / (ms[ms.size() / 2] * 1e-3) / 1e9,
           bytes / mean);
}

// A 2-D map of `bytes` as rows of 128 bytes, boxes of `chunk` bytes (at
// most 256 rows), swizzled as the GEMM's operands; false where the driver
// refuses (the tensor rows are then left out).
static bool tensor_map(CUtensorMap *map, const char *buf, size_t bytes, unsigned chunk) {
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return false;
    const cuuint64_t dims[2] = {128, bytes / 128}, strides[1] = {128};
    const cuuint32_t box[2] = {128, chunk / 128}, unit[2] = {1, 1};
    return reinterpret_cast<decltype(&cuTensorMapEncodeTiled)>(fn)(
               map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<char *>(buf), dims, strides, box,
               unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
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
    printf("%-4s %-6s %6s %7s %7s %7s %9s %10s %10s\n", "from", "copy", "KiB", "stages", "CTA/SM",
           "issuers", "ms", "GB/s/SM", "B/clk/SM");
    const Probe probe = {buf, sms, p.sharedMemPerBlockOptin, per_cta, cycles, a, b};
    const Case cases[] = {{(size_t)16 << 20, (size_t)1 << 20, "L2"}, {big, per_cta, "HBM"}};
    for (bool tensor : {false, true})
        for (const Case &c : cases)
            for (unsigned issuers : {1u, 4u})
                for (unsigned per_sm : {1u, 2u})
                    for (unsigned chunk : {4u << 10, 16u << 10, 32u << 10}) {
                        CUtensorMap map;
                        if (tensor && !tensor_map(&map, buf, c.buf_bytes, chunk)) {
                            printf("%-4s tensor %6u: the driver refused the map\n", c.where,
                                   chunk >> 10);
                            continue;
                        }
                        for (unsigned stages : {2u, 4u, 8u})
                            measure(probe, c, tensor ? &map : nullptr, chunk, stages, per_sm,
                                    issuers);
                    }
    return 0;
}
