// Does compute-sanitizer's racecheck read the skeleton's ring right? One
// producer warp fills a ring of STAGES shared-memory tiles of 1024 words,
// CONSUMERS warps read them (tools/gpu-trust.sh's race phase). Each word
// written for round j of block b holds a value the consumers check, so a
// real race shows as a count of stale words when run without a tool; under
// racecheck the same kernel shows what racecheck reports.
// Modes: correct by the PTX memory model: arrive (the skeleton's named ring: the signalling group bar.arrive, the
// waiting group bar.sync), mbar (the ring on mbarriers, every consumer
// thread arrives), mbar_warp (the skeleton's mbarrier ring: __syncwarp, then
// lane 0 of each consumer warp arrives); racy on purpose: early (consumers
// release a stage before reading it), none (no barrier at all).
// Usage: race-probe MODE CONSUMER_WARPS STAGES ROUNDS BLOCKS [slow]
// (slow: the producer adds a word it loads from global memory, all zeros,
// as the skeleton's producer stages x: a producer slower than its consumers)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

enum { NONE, ARRIVE, MBAR, MBAR_WARP, EARLY, MODES };
static const char* const kNames[] = {"none", "arrive", "mbar", "mbar_warp", "early"};
constexpr int kTile = 1024, kMaxStages = 7;

__device__ __forceinline__ void bar_sync(int id, int n) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int n) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__device__ __forceinline__ unsigned smem_u32(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mb_init(unsigned long long* b, int n) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(n) : "memory");
}
__device__ __forceinline__ void mb_arrive(unsigned long long* b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
__device__ __forceinline__ void mb_wait(unsigned long long* b, unsigned phase) {
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 " @!p bra W;\n}" ::"r"(smem_u32(b)), "r"(phase) : "memory");
}
__device__ __forceinline__ unsigned word(int b, int j, int i) {
    return (unsigned)b * 2654435761u ^ (unsigned)j << 10 ^ (unsigned)i;
}

// Warp 0 produces, warps 1.. consume; stale counts the words a consumer
// read that were not the ones written for its round.
__global__ void ring(int mode, int stages, int rounds, const unsigned* zeros,
                     unsigned long long* stale) {
    __shared__ unsigned tile[kMaxStages][kTile];
    __shared__ unsigned long long full[kMaxStages], empty[kMaxStages];
    const int n = blockDim.x, consumers = n - 32, warps = consumers / 32;
    if (threadIdx.x == 0)
        for (int s = 0; s < stages; ++s)
            mb_init(&full[s], 32), mb_init(&empty[s], mode == MBAR_WARP ? warps : consumers);
    __syncthreads();
    unsigned long long bad = 0;
    for (int j = 0; j < rounds; ++j) {
        const int s = j % stages;
        const unsigned phase = (j / stages) & 1;
        const bool release = j + stages < rounds;
        if (threadIdx.x < 32) {
            if (j >= stages) {
                if (mode == ARRIVE || mode == EARLY) bar_sync(1 + stages + s, n);
                if (mode == MBAR || mode == MBAR_WARP) mb_wait(&empty[s], phase ^ 1u);
            }
            for (int i = threadIdx.x; i < kTile; i += 32) tile[s][i] = word(blockIdx.x, j, i) + (zeros ? zeros[i] : 0u);
            if (mode == ARRIVE || mode == EARLY) bar_arrive(1 + s, n);
            if (mode == MBAR || mode == MBAR_WARP) mb_arrive(&full[s]);
        } else {
            if (mode == ARRIVE || mode == EARLY) bar_sync(1 + s, n);
            if (mode == MBAR || mode == MBAR_WARP) mb_wait(&full[s], phase);
            if (mode == EARLY && release) bar_arrive(1 + stages + s, n);
            for (int i = threadIdx.x - 32; i < kTile; i += consumers)
                bad += tile[s][i] != word(blockIdx.x, j, i);
            if (release) {
                if (mode == ARRIVE) bar_arrive(1 + stages + s, n);
                if (mode == MBAR) mb_arrive(&empty[s]);
                if (mode == MBAR_WARP) {
                    __syncwarp();
                    if (threadIdx.x % 32 == 0) mb_arrive(&empty[s]);
                }
            }
        }
    }
    if (bad) atomicAdd(stale, bad);
}

int main(int argc, char** argv) {
    int mode = -1;
    for (int m = 0; m < MODES; ++m)
        if ((argc == 6 || argc == 7) && !strcmp(argv[1], kNames[m])) mode = m;
    const bool args = argc == 6 || argc == 7, slow = argc == 7 && !strcmp(argv[6], "slow");
    const int warps = args ? atoi(argv[2]) : 0, stages = args ? atoi(argv[3]) : 0;
    const int rounds = args ? atoi(argv[4]) : 0, blocks = args ? atoi(argv[5]) : 0;
    if (mode < 0 || warps < 1 || warps > 31 || stages < 1 || stages > kMaxStages ||
        (mode != MBAR && mode != MBAR_WARP && 1 + 2 * stages > 15) || rounds < 1 || blocks < 1 || (argc == 7 && !slow)) {
        fprintf(stderr,
                "usage: race-probe none|arrive|mbar|mbar_warp|early CONSUMER_WARPS(1-31) "
                "STAGES(1-7) ROUNDS BLOCKS [slow]\n");
        return 2;
    }
    unsigned long long *stale, h = 0;
    unsigned* zeros = nullptr;
    if (cudaMalloc(&stale, sizeof h) != cudaSuccess) return 77;
    cudaMemset(stale, 0, sizeof h);
    if (slow && cudaMalloc(&zeros, kTile * sizeof *zeros) == cudaSuccess)
        cudaMemset(zeros, 0, kTile * sizeof *zeros);
    ring<<<blocks, 32 * (1 + warps)>>>(mode, stages, rounds, zeros, stale);
    const cudaError_t e = cudaMemcpy(&h, stale, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stderr, "race-probe %s: %s\n", kNames[mode], cudaGetErrorString(e));
        return 1;
    }
    printf("race-probe %s, %d consumer warps, %d stages, %d rounds, %d blocks%s: %llu stale words "
           "read\n",
           kNames[mode], warps, stages, rounds, blocks, slow ? ", slow producer" : "", h);
    return 0;
}
