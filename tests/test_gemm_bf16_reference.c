/* The gemm_bf16 CPU reference and its bound (issue 14): the reference
 * agrees with a long-double loop; every honest fp32 evaluation (k in order,
 * reversed, pairwise, in k-tiles of 64 summed at the end like split-K, each
 * add truncated like a tensor core may), scaled and rounded to bf16, is
 * within the bound at every element; a dropped k-slice of 16, a k-tile read
 * twice, fp16 read in place of bf16 and one k-tile fewer each fail at more
 * than 90% of the elements. The layouts: A and B stored transposed (transa,
 * transb, with their own padded leading dimensions) give the same expected
 * values, bounds and scales, bit for bit. gemm_bf16_f32c (C in fp32, the
 * same reference reading C's type): the same expected values, honest fp32
 * results unrounded within its bound, C rounded to bf16 outside it. A
 * result of 3 x 3 of the reference's blocks in four parts; its AVX-512
 * and AVX2 register tiles give the same bits. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bartune_reference.h"

extern const bt_reference bartune_references[];

enum { M = 23, N = 37, K = 1000, LDA = 1003, LDB = 41, LDC = 39 };

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}
static uint16_t to_bf16(float f) { /* round to nearest even */
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static float from_fp16(uint16_t h) { /* the same bits read as IEEE half */
    int e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? INFINITY
                        : ldexpf((float)(m | 1024), e - 25);
    return h & 0x8000 ? -v : v;
}
static float round_bf16(float f) {
    return from_bf16(to_bf16(f));
}

static uint16_t a[(M - 1) * LDA + K], b[(K - 1) * LDB + N], c[(M - 1) * LDC + N];
static double expect[sizeof c / 2], bound[sizeof c / 2], scale[sizeof c / 2];
static const float alpha = 1.25f, beta = -0.75f;

/* Term k of element (i, j), as an evaluation sees it. */
typedef enum { HONEST, DROP_SLICE, READ_TWICE, FP16, FEWER } fault;
static float term(int i, int j, int k, fault f) {
    if (f == READ_TWICE && k >= 64 && k < 128) k -= 64;
    if ((f == DROP_SLICE && k >= 512 && k < 528) || (f == FEWER && k >= K - 64)) return 0;
    float (*cv)(uint16_t) = f == FP16 ? from_fp16 : from_bf16;
    return cv(a[i * LDA + k]) * cv(b[k * LDB + j]); /* exact in fp32 */
}
static float pairwise(int i, int j, int lo, int hi, fault f) {
    if (hi - lo == 1) return term(i, j, lo, f);
    int mid = (lo + hi) / 2;
    return pairwise(i, j, lo, mid, f) + pairwise(i, j, mid, hi, f);
}
/* Order 0 in k, 1 reversed, 2 pairwise, 3 in k-tiles of 64 then summed, 4 truncating. */
static float evaluate(int i, int j, int order, fault f) {
    float s = 0;
    if (order == 2) return pairwise(i, j, 0, K, f);
    if (order == 3) {
        for (int k0 = 0; k0 < K; k0 += 64) {
            float t = 0;
            for (int k = k0; k < k0 + 64 && k < K; k++)
                t += term(i, j, k, f);
            s += t;
        }
        return s;
    }
    if (order == 4) fesetround(FE_TOWARDZERO);
    for (int n = 0; n < K; n++)
        s += term(i, j, order == 1 ? K - 1 - n : n, f);
    fesetround(FE_TONEAREST);
    return s;
}

/* The plain layout's problem (M x N x K, padded rows) with A, B and the C given. */
static bt_problem plain_problem(bt_buffer bufs[3], bt_buffer cbuf) {
    static const char *names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    static const long long sizes[] = {M, N, K, LDA, LDB, LDC};
    static const char *sn[] = {"alpha", "beta"};
    static const double sv[] = {alpha, beta};
    bufs[0] = (bt_buffer){"A", "__nv_bfloat16", "in", sizeof a / 2, a, NULL, NULL, NULL};
    bufs[1] = (bt_buffer){"B", "__nv_bfloat16", "in", sizeof b / 2, b, NULL, NULL, NULL};
    bufs[2] = cbuf;
    return (bt_problem){6, names, sizes, 2, sn, sv, 3, bufs, ""};
}

/* C as a kernel writes it: rounded to bf16 (gemm_bf16), fp32 as it is
 * (gemm_bf16_f32c), or fp32 rounded to bf16 (gemm_bf16_f32c's fault) */
typedef enum { C_BF16, C_F32, C_F32_ROUNDED } c_out;
static double expect3[sizeof c / 2], bound3[sizeof c / 2], scale3[sizeof c / 2];
static double fraction_failing_as(int order, fault f, c_out out) {
    const double *e = out == C_BF16 ? expect : expect3, *bd = out == C_BF16 ? bound : bound3;
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            const float acc = evaluate(i, j, order, f);
            float got = alpha * acc + beta * from_bf16(c[i * LDC + j]);
            if (out != C_F32) got = round_bf16(got);
            bad += !(fabs((double)got - e[i * LDC + j]) <= bd[i * LDC + j]);
        }
    return (double)bad / (M * N);
}
static double fraction_failing(int order, fault f) {
    return fraction_failing_as(order, f, C_BF16);
}

/* gemm_bf16_f32c: C's values as floats, the reference registered under
 * that name: the same expected values as gemm_bf16's, a bound below its
 * at every element (no bf16 rounding of the result), every honest order
 * inside it unrounded. C rounded to bf16 is mostly inside the bound at K =
 * 1000 (E, a worst case over K adds, exceeds half a bf16 ulp of the result):
 * the accuracy test is what catches it (tests/test_accuracy.c). */
static int f32c(void) {
    static float cf[sizeof c / 2];
    for (size_t i = 0; i < sizeof c / 2; i++)
        cf[i] = from_bf16(c[i]);
    bt_buffer bufs[3];
    bt_problem p = plain_problem(
        bufs, (bt_buffer){"C", "float", "inout", sizeof c / 2, cf, expect3, bound3, scale3});
    const bt_reference *r = &bartune_references[1];
    if (!r->name || strcmp(r->name, "gemm_bf16_f32c") || r->reference(&p, 0, 1)) {
        printf("gemm_bf16_f32c's reference: %s\n", r->name ? p.error : "not registered");
        return 1;
    }
    int fail = 0, differ = 0, wider = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            differ += expect3[i * LDC + j] != expect[i * LDC + j];
            wider += !(bound3[i * LDC + j] < bound[i * LDC + j]);
        }
    printf("f32c: %d of %d expected values differ from gemm_bf16's, %d bounds are not below its\n",
           differ, M * N, wider);
    fail |= differ != 0 || wider != 0;
    for (int o = 0; o < 5; o++) {
        double f = fraction_failing_as(o, HONEST, C_F32);
        printf("f32c: honest fp32 order %d: %.1f%% outside the bound\n", o, 100 * f);
        fail |= f > 0;
    }
    double x = fraction_failing_as(0, HONEST, C_F32_ROUNDED);
    printf("f32c: C rounded to bf16: %.1f%% outside the bound (the accuracy test's to catch)\n",
           100 * x);
    return fail;
}

/* The reference with A and/or B stored transposed: op(A) = A, op(B) = B as
 * above, so C's expected values, bounds and scales are those of the plain
 * layout, bit for bit (the reference sums in the same order). */
enum { LDAT = M + 5, LDBT = K + 3 };
static uint16_t at_[(K - 1) * LDAT + M], bt_[(N - 1) * LDBT + K];
static double expect2[sizeof c / 2], bound2[sizeof c / 2], scale2[sizeof c / 2];
/* The reference in layout (ta, tb) with leading dimensions lda, ldb into
 * expect2, bound2, scale2; its error text, or NULL. */
static const char *reference_as(int ta, int tb, long long lda, long long ldb) {
    static bt_problem p;
    static const char *names[] = {"transa", "transb", "M", "N", "K", "lda", "ldb", "ldc"};
    static const char *sn[] = {"alpha", "beta"};
    static const double sv[] = {alpha, beta};
    static long long sizes[8];
    static bt_buffer bufs[3];
    const long long z[] = {ta, tb, M, N, K, lda, ldb, LDC};
    memcpy(sizes, z, sizeof z);
    bufs[0] = (bt_buffer){
        "A", "__nv_bfloat16", "in", ta ? sizeof at_ / 2 : sizeof a / 2, ta ? at_ : a, NULL, NULL,
        NULL};
    bufs[1] = (bt_buffer){
        "B", "__nv_bfloat16", "in", tb ? sizeof bt_ / 2 : sizeof b / 2, tb ? bt_ : b, NULL, NULL,
        NULL};
    bufs[2] = (bt_buffer){"C", "__nv_bfloat16", "inout", sizeof c / 2, c, expect2, bound2, scale2};
    p = (bt_problem){8, names, sizes, 2, sn, sv, 3, bufs, ""};
    return bartune_references[0].reference(&p, 0, 1) ? p.error : NULL;
}

static int layouts(void) {
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            at_[k * LDAT + i] = a[i * LDA + k];
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++)
            bt_[j * LDBT + k] = b[k * LDB + j];
    int fail = 0;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            const char *err = reference_as(ta, tb, ta ? LDAT : LDA, tb ? LDBT : LDB);
            if (err) {
                printf("reference failed at transa %d transb %d: %s\n", ta, tb, err);
                return 1;
            }
            int bad = 0;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    const int x = i * LDC + j;
                    bad +=
                        expect2[x] != expect[x] || bound2[x] != bound[x] || scale2[x] != scale[x];
                }
            printf("transa %d transb %d: %d of %d elements differ from the plain layout's\n", ta,
                   tb, bad, M * N);
            fail |= bad != 0;
        }
    /* a leading dimension below the stored row is the reference's error */
    const char *err = reference_as(1, 0, M - 1, LDB);
    if (!err || !strstr(err, "lda")) {
        printf("transa 1 with lda = M - 1 was not refused (%s)\n", err ? err : "no error");
        fail = 1;
    }
    return fail;
}

/* beta = 0: C is not read (BLAS; the problem's unset_when_zero fills it with
 * NaN there), so the expected values are alpha A B, every bound and scale
 * finite. */
static int unset_c(void) {
    static uint16_t cn[sizeof c / 2];
    static double e0[sizeof c / 2], b0[sizeof c / 2], s0[sizeof c / 2];
    for (size_t i = 0; i < sizeof c / 2; i++)
        cn[i] = 0x7fc0; /* bf16 NaN */
    static const char *names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    static const long long sizes[] = {M, N, K, LDA, LDB, LDC};
    static const char *sn[] = {"alpha", "beta"};
    static const double sv[] = {alpha, 0};
    bt_buffer bufs[3] = {{"A", "__nv_bfloat16", "in", sizeof a / 2, a, NULL, NULL, NULL},
                         {"B", "__nv_bfloat16", "in", sizeof b / 2, b, NULL, NULL, NULL},
                         {"C", "__nv_bfloat16", "inout", sizeof c / 2, cn, e0, b0, s0}};
    bt_problem p = {6, names, sizes, 2, sn, sv, 3, bufs, ""};
    if (bartune_references[0].reference(&p, 0, 1)) {
        printf("reference (beta = 0) failed: %s\n", p.error);
        return 1;
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long double s = 0;
            for (int k = 0; k < K; k++)
                s += (long double)from_bf16(a[i * LDA + k]) * from_bf16(b[k * LDB + j]);
            const size_t at = (size_t)i * LDC + (size_t)j;
            if (!(fabsl(alpha * s - e0[at]) <= 1e-12L * (1 + fabsl(alpha * s))) ||
                !isfinite(b0[at]) || !isfinite(s0[at])) {
                printf(
                    "beta = 0, C NaN, at (%d,%d): expect %g (alpha A B %Lg), bound %g, scale %g\n",
                    i, j, e0[at], alpha * s, b0[at], s0[at]);
                return 1;
            }
        }
    printf("beta = 0: C (NaN) not read\n");
    return 0;
}

/* A result of several blocks each way (the reference's are 128 x 256),
 * ragged at both edges, shared by four threads as the runner's do: every
 * element written once, each the long-double value. */
static int blocks_shared(void) {
    enum { BM = 300, BN = 600, BK = 64, BLDC = BN + 3 };
    static uint16_t ba[BM * BK], bb[BK * BN], bc[BM * BLDC];
    static double be[BM * BLDC], bbd[BM * BLDC], bs[BM * BLDC];
    for (size_t i = 0; i < BM * BK; i++)
        ba[i] = to_bf16((float)uniform());
    for (size_t i = 0; i < BK * BN; i++)
        bb[i] = to_bf16((float)uniform());
    for (size_t i = 0; i < BM * BLDC; i++)
        bc[i] = to_bf16((float)uniform()), be[i] = NAN;
    static const char *names[] = {"M", "N", "K", "lda", "ldb", "ldc"};
    static const char *sn[] = {"alpha", "beta"};
    static const double sv[] = {alpha, beta};
    static long long sizes[] = {BM, BN, BK, BK, BN, BLDC};
    bt_buffer bufs[3] = {{"A", "__nv_bfloat16", "in", BM * BK, ba, NULL, NULL, NULL},
                         {"B", "__nv_bfloat16", "in", BK * BN, bb, NULL, NULL, NULL},
                         {"C", "__nv_bfloat16", "inout", BM * BLDC, bc, be, bbd, bs}};
    bt_problem p = {6, names, sizes, 2, sn, sv, 3, bufs, ""};
    for (int part = 0; part < 4; part++)
        if (bartune_references[0].reference(&p, part, 4)) {
            printf("blocks: %s\n", p.error);
            return 1;
        }
    int wrong = 0;
    for (int i = 0; i < BM; i++)
        for (int j = 0; j < BN; j++) {
            long double s = 0;
            for (int k = 0; k < BK; k++)
                s += (long double)from_bf16(ba[i * BK + k]) * from_bf16(bb[k * BN + j]);
            const long double want = alpha * s + beta * (long double)from_bf16(bc[i * BLDC + j]);
            wrong += !(fabsl(want - be[i * BLDC + j]) <= 1e-12L * (1 + fabsl(want)));
        }
    printf("%d x %d in four parts: %d of %d elements wrong or unwritten\n", BM, BN, wrong, BM * BN);
    return wrong != 0;
}

/* The reference's register tiles (4 x 8 under AVX-512, 2 x 4 otherwise,
 * BARTUNE_REFERENCE_NO_AVX512 forcing the latter) sum each element in the
 * same order: the same bits, at sizes that are no multiple of either. */
static int tiles_agree(bt_problem *p) {
    static double e2[sizeof c / 2], b2[sizeof c / 2], s2[sizeof c / 2];
    memcpy(e2, expect, sizeof e2), memcpy(b2, bound, sizeof b2), memcpy(s2, scale, sizeof s2);
    setenv("BARTUNE_REFERENCE_NO_AVX512", "1", 1);
    const int failed = bartune_references[0].reference(p, 0, 1);
    unsetenv("BARTUNE_REFERENCE_NO_AVX512");
    const int same = !failed && !memcmp(e2, expect, sizeof e2) && !memcmp(b2, bound, sizeof b2) &&
                     !memcmp(s2, scale, sizeof s2);
    printf("2 x 4 tiles against the CPU's own: %s\n", same ? "the same bits" : "DIFFERENT");
    return !same;
}

int main(void) {
    for (size_t i = 0; i < sizeof a / 2; i++)
        a[i] = to_bf16((float)uniform());
    for (size_t i = 0; i < sizeof b / 2; i++)
        b[i] = to_bf16((float)uniform());
    for (size_t i = 0; i < sizeof c / 2; i++)
        c[i] = to_bf16((float)uniform());
    bt_buffer bufs[3];
    bt_problem p = plain_problem(
        bufs, (bt_buffer){"C", "__nv_bfloat16", "inout", sizeof c / 2, c, expect, bound, scale});
    int fail = 0;
    for (int part = 0; part < 3; part++) /* in three parts, as the runner's threads do */
        if (bartune_references[0].reference(&p, part, 3)) {
            printf("reference failed: %s\n", p.error);
            return 1;
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) { /* the padding is the runner's (C is a view) */
            long double s = 0;
            for (int k = 0; k < K; k++)
                s += (long double)from_bf16(a[i * LDA + k]) * from_bf16(b[k * LDB + j]);
            long double want = alpha * s + beta * (long double)from_bf16(c[i * LDC + j]);
            if (fabsl(want - expect[i * LDC + j]) > 1e-12L * (1 + fabsl(want))) {
                printf("reference at (%d,%d): %.17g, long double %.17Lg\n", i, j,
                       expect[i * LDC + j], want);
                fail = 1;
            }
            if (j >= N && bound[i * LDC + j] != 0) {
                printf("between rows (%d,%d): bound %g, not 0\n", i, j, bound[i * LDC + j]);
                fail = 1;
            }
        }
    const char *orders[] = {"in order", "reversed", "pairwise", "k-tiles of 64", "truncating"};
    for (int o = 0; o < 5; o++) {
        double f = fraction_failing(o, HONEST);
        printf("honest fp32, %s: %.1f%% outside the bound\n", orders[o], 100 * f);
        fail |= f > 0;
    }
    const char *faults[] = {NULL, "a dropped k-slice of 16", "k-tile 1 read as k-tile 0",
                            "fp16 read as bf16", "one k-tile fewer"};
    for (int f = DROP_SLICE; f <= FEWER; f++) {
        double x = fraction_failing(0, (fault)f);
        printf("%s: %.1f%% outside the bound\n", faults[f], 100 * x);
        fail |= x < 0.9;
    }
    fail |= tiles_agree(&p);
    fail |= blocks_shared();
    fail |= layouts();
    fail |= f32c();
    fail |= unset_c();
    printf(fail ? "FAILED\n" : "ok\n");
    return fail;
}
