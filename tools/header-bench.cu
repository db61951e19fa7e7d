// gemm_bf16 as a program calls it: bartune_gemm_bf16 through the emitted
// header (kernels/gemm_bf16.cuh) beside cublasGemmEx on the same inputs, each
// call timed with events, median after a warm-up. Prints, per shape and
// layout, the path the header takes, tuned ms, cuBLAS ms, cuBLAS / tuned
// speed, and the geomean; issue 25 compares it with bench's. Built with
// -DHB_SGEMM it times sgemm instead (kernels/sgemm.cuh beside cublasSgemm,
// default math: fp32, no TF32; shapes MxNxK only), for issue 24.
//
// HB_MODES (default "s") times each shape in several ways, to tell what in
// the runner's timed loop (tuner bench) costs a kernel that a program's call
// does not pay (NOTES.md, twenty-first session: our small kernels ran ~2.4 us
// slower a launch there than back to back, cuBLAS's did not):
//   s   one call between two events, the host waiting for each (a program)
//   q   calls queued, events around each, one wait at the end
//   c   q, with C copied back from a pristine copy before each call's first
//       event (the runner's prepare() of an inout buffer)
//   k   q, with a kernel reading C and three buffers of its size after each
//       call's second event (the runner's checks)
//   ck  both, as the runner times a launch
//   b   calls back to back between two events, the time over the calls (bench's
//       sustained figure, without its seconds)
//   h   the host's own time a call: the calls queued behind a kernel that holds
//       the stream until they all are (the "ms" columns are the host's): where
//       b is no more than h, back to back measures the host, not the kernel
//   g   each call behind a kernel that holds the stream until the call is
//       queued, events around the call: the GPU's time alone (nvbench's
//       blocking kernel), where s and q may also span the host's launch path
// Each way runs tuned then cuBLAS in blocks of REPS, three rounds, median of all.
//
//   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I kernels [-DHB_SGEMM]
//        tools/header-bench.cu -lcublas -o /tmp/header-bench
//   [HB_BETA=0] [HB_MODES="s q c k ck b"] /tmp/header-bench [REPS] [MxNxK[:transa,transb] ...]
//   (default shapes: the tune list)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <vector>
#include "probe.cuh"

#ifdef HB_SGEMM
#include "sgemm.cuh"
typedef float elem_t;
__device__ inline float to_elem(float v) { return v; }
#else
#include "gemm_bf16.cuh"
typedef __nv_bfloat16 elem_t;
__device__ inline __nv_bfloat16 to_elem(float v) { return __float2bfloat16(v); }
#endif

struct Shape {
    int m, n, k, ta, tb;
};

#ifdef HB_SGEMM
// problems/sgemm.lua's tune list
static const Shape kTune[] = {
    {4096, 4096, 4096, 0, 0}, {2048, 2048, 2048, 0, 0},  {1024, 1024, 1024, 0, 0}, {512, 512, 512, 0, 0},
    {3001, 2999, 4097, 0, 0}, {16384, 128, 4096, 0, 0}, {4096, 4096, 256, 0, 0},   {256, 256, 16384, 0, 0},
};
#else
// problems/gemm_bf16.lua's tune list
static const Shape kTune[] = {
    {4096, 4096, 4096, 0, 0}, {8192, 8192, 8192, 0, 0}, {2048, 2048, 2048, 0, 0},
    {1024, 1024, 1024, 0, 0}, {16384, 128, 4096, 0, 0}, {4096, 4096, 256, 0, 0},
    {256, 256, 16384, 0, 0},  {4096, 4096, 4096, 0, 1}, {8192, 8192, 8192, 0, 1},
    {2048, 2048, 2048, 0, 1}, {1024, 1024, 1024, 0, 1}, {16384, 128, 4096, 0, 1},
    {4096, 4096, 256, 0, 1},  {256, 256, 16384, 0, 1},  {4096, 4096, 4096, 1, 0},
    {4096, 4096, 4096, 1, 1},
};
#endif

static bool parse(const char* s, Shape* out) {
    *out = Shape{0, 0, 0, 0, 0};
    int got = sscanf(s, "%dx%dx%d:%d,%d", &out->m, &out->n, &out->k, &out->ta, &out->tb);
    return (got == 3 || got == 5) && out->m > 0 && out->n > 0 && out->k > 0 && (out->ta | out->tb) >= 0 &&
           out->ta <= 1 && out->tb <= 1;
}

__global__ void fill(elem_t* p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = to_elem((h & 0xffff) / 32768.0f - 1.0f);  // uniform in [-1, 1)
    }
}

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// What the runner's checks do after a launch: read the output and three
// buffers of its size (expected values, bounds, scales), here summed.
__global__ void read4(const unsigned* c, const unsigned* x, const unsigned* y, const unsigned* z, size_t n,
                      unsigned* sink) {
    unsigned s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        s += c[i] ^ x[i] ^ y[i] ^ z[i];
    if (s == 0x9e3779b9u) *sink = s;  // keeps the reads; practically never written
}

// Holds the stream until the host sets *go (mapped host memory) to `want`
// or more, or 5 s pass.
__global__ void gate(const volatile int* go, int want) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (*go < want && t - t0 < 5000000000ull);
}

// The buffers a way of timing touches besides the call's own.
struct Around {
    void* c;            // the call's output
    const void* clean;  // its pristine copy
    const unsigned *x, *y, *z;
    unsigned* sink;
    size_t bytes;  // of C
    int sms;
    int* go;      // mapped host memory: the gate's flag (ways h and g)
    int* go_dev;  // its device address
};

// Per-call times of `call` timed the way `mode` says (see the top), reps calls.
template <class F>
static std::vector<float> timed(const char* mode, int reps, const Around& a, F call) {
    const bool sync = !strcmp(mode, "s"), copy = strchr(mode, 'c'), check = strchr(mode, 'k');
    std::vector<float> out;
    if (!strcmp(mode, "h")) {
        *(volatile int*)a.go = 0;
        gate<<<1, 1>>>(a.go_dev, 1);
        CHECK(cudaGetLastError());
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < reps; i++) CHECK(call());
        const auto t1 = std::chrono::steady_clock::now();
        *(volatile int*)a.go = 1;
        CHECK(cudaDeviceSynchronize());
        out.assign(1, (float)(std::chrono::duration<double, std::milli>(t1 - t0).count() / reps));
        return out;
    }
    if (!strcmp(mode, "b")) {
        cudaEvent_t e0, e1;
        CHECK(cudaEventCreate(&e0));
        CHECK(cudaEventCreate(&e1));
        CHECK(cudaEventRecord(e0));
        for (int i = 0; i < reps; i++) CHECK(call());
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        out.assign(1, ms / reps);
        CHECK(cudaEventDestroy(e0));
        CHECK(cudaEventDestroy(e1));
        return out;
    }
    const bool gated = !strcmp(mode, "g");
    if (gated) *(volatile int*)a.go = 0;
    std::vector<cudaEvent_t> ev(2 * reps);
    for (cudaEvent_t& e : ev) CHECK(cudaEventCreate(&e));
    for (int i = 0; i < reps; i++) {
        if (copy) CHECK(cudaMemcpyAsync(a.c, a.clean, a.bytes, cudaMemcpyDeviceToDevice));
        if (gated) gate<<<1, 1>>>(a.go_dev, i + 1);  // held until call i is queued
        CHECK(cudaEventRecord(ev[2 * i]));
        CHECK(call());
        CHECK(cudaEventRecord(ev[2 * i + 1]));
        if (gated) *(volatile int*)a.go = i + 1;
        if (check) read4<<<a.sms * 8, 256>>>((const unsigned*)a.c, a.x, a.y, a.z, a.bytes / 4, a.sink);
        if (sync) CHECK(cudaEventSynchronize(ev[2 * i + 1]));
    }
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        float ms;
        CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
        out.push_back(ms);
    }
    for (cudaEvent_t& e : ev) CHECK(cudaEventDestroy(e));
    return out;
}

int main(int argc, char** argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 50;
    if (reps < 5) {
        fprintf(stderr, "usage: %s [REPS >= 5] [MxNxK[:transa,transb] ...]\n", argv[0]);
        return 2;
    }
    std::vector<Shape> shapes;
    for (int i = 2; i < argc; i++) {
        Shape s;
#ifdef HB_SGEMM
        const bool bad = !parse(argv[i], &s) || s.ta || s.tb;  // sgemm: one layout
        const char* form = "MxNxK";
#else
        const bool bad = !parse(argv[i], &s);
        const char* form = "MxNxK or MxNxK:transa,transb (0 or 1)";
#endif
        if (bad) {
            fprintf(stderr, "%s: '%s' is not %s\n", argv[0], argv[i], form);
            return 2;
        }
        shapes.push_back(s);
    }
    if (shapes.empty()) shapes.assign(std::begin(kTune), std::end(kTune));
    std::vector<std::string> modes;
    {
        const char* m = getenv("HB_MODES") ? getenv("HB_MODES") : "s";
        char word[8];
        int used = 0;
        while (sscanf(m, " %7s%n", word, &used) == 1) {
            const std::string w = word;
            if (w != "s" && w != "q" && w != "c" && w != "k" && w != "ck" && w != "b" && w != "h" &&
                w != "g") {
                fprintf(stderr, "%s: HB_MODES: '%s' is not one of s q c k ck b h g\n", argv[0], word);
                return 2;
            }
            modes.push_back(w);
            m += used;
        }
        if (modes.empty()) modes.push_back("s");
    }
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    size_t most = 0;  // elements of the largest operand
    for (const Shape& s : shapes)
        most = std::max({most, (size_t)s.m * s.k, (size_t)s.k * s.n, (size_t)s.m * s.n});
    elem_t *a, *b, *c;
    CHECK(cudaMalloc(&a, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&b, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&c, most * sizeof(elem_t)));
    fill<<<1024, 256>>>(a, most, 1u);
    fill<<<1024, 256>>>(b, most, 2u);
    fill<<<1024, 256>>>(c, most, 3u);
    CHECK(cudaDeviceSynchronize());
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    // bench's scalars (problems/gemm_bf16.lua); HB_BETA=0 times C = alpha A B, which
    // reads no C (what most programs call)
    const float alpha = 1.25f, beta = getenv("HB_BETA") ? (float)atof(getenv("HB_BETA")) : -0.75f;
    // the runner-like ways' buffers: C's pristine copy and three more of its size
    void *clean, *x, *y, *z;
    unsigned* sink;
    CHECK(cudaMalloc(&clean, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&x, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&y, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&z, most * sizeof(elem_t)));
    CHECK(cudaMalloc(&sink, 4));
    int *go = nullptr, *go_dev = nullptr;  // ways h and g: the gate's flag
    CHECK(cudaHostAlloc((void**)&go, sizeof *go, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void**)&go_dev, go, 0));
    for (void* p : {clean, x, y, z}) fill<<<1024, 256>>>((elem_t*)p, most, 4u);
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceSynchronize());
    printf("alpha %.2f, beta %.2f\n", alpha, beta);
    printf("%-24s %-4s %10s %10s %8s  %s\n", "shape (transa,transb)", "way", "tuned ms", "cuBLAS ms", "ratio",
           "header path");
    std::vector<double> log_sum(modes.size(), 0.0);
    for (const Shape& s : shapes) {
        // packed: lda, ldb, ldc as the problem's defaults
        const int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n, ldc = s.n;
#ifdef HB_SGEMM
        auto tuned = [&] { return bartune_sgemm(s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc); };
        auto cublas = [&] {
            cublasStatus_t st =
                cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, b, ldb, a, lda, &beta, c, ldc);
            return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
        };
        bartune_sgemm_path_t p = bartune_sgemm_path(s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc);
#else
        auto tuned = [&] { return bartune_gemm_bf16(s.ta, s.tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc); };
        auto cublas = [&] {
            cublasStatus_t st = cublasGemmEx(h, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                             s.n, s.m, s.k, &alpha, b, CUDA_R_16BF, ldb, a, CUDA_R_16BF, lda, &beta, c,
                                             CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
        };
        bartune_gemm_bf16_path_t p = bartune_gemm_bf16_path(s.ta, s.tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc);
#endif
        const Around around{c, clean, (const unsigned*)x, (const unsigned*)y, (const unsigned*)z, sink,
                            (size_t)s.m * s.n * sizeof(elem_t), sms, go, go_dev};
        timed("s", 5, around, tuned), timed("s", 5, around, cublas);  // warm-up: first-call checks, clocks
        char label[64];
        snprintf(label, sizeof label, "%dx%dx%d (%d,%d)", s.m, s.n, s.k, s.ta, s.tb);
        for (size_t w = 0; w < modes.size(); w++) {
            std::vector<float> mt, mc;
            for (int round = 0; round < 3; round++) {
                for (float ms : timed(modes[w].c_str(), reps, around, tuned)) mt.push_back(ms);
                for (float ms : timed(modes[w].c_str(), reps, around, cublas)) mc.push_back(ms);
            }
            const double tm = median(mt), cm = median(mc);
            printf("%-24s %-4s %10.4f %10.4f %8.2f  %s%s%s\n", label, modes[w].c_str(), tm, cm, cm / tm,
                   p.why ? "NOT TUNED: " : "tuned ", p.name, p.why ? p.why : "");
            log_sum[w] += std::log(cm / tm);
        }
    }
    for (size_t w = 0; w < modes.size(); w++)
        printf("geomean cuBLAS / tuned over %zu shapes, way %s: %.3f (%d calls each, three rounds, medians)\n",
               shapes.size(), modes[w].c_str(), std::exp(log_sum[w] / shapes.size()), reps);
    return 0;
}
