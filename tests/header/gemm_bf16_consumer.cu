// A program of two translation units that include kernels/gemm_bf16.cuh and
// just call bartune_gemm_bf16, as a user would: in the four layouts (A, B
// row-major or stored transposed), shapes whose rows the copy engine takes
// (leading dimensions multiples of 8, aligned pointers: the tensor-core
// path) and shapes it refuses (odd leading dimensions, offset pointers: the
// plain path), M, N or K of 1, 7, 33, 1000, from both units; each result
// within the bound of problems/gemm_bf16.lua against a double loop here; a
// layout other than 0 or 1, or a size within 4096 of INT_MAX, is
// cudaErrorInvalidValue. Usage: gemm_bf16_consumer [expect-tuned|any] (exit 77 without a GPU)
// With GEMM_F32C defined (gemm_bf16_f32c_consumer.cu), the same of
// kernels/gemm_bf16_f32c.cuh: C in fp32, within problems/gemm_bf16_f32c.lua's
// bound (no bf16 rounding of the result).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gemm_c_type.h"
#include GEMM_HEADER

// gemm_bf16_other.cu: the same header, the other translation unit.
cudaError_t other_unit_gemm(int transa, int transb, int M, int N, int K, float alpha, const __nv_bfloat16* A,
                            int lda, const __nv_bfloat16* B, int ldb, float beta, gemm_c* C, int ldc,
                            cudaStream_t s);

#include "cuda_check.h"

static bool expect_tuned;
static unsigned rng = 12345;
static __nv_bfloat16 uniform() {
    rng = rng * 1664525u + 1013904223u;
    return __float2bfloat16((float)(rng >> 8) / (float)(1u << 24) * 2.0f - 1.0f);
}
static double f(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
[[maybe_unused]] static double f(float v) { return v; }

// One call: C = alpha op(A) op(B) + beta C with A at offset `off` elements;
// lda and ldb are the stored rows' (K or M for A, N or K for B) plus pads.
static bool check(int ta, int tb, int M, int N, int K, int pad_a, int pad_b, int ldc, int off,
                  bool other) {
    const float alpha = 1.5f, beta = -0.5f;
    const int lda = (ta ? M : K) + pad_a, ldb = (tb ? K : N) + pad_b;
    size_t la = (size_t)((ta ? K : M) - 1) * lda + (ta ? M : K) + off,
           lb = (size_t)((tb ? N : K) - 1) * ldb + (tb ? K : N), lc = (size_t)(M - 1) * ldc + N;
    std::vector<__nv_bfloat16> a(la), b(lb);
    std::vector<gemm_c> c(lc), got(lc);
    for (auto& v : a) v = uniform();
    for (auto& v : b) v = uniform();
    for (auto& v : c) v = gemm_c(__bfloat162float(uniform()));
    const size_t cb = sizeof(gemm_c);
    __nv_bfloat16 *da, *db;
    gemm_c* dc;
    CHECK(cudaMalloc(&da, la * 2));
    CHECK(cudaMalloc(&db, lb * 2));
    CHECK(cudaMalloc(&dc, lc * cb));
    CHECK(cudaMemcpy(da, a.data(), la * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), lb * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), lc * cb, cudaMemcpyHostToDevice));
    const char* variant = GEMM_FN(_variant)(ta, tb, M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc);
    CHECK(other ? other_unit_gemm(ta, tb, M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc, 0)
                : GEMM_FN()(ta, tb, M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), dc, lc * cb, cudaMemcpyDeviceToHost));
    cudaFree(da), cudaFree(db), cudaFree(dc);
    // the result's rounding: to bf16, or (C in fp32) none past the fp32 sums'
    const double u = ldexp(1.0, -23), gamma = (K + 2) * u / (1 - (K + 2) * u), r = ldexp(1.0, GEMM_C_ROUNDING);
    long bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc && (size_t)i * ldc + j < lc; j++) {
            size_t at = (size_t)i * ldc + j;
            if (j >= N) {  // between rows: untouched
                bad += memcmp(&got[at], &c[at], cb) != 0;
                continue;
            }
            double sum = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                const size_t ai = ta ? (size_t)k * lda + i : (size_t)i * lda + k;
                const size_t bi = tb ? (size_t)j * ldb + k : (size_t)k * ldb + j;
                double p = f(a[off + ai]) * f(b[bi]);
                sum += p;
                mag += fabs(p);
            }
            double want = alpha * sum + beta * f(c[at]);
            double e = gamma * (fabs(alpha) * mag + fabs(beta * f(c[at])));
            double bound = e * (1 + r) + r * fabs(want);
            if (!(fabs(f(got[at]) - want) <= bound) && bad++ == 0)
                printf("  (%d,%d): got %.6g, want %.6g, bound %.3g\n", i, j, f(got[at]), want, bound);
        }
    printf("transa=%d transb=%d M=%d N=%d K=%d lda=%d ldb=%d ldc=%d A+%d (%s): %s: %s\n", ta, tb, M,
           N, K, lda, ldb, ldc, off, other ? "other unit" : "this unit", variant,
           bad ? "WRONG" : "within the bound");
    // the calls the tuned variants serve (templates/gemm_bf16/host.cuh): leading
    // dimensions multiples of 8, 16-byte aligned matrices (cudaMalloc's are)
    const bool servable = lda % 8 == 0 && ldb % 8 == 0 && ldc % 8 == 0 && off % 8 == 0 && K >= 1;
    const GEMM_FN(_path_t) path = GEMM_FN(_path)(ta, tb, M, N, K, alpha, da + off, lda, db, ldb, beta, dc, ldc);
    // a layout the problem tunes at no size is the portable variant's, and
    // the header says so
    const bool tuned_layout = ta == 0 || GEMM_TUNED_TRANSA1;
    if (expect_tuned && servable && tuned_layout && (path.variant < 0 || path.why)) {
        printf("  expected a tuned variant for this call on this device, took the fallback: %s\n",
               path.why ? path.why : "(no reason given)");
        return false;
    }
    if (expect_tuned && !tuned_layout && (path.variant >= 0 || !path.why || !strstr(path.why, "no variant was tuned"))) {
        printf("  a layout tuned at no size: expected the portable variant, said so; got %s\n",
               path.why ? path.why : "a tuned variant");
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
                const int ta = (n / 2) % 2, tb = n % 2;          // the layouts in turn
                ok = check(ta, tb, M, N, K, pad, 2 * pad, N + pad, n % 4, n % 2) && ok;
                n++;
            }
    // the copy engine's path: leading dimensions multiples of 8, partial
    // tiles, in every layout
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            ok = check(ta, tb, 1000, 1000, 40, 0, 0, 1000, 0, false) && ok;
            ok = check(ta, tb, 333, 200, 100, ta ? 3 : 4, 0, 203, 8, true) && ok;
            ok = check(ta, tb, 1024, 1024, 512, 0, 8, 1024, 0, true) && ok;
            ok = check(ta, tb, 129, 4104, 72, ta ? 7 : 0, 0, 4104, 0, false) && ok;
            ok = check(ta, tb, 7, 8, 8, ta ? 1 : 0, 0, 8, 0, true) && ok;
        }
    if (GEMM_FN()(0, 0, 0, 5, 5, 1.0f, nullptr, 5, nullptr, 5, 0.0f, nullptr, 5) != cudaSuccess) {
        printf("M=0 did not return cudaSuccess\n");
        ok = false;
    }
    for (int bad : {-1, 2})
        if (GEMM_FN()(bad, 0, 8, 8, 8, 1.0f, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8) != cudaErrorInvalidValue ||
            GEMM_FN()(0, bad, 8, 8, 8, 1.0f, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8) != cudaErrorInvalidValue) {
            printf("a layout of %d did not return cudaErrorInvalidValue\n", bad);
            ok = false;
        }
    {  // a size within 4096 of INT_MAX: refused, not computed with wrapped tile arithmetic
        __nv_bfloat16* d;
        gemm_c* dc;
        CHECK(cudaMalloc(&d, 1024));
        CHECK(cudaMalloc(&dc, 1024));
        const int big = 2147483647 - 8;
        if (GEMM_FN()(0, 0, 8, 8, big, 1.0f, d, big, d, 8, 0.0f, dc, 8) != cudaErrorInvalidValue ||
            GEMM_FN()(0, 0, 8, big, 8, 1.0f, d, 8, d, big, 0.0f, dc, big) != cudaErrorInvalidValue) {
            printf("a size within 4096 of INT_MAX did not return cudaErrorInvalidValue\n");
            ok = false;
        }
        cudaFree(d);
        cudaFree(dc);
    }
    printf(ok ? "all within the bound\n" : "FAILED\n");
    return ok ? 0 : 1;
}
