// A program of two translation units that include kernels/sgemm.cuh and just
// call bartune_sgemm, as a user would: random shapes (M, N or K of 1, 7, 33,
// 1000), odd leading dimensions and offset pointers, from both units; each
// result within the bound of problems/sgemm.lua against a double loop here;
// a size within 4096 of INT_MAX is cudaErrorInvalidValue.
// Usage: sgemm_consumer [expect-tuned|any]   (exit 77 without a GPU)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sgemm.cuh"

// sgemm_other.cu: the same header, the other translation unit.
cudaError_t other_unit_sgemm(int M, int N, int K, float alpha, const float* A, int lda,
                             const float* B, int ldb, float beta, float* C, int ldc, cudaStream_t s);

#include "cuda_check.h"

static bool expect_tuned;
static unsigned rng = 12345;
static float uniform() {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
}

// One call: C = alpha A B + beta C with A at offset `off` floats.
static bool check(int M, int N, int K, int lda, int ldb, int ldc, int off, bool other) {
    const float alpha = 1.5f, beta = -0.5f;
    size_t la = (size_t)(M - 1) * lda + K + off, lb = (size_t)(K - 1) * ldb + N,
           lc = (size_t)(M - 1) * ldc + N;
    std::vector<float> a(la), b(lb), c(lc), got(lc);
    for (auto& v : a) v = uniform();
    for (auto& v : b) v = uniform();
    for (auto& v : c) v = uniform();
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, la * 4));
    CHECK(cudaMalloc(&db, lb * 4));
    CHECK(cudaMalloc(&dc, lc * 4));
    CHECK(cudaMemcpy(da, a.data(), la * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), lb * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), lc * 4, cudaMemcpyHostToDevice));
    const char* variant = bartune_sgemm_variant(M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc);
    CHECK(other ? other_unit_sgemm(M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc, 0)
                : bartune_sgemm(M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), dc, lc * 4, cudaMemcpyDeviceToHost));
    cudaFree(da), cudaFree(db), cudaFree(dc);
    const double u = ldexp(1.0, -24), gamma = (K + 2) * u / (1 - (K + 2) * u);
    long bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc && (size_t)i * ldc + j < lc; j++) {
            size_t at = (size_t)i * ldc + j;
            if (j >= N) {  // between rows: untouched
                bad += memcmp(&got[at], &c[at], 4) != 0;
                continue;
            }
            double sum = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = (double)a[off + (size_t)i * lda + k] * b[(size_t)k * ldb + j];
                sum += p;
                mag += fabs(p);
            }
            double want = alpha * sum + beta * (double)c[at];
            double bound = gamma * (fabs(alpha) * mag + fabs(beta * (double)c[at]));
            if (!(fabs(got[at] - want) <= bound) && bad++ == 0)
                printf("  (%d,%d): got %.9g, want %.9g, bound %.3g\n", i, j, got[at], want, bound);
        }
    printf("M=%d N=%d K=%d lda=%d ldb=%d ldc=%d A+%d (%s): %s: %s\n", M, N, K, lda, ldb, ldc, off,
           other ? "other unit" : "this unit", variant, bad ? "WRONG" : "within the bound");
    if (expect_tuned && bartune_sgemm_path(M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc).variant < 0) {
        printf("  expected a tuned variant for this device, got the portable one\n");
        return false;
    }
    return bad == 0;
}

int main(int argc, char** argv) {
    skip_without_gpu();
    expect_tuned = argc > 1 && !strcmp(argv[1], "expect-tuned");
    const int dims[] = {1, 7, 33, 1000};
    bool ok = true;
    int n = 0;
    for (int M : dims)
        for (int N : dims)
            for (int K : dims) {
                if ((long long)M * N * K > 40000000LL) continue;  // the CPU check's time
                const int pad = n % 3;                           // 0: tight, else odd
                ok = check(M, N, K, K + pad, N + 2 * pad, N + pad, n % 4, n % 2) && ok;
                n++;
            }
    ok = check(1000, 1000, 33, 33, 1000, 1000, 0, false) && ok;  // aligned: the vector paths
    ok = check(512, 512, 512, 512, 512, 512, 0, true) && ok;
    if (bartune_sgemm(0, 5, 5, 1.0f, nullptr, 5, nullptr, 5, 0.0f, nullptr, 5) != cudaSuccess) {
        printf("M=0 did not return cudaSuccess\n");
        ok = false;
    }
    {  // a size within 4096 of INT_MAX: refused, not computed with wrapped tile arithmetic
        float* d;
        CHECK(cudaMalloc(&d, 1024));
        const int big = 2147483647 - 8;
        if (bartune_sgemm(1, 1, big, 1.0f, d, big, d, 1, 0.0f, d, 1) != cudaErrorInvalidValue ||
            bartune_sgemm(1, big, 1, 1.0f, d, 1, d, big, 0.0f, d, big) != cudaErrorInvalidValue) {
            printf("a size within 4096 of INT_MAX did not return cudaErrorInvalidValue\n");
            ok = false;
        }
        cudaFree(d);
    }
    printf(ok ? "all within the bound\n" : "FAILED\n");
    return ok ? 0 : 1;
}
