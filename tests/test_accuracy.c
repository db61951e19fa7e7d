/* The accuracy test of the GEMM problems (their `accuracy` and the scale
 * their references write) against evaluations done here: at the K of every
 * tuned shape of the problem, honest orders of fp32 (in k, reversed, fused
 * or not, k-tiles summed, split-K slices, pairwise, truncating adds for the
 * tensor cores, and a long-double loop) stay within the problem's RMS and
 * maximum, while TF32 inputs, a relative error of 1e-3 or 1e-5, and (bf16)
 * C truncated instead of rounded are caught; gemm_bf16_f32c (C in fp32,
 * not rounded to bf16) likewise, with C rounded to bf16 as its fault. At K = 1 and 2 the outputs of
 * few elements the check sizes have (M = N = 1: one) are checked too: each
 * run of 1, 4 or 16 elements of an honest order passes the runner's limit
 * for that many (runner/accuracy_limit.h), where the plain RMS limit fails
 * some. The limits are read from the problem file, so the test checks what
 * ships.
 *
 *   test_accuracy sgemm gen/problems/sgemm.lua
 *   test_accuracy gemm_bf16 gen/problems/gemm_bf16.lua
 *   test_accuracy gemm_bf16_f32c gen/problems/gemm_bf16_f32c.lua
 */
#include <fenv.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_limit.h"
#include "bartune_reference.h"

/* Both references in one program: each under its own names. */
#define bartune_references sgemm_references
#define block sgemm_block
#define gemm sgemm_gemm
#include "sgemm/reference.c"
#undef bartune_references
#undef block
#undef gemm
#define bartune_references bf16_references
#define block bf16_block
#define gemm bf16_gemm
#define ROWS BF16_ROWS
#define COLS BF16_COLS
#define KC BF16_KC
#define SCRATCH BF16_SCRATCH
#include "gemm_bf16/reference.c"

enum { M = 64, N = 64 }; /* 4096 elements per K: enough for the RMS and the tails */

static uint32_t rng = 12345;
static float uniform(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
}
/* The second input set's distribution (the problems' init2): a random sign,
 * magnitudes log-uniform from 2^-10 to 2^17. */
static bool wide;
static float draw(void) {
    if (!wide) return uniform();
    const float u = (uniform() + 1.0f) / 2.0f, sign = uniform() < 0 ? -1.0f : 1.0f;
    return sign * exp2f(-10.0f + 27.0f * u);
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint16_t to_bf16(float f) { /* nearest even */
    uint32_t u = bits(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float bf16f(uint16_t h) {
    return from_bits((uint32_t)h << 16);
}
static float tf32(float f) { /* 10 explicit mantissa bits, nearest */
    uint32_t u = bits(f);
    return from_bits((u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu);
}

typedef enum {
    IN_K,
    REVERSED,
    UNFUSED,
    KTILES,
    SPLIT8,
    PAIRWISE,
    TRUNCATING,
    LONG_DOUBLE,
    HONEST,
    TF32 = HONEST,
    REL_1E3,
    REL_1E5,
    TRUNCATED_C,
    ORDERS
} order;
static const char *NAMES[ORDERS] = {
    "fp32 fma in k",        "fp32 fma reversed",   "fp32 multiply then add",
    "k-tiles of 32 summed", "split-K 8",           "pairwise",
    "truncating adds",      "long double",         "TF32 inputs",
    "relative error 1e-3",  "relative error 1e-5", "C truncated to bf16"};
/* gemm_bf16_f32c: bf16 inputs, C in fp32; its fault in TRUNCATED_C's place */
static bool f32c;
/* bf16 inputs are exact in TF32, and a relative 1e-5 is far below C's
 * rounding: for gemm_bf16 the relative error tried is one bf16 ulp. */
static const float BF16_REL = 1.0f / 256;

static int K;
static float *a, *b, *c; /* as floats (bf16 values for gemm_bf16) */

static float prod(int i, int j, int k, bool t32) {
    float x = a[i * K + k], y = b[k * N + j];
    return t32 ? tf32(x) * tf32(y) : x * y;
}

/* Sum of k in [k0, k1) in fp32, in k, with fma. */
static float run(int i, int j, int k0, int k1, float s) {
    for (int k = k0; k < k1; k++)
        s = fmaf(a[i * K + k], b[k * N + j], s);
    return s;
}

static float pairwise(int i, int j, int k0, int k1) {
    if (k1 - k0 <= 8) return run(i, j, k0, k1, 0);
    int m = (k0 + k1) / 2;
    return pairwise(i, j, k0, m) + pairwise(i, j, m, k1);
}

/* alpha * sum + beta * c as an fp32 kernel ends, at element (i, j). */
static double evaluate(order o, int i, int j, bool bf16_out) {
    const float alpha = 1.25f, beta = -0.75f, cv = c[i * N + j];
    float s = 0;
    switch (o) {
    case REVERSED:
        for (int k = K - 1; k >= 0; k--)
            s = fmaf(a[i * K + k], b[k * N + j], s);
        break;
    case UNFUSED:
        for (int k = 0; k < K; k++)
            s += prod(i, j, k, false);
        break;
    case KTILES:
        for (int k0 = 0; k0 < K; k0 += 32)
            s += run(i, j, k0, k0 + 32 < K ? k0 + 32 : K, 0);
        break;
    case SPLIT8:
        for (int p = 0; p < 8; p++)
            s += run(i, j, K * p / 8, K * (p + 1) / 8, 0);
        break;
    case PAIRWISE:
        s = pairwise(i, j, 0, K);
        break;
    case TRUNCATING:
        fesetround(FE_TOWARDZERO);
        s = run(i, j, 0, K, 0);
        fesetround(FE_TONEAREST);
        break;
    case LONG_DOUBLE: {
        long double x = 0;
        for (int k = 0; k < K; k++)
            x += (long double)a[i * K + k] * b[k * N + j];
        s = (float)x;
        break;
    }
    case TF32:
        for (int k = 0; k < K; k++)
            s += prod(i, j, k, true);
        break;
    default:
        s = run(i, j, 0, K, 0);
    }
    float r = fmaf(alpha, s, beta * cv);
    if (o == REL_1E3) r *= 1 + (bf16_out ? BF16_REL : 1e-3f);
    if (o == REL_1E5) r *= 1 + 1e-5f;
    if (f32c && o == TRUNCATED_C) return bf16f(to_bf16(r)); /* C rounded to bf16 */
    if (!bf16_out) return r;
    if (o == TRUNCATED_C) return bf16f((uint16_t)(bits(r) >> 16));
    return bf16f(to_bf16(r));
}

/* Reads "rms = X, max = Y" of the accuracy line of a problem file. */
static bool limits(const char *path, double *rms, double *max) {
    FILE *f = fopen(path, "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        const char *r = strstr(line, "accuracy = {"), *x = r ? strstr(r, "rms = ") : NULL,
                   *y = r ? strstr(r, "max = ") : NULL;
        found = x && y && sscanf(x, "rms = %lf", rms) == 1 && sscanf(y, "max = %lf", max) == 1;
    }
    if (f) fclose(f);
    return found;
}

/* An honest order's errors z (units of the scale) as outputs of n = 1, 4
 * and 16 elements (runs of consecutive ones): each passes the runner's
 * limits for n elements; how many the plain RMS limit would reject is
 * printed (the false positive the runner's limit closes). */
static int few_elements(const double *zs, const char *name, double rms_limit, double max_limit) {
    int fail = 0;
    for (int n = 1; n <= 16; n *= 4) {
        int plain = 0, rejected = 0;
        for (int g = 0; g + n <= M * N; g += n) {
            double z2 = 0, zmax = 0;
            for (int e = g; e < g + n; e++)
                z2 += zs[e] * zs[e], zmax = fmax(zmax, zs[e]);
            const double rms = sqrt(z2 / n);
            plain += rms > rms_limit;
            rejected += rms > accuracy_rms_limit(rms_limit, max_limit, n) || zmax > max_limit;
        }
        if (rejected || plain)
            printf("K = %5d %s %-24s outputs of %2d elements: %d of %d over the plain RMS limit, "
                   "%d over the runner's%s\n",
                   K, wide ? "wide" : "    ", name, n, plain, M * N / n, rejected,
                   rejected ? " (REJECTED, honest!)" : "");
        fail |= rejected > 0;
    }
    return fail;
}

/* One K: the reference's expected values and scale, then every order's
 * RMS and largest error in units of the scale. */
static int at_k(bool is_bf16, double rms_limit, double max_limit) {
    static double zs[M * N];
    a = malloc(sizeof(float) * (size_t)M * (size_t)K);
    b = malloc(sizeof(float) * (size_t)K * N);
    c = malloc(sizeof(float) * M * N);
    uint16_t *ha = malloc(2 * (size_t)M * (size_t)K), *hb = malloc(2 * (size_t)K * N),
             *hc = malloc(2 * M * N);
    float *fa = malloc(4 * (size_t)M * (size_t)K), *fb = malloc(4 * (size_t)K * N),
          *fc = malloc(4 * M * N);
    double *expect = malloc(8 * M * N), *bound = malloc(8 * M * N), *scale = malloc(8 * M * N);
    size_t la = (size_t)M * (size_t)K, lb = (size_t)K * N, lc = M * N;
    for (size_t x = 0; x < la; x++)
        fa[x] = draw(), ha[x] = to_bf16(fa[x]);
    for (size_t x = 0; x < lb; x++)
        fb[x] = draw(), hb[x] = to_bf16(fb[x]);
    for (size_t x = 0; x < lc; x++)
        fc[x] = draw(), hc[x] = to_bf16(fc[x]);
    for (size_t x = 0; x < la; x++)
        a[x] = is_bf16 ? bf16f(ha[x]) : fa[x];
    for (size_t x = 0; x < lb; x++)
        b[x] = is_bf16 ? bf16f(hb[x]) : fb[x];
    for (size_t x = 0; x < lc; x++)
        c[x] = is_bf16 && !f32c ? bf16f(hc[x]) : fc[x];
    const char *names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    const long long sizes[] = {M, N, K, K, N, N};
    const char *sn[] = {"alpha", "beta"};
    const double sv[] = {1.25, -0.75};
    const char *type = is_bf16 ? "__nv_bfloat16" : "float";
    bt_buffer bufs[] = {
        {"A", type, "in", la, is_bf16 ? (void *)ha : (void *)fa, NULL, NULL, NULL},
        {"B", type, "in", lb, is_bf16 ? (void *)hb : (void *)fb, NULL, NULL, NULL},
        {"C", f32c ? "float" : type, "inout", lc, is_bf16 && !f32c ? (void *)hc : (void *)fc, expect,
         bound, scale}};
    bt_problem p = {6, names, sizes, 2, sn, sv, 3, bufs, ""};
    int fail = 0;
    if ((is_bf16 ? bf16_references : sgemm_references)[0].reference(&p, 0, 1)) {
        printf("reference failed: %s\n", p.error);
        return 1;
    }
    for (int o = 0; o < ORDERS; o++) {
        if ((o == TRUNCATED_C || o == TRUNCATING) && !is_bf16)
            continue; /* fp32 rounds to nearest */
        if (o == REL_1E5 && f32c) continue; /* within the fp32 sums' own error at large K */
        if ((o == TF32 || o == REL_1E5) && is_bf16) continue;
        double z2 = 0, zmax = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                const double z =
                    fabs(evaluate((order)o, i, j, is_bf16 && !f32c) - expect[i * N + j]) / scale[i * N + j];
                z2 += z * z;
                zmax = fmax(zmax, z);
                zs[i * N + j] = z;
            }
        const double rms = sqrt(z2 / (M * N));
        const bool honest = o<HONEST, caught = rms> rms_limit || zmax > max_limit;
        if (honest && K <= 2) fail |= few_elements(zs, NAMES[o], rms_limit, max_limit);
        printf("K = %5d %s %-24s rms %8.3f  max %8.3f  %s\n", K, wide ? "wide" : "    ",
               o == REL_1E3 && is_bf16 && !f32c ? "relative error 2^-8"
               : o == TRUNCATED_C && f32c   ? "C rounded to bf16"
                                            : NAMES[o],
               rms, zmax,
               honest ? (caught ? "REJECTED (honest!)" : "ok") : (caught ? "caught" : "MISSED"));
        /* the wide set must pass honest orders; the faults are the uniform set's to catch */
        fail |= wide ? honest && caught : honest == caught;
    }
    free(a), free(b), free(c), free(ha), free(hb), free(hc), free(fa), free(fb), free(fc);
    free(expect), free(bound), free(scale);
    return fail;
}

int main(int argc, char **argv) {
    double rms, max;
    if (argc != 3 || !limits(argv[2], &rms, &max)) {
        fprintf(stderr,
                "usage: test_accuracy sgemm|gemm_bf16|gemm_bf16_f32c PROBLEM.lua (with accuracy = {...})\n");
        return 2;
    }
    f32c = !strcmp(argv[1], "gemm_bf16_f32c");
    bool is_bf16 = f32c || !strcmp(argv[1], "gemm_bf16");
    /* The K of every shape the problem tunes at (its tune list), and the
     * check sizes' smallest. */
    static const int SGEMM_K[] = {4096, 2048, 1024, 512, 4097, 256, 16384, 1, 2};
    static const int BF16_K[] = {4096, 8192, 2048, 1024, 256, 16384, 1, 2};
    const int *ks = is_bf16 ? BF16_K : SGEMM_K;
    int n = is_bf16 ? (int)(sizeof BF16_K / sizeof *BF16_K)
                    : (int)(sizeof SGEMM_K / sizeof *SGEMM_K),
        fail = 0;
    printf("%s: limits rms %g, max %g (from %s)\n", argv[1], rms, max, argv[2]);
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < n; i++) {
            K = ks[i];
            wide = w == 1;
            fail |= at_k(is_bf16, rms, max);
        }
    printf(fail ? "FAILED\n" : "ok\n");
    return fail;
}
