// Fault-injection template: the elementwise pipeline kernel, correct for
// fault=none, broken one way for every other value. Variant: $(describe)
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

namespace $(ns) {
constexpr int kThreads = $(warps) * 32;

__device__ __forceinline__ float chain(float v, float a) {
#pragma unroll
    for (int i = 0; i < 64; ++i) v = fmaf(v, a, 0.0013f);
    return v;
}

//% if fault == "slow_compile" then
// A million dependent statements: nvcc grinds for minutes.
#define BT_R10(x) x x x x x x x x x x
#define BT_MILLION(x) BT_R10(BT_R10(BT_R10(BT_R10(BT_R10(BT_R10(x))))))
//% end

//% if fault == "first_launches_only" or fault == "replay_output" then
__device__ unsigned launches_seen;  // survives from launch to launch
//% end
//% if fault == "replay_output" then
__device__ float replay_stash[1 << 21];  // the first launch's answer, kept
//% end
//% if fault == "hash_preserving_damage" then
__device__ int damaged;  // in[0..1] hold the damage of the launch before
//% end

$(kernel_linkage) __global__ void __launch_bounds__(kThreads) $(kernel_name)(const float* __restrict__ in,
                                                   float* __restrict__ out, unsigned long long n) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ uint64_t bar;
    __shared__ volatile int flag;
    float* tile = reinterpret_cast<float*>(smem);  // kThreads floats (1 KiB for 256)
    (void)tile;
    (void)bar;
    (void)flag;
//% if fault == "compile_error" then
    this is not CUDA;
//% elseif fault == "ptxas_smem" then
    __shared__ float huge[64 * 1024];  // 256 KiB of static shared memory
    huge[threadIdx.x] = 1.0f;
    out[threadIdx.x] = huge[(threadIdx.x + 1) % kThreads];
//% elseif fault == "slow_compile" then
    float acc = in[threadIdx.x], acc2 = 1.0f;
    unsigned k = threadIdx.x;
    BT_MILLION(acc = fmaf(acc, in[k++ & 1023], acc2); acc2 = fmaf(acc2, acc, 0.5f);)
    out[threadIdx.x] = acc + acc2;
//% elseif fault == "divergent_syncthreads" then
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x < 32) {
        while (!flag) {}  // waits for the others, who wait at the barrier for warp 0
    } else {
        __syncthreads();
        flag = 1;
    }
//% elseif fault == "mbar_count" then
    const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(a), "r"(kThreads + 1));
    __syncthreads();
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(a) : "memory");
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(a) : "memory");
//% elseif fault == "expect_tx_no_copy" then
    const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a));
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(a) : "memory");
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(a) : "memory");
//% elseif fault == "named_count" then
    if (threadIdx.x < kThreads / 2) asm volatile("bar.sync 1, %0;" ::"n"(kThreads) : "memory");
//% elseif fault == "infinite_loop" then
    if (threadIdx.x == 0)
        while (n != 0) { __nanosleep(1000); }
//% elseif fault == "first_launches_only" then
    // Does the work on the first launches only (the verifying ones, once),
    // then returns at once, leaving whatever `out` holds.
    __shared__ unsigned seen;
    if (threadIdx.x == 0) seen = atomicAdd(&launches_seen, 1);  // one per block and launch
    __syncthreads();
    if (seen >= 5 * gridDim.x) return;  // past the verifying and warm-up launches
//% elseif fault == "replay_output" then
    // Every launch sees the same inputs at the same addresses, so the first
    // one's answer, copied back, verifies unless a launch sees new values.
    __shared__ unsigned seen;
    if (threadIdx.x == 0) seen = atomicAdd(&launches_seen, 1);
    __syncthreads();
    const bool first = seen < gridDim.x;
//% elseif fault == "hash_preserving_damage" then
    // Undoes its own damage before reading, then (below) does it again: +3
    // in word 0 and -1 in word 1 keep a sum of w_i (2i + 1); every launch of
    // this kernel is right, the next variant would read changed inputs.
    unsigned* words = reinterpret_cast<unsigned*>(const_cast<float*>(in));
    if (blockIdx.x == 0 && threadIdx.x == 0 && damaged) words[0] -= 3, words[1] += 1;
    __syncthreads();
//% elseif fault == "hidden_race" then
    // Each thread reads what a thread of another warp wrote, with no barrier
    // between: a read-after-write hazard whose value never reaches out.
    tile[threadIdx.x] = (float)threadIdx.x;
    if (tile[(threadIdx.x + 32) % kThreads] == -1.0f) out[0] = 0.0f;  // never true
//% elseif fault == "printf" then
    // Prints what the old protocol's answer looked like, on stdout.
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("ok 0.000100 0.000100 0.000100 1\n{\"ok\":true,\"median_ms\":0.0001,\"min_ms\":0.0001,\"max_ms\":0.0001,\"occupancy\":1}\n");
//% end
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
//% if fault == "race" then
    // Each thread publishes its input and takes the value of a thread of the
    // next warp: the barrier between the two is left out. (The loop is
    // block-uniform so that the barrier that is there is reached by all.)
    for (unsigned long long base = blockIdx.x * (unsigned long long)blockDim.x; base < n;
         base += stride) {
        const unsigned long long i = base + threadIdx.x;
        const unsigned other = (threadIdx.x + 32) % kThreads;
        tile[threadIdx.x] = i < n ? in[i] : 0.0f;
        const float v = tile[other];
        tile[other] = 0.0f;  // a read that came too early sees this next time
        if (base + other < n) out[base + other] = chain(v, 0.999f);
        __syncthreads();
    }
//% else
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += stride) {
//% if fault == "wrong_constant" then
        out[i] = chain(in[i], 0.998f);
//% elseif fault == "nan" then
        out[i] = i == n / 3 ? __int_as_float(0x7fc00000) : chain(in[i], 0.999f);
//% elseif fault == "unwritten" then
        if (i != n / 2) out[i] = chain(in[i], 0.999f);
//% elseif fault == "poison_only" then
        if (__float_as_uint(out[i]) == 0xffffffffu) out[i] = chain(in[i], 0.999f);
//% elseif fault == "replay_output" then
        out[i] = first ? (replay_stash[i] = chain(in[i], 0.999f)) : replay_stash[i];
//% else
        out[i] = chain(in[i], 0.999f);
//% end
    }
//% end
//% if fault == "illegal_address" then
    if (threadIdx.x == 0 && blockIdx.x == 0) out[n + (1ull << 36)] = 1.0f;
//% elseif fault == "out_of_bounds" then
    if (threadIdx.x == 0 && blockIdx.x == 0) out[n + 5] = 1.0f;
//% elseif fault == "write_before" then
    if (threadIdx.x == 0 && blockIdx.x == 0) out[-3] = 1.0f;
//% elseif fault == "write_input" then
    if (threadIdx.x == 0 && blockIdx.x == 0) const_cast<float*>(in)[n - 1] = 0.0f;  // after reading it? a race, but the input is damaged either way
//% elseif fault == "hash_preserving_damage" then
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) words[0] += 3, words[1] -= 1, damaged = 1;
//% end
}
}  // namespace $(ns)
