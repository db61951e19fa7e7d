/* The sgemm CPU reference against a plain triple loop in long double, at
 * shapes with odd sizes and leading dimensions, split into several parts:
 * expected values agree, the bound holds for a float evaluation, catches a
 * dropped k-step, and elements between rows stay as they were. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sgemm/reference.c"

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static float uniform(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
}

static void one(long long M, long long N, long long K, long long lda, long long ldb, long long ldc,
                int parts) {
    size_t la = (size_t)((M - 1) * lda + K), lb = (size_t)((K - 1) * ldb + N),
           lc = (size_t)((M - 1) * ldc + N);
    float *a = malloc(la * 4), *b = malloc(lb * 4), *c = malloc(lc * 4);
    double *expect = malloc(lc * 8), *bound = malloc(lc * 8), *scale = malloc(lc * 8);
    unsigned st = 7;
    for (size_t i = 0; i < la; i++) a[i] = uniform(&st);
    for (size_t i = 0; i < lb; i++) b[i] = uniform(&st);
    for (size_t i = 0; i < lc; i++) c[i] = uniform(&st);
    const char *size_names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    const long long sizes[] = {M, N, K, lda, ldb, ldc};
    const char *scalar_names[] = {"alpha", "beta"};
    const double scalars[] = {1.25, -0.75};
    bt_buffer bufs[] = {{"A", "float", "in", la, a, NULL, NULL, NULL},
                        {"B", "float", "in", lb, b, NULL, NULL, NULL},
                        {"C", "float", "inout", lc, c, expect, bound, scale}};
    bt_problem p = {6, size_names, sizes, 2, scalar_names, scalars, 3, bufs, ""};
    for (int part = 0; part < parts; part++)
        CHECK(sgemm(&p, part, parts) == 0, "%s", p.error);
    int dropped_caught = 0, elements = 0;
    for (long long i = 0; i < M; i++)
        for (long long j = 0; j < ldc && i * ldc + j < (long long)lc; j++) {
            const size_t at = (size_t)(i * ldc + j);
            if (j >= N) continue; /* the padding is the runner's (C is a view) */
            long double exact = 0;
            float f = 0, dropped = 0;
            for (long long k = 0; k < K; k++) {
                exact += (long double)a[i * lda + k] * b[k * ldb + j];
                f = fmaf(a[i * lda + k], b[k * ldb + j], f);
                if (k != K / 2) dropped = fmaf(a[i * lda + k], b[k * ldb + j], dropped);
            }
            exact = 1.25L * exact - 0.75L * c[at];
            float got = 1.25f * f + -0.75f * c[at], bad = 1.25f * dropped + -0.75f * c[at];
            CHECK(fabsl(exact - expect[at]) < 1e-9L * (1 + fabsl(exact)),
                  "%lldx%lldx%lld (%lld,%lld): expect %.17g, exact %.17Lg", M, N, K, i, j,
                  expect[at], exact);
            CHECK(fabs(got - expect[at]) <= bound[at],
                  "%lldx%lldx%lld (%lld,%lld): a float evaluation is %g off, bound %g", M, N, K, i,
                  j, fabs(got - expect[at]), bound[at]);
            elements++;
            dropped_caught += fabs(bad - expect[at]) > bound[at];
        }
    /* |a b| is below the bound only where a or b is tiny: a dropped k-step
     * shows in nearly every element. */
    CHECK(K < 64 || dropped_caught > elements * 9 / 10,
          "%lldx%lldx%lld: a dropped k-step caught in only %d of %d elements", M, N, K,
          dropped_caught, elements);
    free(a), free(b), free(c), free(expect), free(bound), free(scale);
}

/* beta = 0: C is not read (BLAS; the problem's unset_when_zero fills it with
 * NaN there): the expected values are alpha A B, bounds and scales finite. */
static void unset_c(void) {
    enum { M = 5, N = 6, K = 7 };
    float a[M * K], b[K * N], c[M * N];
    double expect[M * N], bound[M * N], scale[M * N];
    unsigned st = 3;
    for (int i = 0; i < M * K; i++) a[i] = uniform(&st);
    for (int i = 0; i < K * N; i++) b[i] = uniform(&st);
    for (int i = 0; i < M * N; i++) c[i] = NAN;
    const char *size_names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    const long long sizes[] = {M, N, K, K, N, N};
    const char *scalar_names[] = {"alpha", "beta"};
    const double scalars[] = {1.25, 0};
    bt_buffer bufs[] = {{"A", "float", "in", M * K, a, NULL, NULL, NULL},
                        {"B", "float", "in", K * N, b, NULL, NULL, NULL},
                        {"C", "float", "inout", M * N, c, expect, bound, scale}};
    bt_problem p = {6, size_names, sizes, 2, scalar_names, scalars, 3, bufs, ""};
    CHECK(sgemm(&p, 0, 1) == 0, "%s", p.error);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long double exact = 0;
            for (int k = 0; k < K; k++) exact += (long double)a[i * K + k] * b[k * N + j];
            exact *= 1.25L;
            CHECK(fabsl(exact - expect[i * N + j]) < 1e-9L * (1 + fabsl(exact)) &&
                      isfinite(bound[i * N + j]) && isfinite(scale[i * N + j]),
                  "beta = 0, C NaN, at (%d,%d): expect %g (alpha A B %Lg), bound %g, scale %g", i,
                  j, expect[i * N + j], exact, bound[i * N + j], scale[i * N + j]);
        }
}

int main(void) {
    one(1, 1, 1, 1, 1, 1, 1);
    one(7, 33, 1, 1, 33, 33, 3);
    one(33, 7, 1000, 1001, 9, 13, 4);
    one(70, 300, 257, 257, 301, 333, 5);
    one(1, 1000, 64, 64, 1000, 1000, 2);
    one(300, 600, 40, 41, 601, 605, 4); /* 3 x 3 blocks of 128 x 256, ragged both ways */
    unset_c();
    if (failures) fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
