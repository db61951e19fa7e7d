// gemm_bf16 as a program calls it: bartune_gemm_bf16 through the emitted
// header (kernels/gemm_bf16.cuh) beside cublasGemmEx on the same inputs,
// each call timed with events, the two alternating call by call (so both
// see the same clocks and power), median of REPS after a warm-up. Prints,
// per shape and layout, the path the header takes, tuned ms, cuBLAS ms,
// cuBLAS / tuned speed, and the geomean; issue 25 compares it with bench's.
//
//   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I kernels
//        tools/header-bench.cu -lcublas -o /tmp/header-bench
//   [HB_BETA=0] /tmp/header-bench [REPS] [MxNxK[:transa,transb] ...]   (default: the tune list)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <vector>

#include "gemm_bf16.cuh"

#define CHECK(x)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

struct Shape {
    int m, n, k, ta, tb;
};

// problems/gemm_bf16.lua's tune list
static const Shape kTune[] = {
    {4096, 4096, 4096, 0, 0}, {8192, 8192, 8192, 0, 0}, {2048, 2048, 2048, 0, 0},
    {1024, 1024, 1024, 0, 0}, {16384, 128, 4096, 0, 0}, {4096, 4096, 256, 0, 0},
    {256, 256, 16384, 0, 0},  {4096, 4096, 4096, 0, 1}, {8192, 8192, 8192, 0, 1},
    {2048, 2048, 2048, 0, 1}, {1024, 1024, 1024, 0, 1}, {16384, 128, 4096, 0, 1},
    {4096, 4096, 256, 0, 1},  {256, 256, 16384, 0, 1},  {4096, 4096, 4096, 1, 0},
    {4096, 4096, 4096, 1, 1},
};

static bool parse(const char* s, Shape* out) {
    *out = Shape{0, 0, 0, 0, 0};
    int got = sscanf(s, "%dx%dx%d:%d,%d", &out->m, &out->n, &out->k, &out->ta, &out->tb);
    return (got == 3 || got == 5) && out->m > 0 && out->n > 0 && out->k > 0 && (out->ta | out->tb) >= 0 &&
           out->ta <= 1 && out->tb <= 1;
}

__global__ void fill(__nv_bfloat16* p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = __float2bfloat16((h & 0xffff) / 32768.0f - 1.0f);  // uniform in [-1, 1)
    }
}

static double median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
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
        if (!parse(argv[i], &s)) {
            fprintf(stderr, "%s: '%s' is not MxNxK or MxNxK:transa,transb (0 or 1)\n", argv[0], argv[i]);
            return 2;
        }
        shapes.push_back(s);
    }
    if (shapes.empty()) shapes.assign(std::begin(kTune), std::end(kTune));
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "no GPU\n");
        return 77;
    }
    size_t most = 0;  // elements of the largest operand
    for (const Shape& s : shapes)
        most = std::max({most, (size_t)s.m * s.k, (size_t)s.k * s.n, (size_t)s.m * s.n});
    __nv_bfloat16 *a, *b, *c;
    CHECK(cudaMalloc(&a, most * 2));
    CHECK(cudaMalloc(&b, most * 2));
    CHECK(cudaMalloc(&c, most * 2));
    fill<<<1024, 256>>>(a, most, 1u);
    fill<<<1024, 256>>>(b, most, 2u);
    fill<<<1024, 256>>>(c, most, 3u);
    CHECK(cudaDeviceSynchronize());
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    // bench's scalars (problems/gemm_bf16.lua); HB_BETA=0 times C = alpha A B, which
    // reads no C (what most programs call)
    const float alpha = 1.25f, beta = getenv("HB_BETA") ? (float)atof(getenv("HB_BETA")) : -0.75f;
    printf("alpha %.2f, beta %.2f\n", alpha, beta);
    printf("%-24s %10s %10s %8s  %s\n", "shape (transa,transb)", "tuned ms", "cuBLAS ms", "ratio", "header path");
    double log_sum = 0;
    for (const Shape& s : shapes) {
        // packed: lda, ldb, ldc as the problem's defaults
        const int lda = s.ta ? s.m : s.k, ldb = s.tb ? s.k : s.n, ldc = s.n;
        auto tuned = [&] { return bartune_gemm_bf16(s.ta, s.tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc); };
        auto cublas = [&] {
            cublasStatus_t st = cublasGemmEx(h, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                             s.n, s.m, s.k, &alpha, b, CUDA_R_16BF, ldb, a, CUDA_R_16BF, lda, &beta, c,
                                             CUDA_R_16BF, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
        };
        auto time = [&](auto call) {
            CHECK(cudaEventRecord(t0));
            CHECK(call());
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            return ms;
        };
        for (int i = 0; i < 5; i++) time(tuned), time(cublas);  // warm-up: first-call checks, clocks
        std::vector<float> mt, mc;
        for (int i = 0; i < reps; i++) mt.push_back(time(tuned)), mc.push_back(time(cublas));
        const double tm = median(mt), cm = median(mc);
        bartune_gemm_bf16_path_t p = bartune_gemm_bf16_path(s.ta, s.tb, s.m, s.n, s.k, alpha, a, lda, b, ldb, beta, c, ldc);
        char label[64];
        snprintf(label, sizeof label, "%dx%dx%d (%d,%d)", s.m, s.n, s.k, s.ta, s.tb);
        printf("%-24s %10.4f %10.4f %8.2f  %s%s%s\n", label, tm, cm, cm / tm, p.why ? "NOT TUNED: " : "tuned ",
               p.name, p.why ? p.why : "");
        log_sum += std::log(cm / tm);
    }
    printf("geomean cuBLAS / tuned over %zu shapes: %.3f (%d calls each, medians, events per call)\n", shapes.size(),
           std::exp(log_sum / shapes.size()), reps);
    return 0;
}
