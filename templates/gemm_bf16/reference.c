/* CPU reference of gemm_bf16 (and gemm_bf16_f32c, its C in fp32: the same
 * with no rounding of the result to bf16): C = alpha op(A) op(B) + beta C in double from
 * the bf16 inputs (op: as stored, or transposed: transa, transb), and per element the bound of
 * problems/gemm_bf16.lua: E (1 + 2^-8) + 2^-8 |exact|, E = gamma_{K+2} (|alpha| sum_k |a_ik b_kj| +
 * |beta c_ij|) with u = 2^-23, and the expected error of an honest
 * evaluation (the scale of the accuracy test): the fp32 sum's rounding,
 * to nearest (bt_sum_variance) or truncating (a bias of at most u |s_k| per
 * add: at most u^2 K sum_k s_k^2 squared), the epilogue's fp32 roundings,
 * and the rounding of C to bf16 (an error uniform within half an ulp:
 * ulp^2 / 12). C's padding between rows (ldc > N) is the runner's: the
 * problem declares C a view, and the runner expects its pattern back there.
 *
 * A block of ROWS rows of C by COLS columns accumulates in double over all
 * of K, a chunk of KC k at a time: the chunk's rows of A and of B are
 * converted once into panels of doubles, summed by bartune_gemm_sums.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bartune_gemm_sums.h"
#include "bartune_reference.h"

enum { ROWS = 128, COLS = 256, KC = BT_SUM_KC };
_Static_assert(ROWS % BT_SUM_ROWS == 0 && COLS % BT_SUM_COLS == 0, "whole register tiles");

static double bf16(uint16_t bits) {
    const uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

typedef struct {
    long long M, N, K, lda, ldb, ldc;
    /* element strides of op(A) along its rows (i) and along k, of op(B)
     * along k and along its columns (j): the layouts */
    long long a_i, a_k, b_k, b_j;
    double alpha, beta, gamma;
    const uint16_t *a, *b;
    const void *c; /* bf16 bits, or float where f32c */
    int f32c;      /* C in fp32: read as such, and no bf16 rounding of the result */
    double *expect, *bound, *scale;
} gemm;

static double c_at(const gemm *g, long long at) {
    return g->f32c ? ((const float *)g->c)[at] : bf16(((const uint16_t *)g->c)[at]);
}

/* The variance of an honest evaluation's error at one element: sum S and
 * sum of squares Q of its K products, C's old value c, the exact result. */
static double honest_variance(const gemm *g, double S, double Q, double c, double exact) {
    const double u = ldexp(1.0, -24), K = (double)g->K;
    const double walk = (K + 1) * (Q + 2 * S * S) / 6; /* sum over k of E[s_k^2] */
    const double sum = bt_sum_variance(K, S, Q, u) + u * u * K * walk;
    int e;
    frexp(exact, &e); /* |exact| in [2^(e-1), 2^e): a bf16 ulp there is 2^(e-8) */
    const double ulp = exact != 0 && !g->f32c ? ldexp(1.0, e - 8) : 0;
    const double as = g->alpha * S, bc = g->beta * c;
    return g->alpha * g->alpha * sum + u * u / 3 * (as * as + bc * bc + exact * exact) +
           ulp * ulp / 12;
}

/* Rows [i0, i1) by columns [j0, j1) of C; scratch holds SCRATCH doubles:
 * the sums (three of ROWS x COLS), B's chunk and its magnitudes (KC x COLS
 * each), A's (ROWS x KC each). Rows and columns past the block's are
 * zeros in the panels, so the register tiles need no edge case. */
enum { SCRATCH = 3 * ROWS * COLS + 2 * KC * COLS + 2 * ROWS * KC };
static void block(const gemm *g, long long i0, long long i1, long long j0, long long j1,
                  double *scratch) {
    const long long w = j1 - j0, h = i1 - i0, w8 = bt_round_up(w, BT_SUM_COLS),
                    h4 = bt_round_up(h, BT_SUM_ROWS);
    double *acc = scratch, *mag = acc + ROWS * COLS, *sq = mag + ROWS * COLS,
           *bp = sq + ROWS * COLS, *bap = bp + KC * COLS, *ap = bap + KC * COLS,
           *aap = ap + ROWS * KC;
    for (long long x = 0; x < ROWS * COLS; x++)
        acc[x] = mag[x] = sq[x] = 0;
    for (long long k0 = 0; k0 < g->K; k0 += KC) {
        const long long kc = g->K - k0 < KC ? g->K - k0 : KC;
        for (long long k = 0; k < kc; k++)
            for (long long j = 0; j < w8; j++) {
                const double v = j < w ? bf16(g->b[(k0 + k) * g->b_k + (j0 + j) * g->b_j]) : 0;
                bp[k * COLS + j] = v, bap[k * COLS + j] = fabs(v);
            }
        for (long long i = 0; i < h4; i++)
            for (long long k = 0; k < kc; k++) {
                const double v = i < h ? bf16(g->a[(i0 + i) * g->a_i + (k0 + k) * g->a_k]) : 0;
                ap[i * KC + k] = v, aap[i * KC + k] = fabs(v);
            }
        bt_sums_chunk(ap, aap, bp, bap, kc, h4, w8, COLS, acc, mag, sq);
    }
    const double r = ldexp(1.0, g->f32c ? -24 : -8); /* the result's rounding: fp32's or bf16's */
    for (long long i = 0; i < h; i++)
        for (long long j = 0; j < w; j++) {
            const long long at = (i0 + i) * g->ldc + j0 + j;
            /* C is not read when beta is 0 (BLAS: it may hold anything, NaN too) */
            const double c = g->beta != 0 ? c_at(g, at) : 0;
            const double exact = g->alpha * acc[i * COLS + j] + g->beta * c;
            const double e = g->gamma * (fabs(g->alpha) * mag[i * COLS + j] + fabs(g->beta * c));
            g->expect[at] = exact;
            g->bound[at] = e * (1 + r) + r * fabs(exact);
            g->scale[at] = sqrt(honest_variance(g, acc[i * COLS + j], sq[i * COLS + j], c, exact));
        }
}

static int gemm_bf16(bt_problem *p, int part, int parts) {
    bt_buffer *C = bt_buffer_named(p, "C");
    gemm g = {.M = bt_size(p, "M"),
              .N = bt_size(p, "N"),
              .K = bt_size(p, "K"),
              .lda = bt_size(p, "lda"),
              .ldb = bt_size(p, "ldb"),
              .ldc = bt_size(p, "ldc"),
              .alpha = (float)bt_scalar(p, "alpha"),
              .beta = (float)bt_scalar(p, "beta"),
              .a = bt_buffer_named(p, "A")->data,
              .b = bt_buffer_named(p, "B")->data,
              .c = C->data,
              .f32c = !strcmp(C->type, "float"),
              .expect = C->expect,
              .bound = C->bound,
              .scale = C->scale};
    if (!g.scale) {
        snprintf(p->error, sizeof p->error,
                 "gemm_bf16 declares accuracy: the runner gave no scale");
        return 1;
    }
    const double u = ldexp(1.0, -23), n = (double)g.K + 2;
    g.gamma = n * u / (1 - n * u);
    const long long ta = bt_size(p, "transa") == 1, tb = bt_size(p, "transb") == 1; /* absent: 0 */
    const long long a_row = ta ? g.M : g.K, b_row = tb ? g.K : g.N;                 /* as stored */
    if (g.lda < a_row || g.ldb < b_row || g.ldc < g.N) {
        snprintf(p->error, sizeof p->error,
                 "leading dimensions too small: lda %lld < %lld, ldb %lld < %lld or ldc %lld "
                 "< N %lld (transa %lld, transb %lld)",
                 g.lda, a_row, g.ldb, b_row, g.ldc, g.N, ta, tb);
        return 1;
    }
    g.a_i = ta ? 1 : g.lda;
    g.a_k = ta ? g.lda : 1;
    g.b_k = tb ? 1 : g.ldb;
    g.b_j = tb ? g.ldb : 1;
    size_t begin, end;
    const size_t col_blocks = bt_share_blocks(g.M, g.N, ROWS, COLS, part, parts, &begin, &end);
    double *scratch = malloc(sizeof(double) * SCRATCH);
    if (!scratch) {
        snprintf(p->error, sizeof p->error, "out of memory");
        return 1;
    }
    for (size_t t = begin; t < end; t++) { /* the blocks by rows, then columns */
        const long long i0 = (long long)(t / col_blocks) * ROWS,
                        j0 = (long long)(t % col_blocks) * COLS;
        block(&g, i0, i0 + ROWS < g.M ? i0 + ROWS : g.M, j0, j0 + COLS < g.N ? j0 + COLS : g.N,
              scratch);
    }
    free(scratch);
    return 0;
}

const bt_reference bartune_references[] = {
    {"gemm_bf16", gemm_bf16},
    {"gemm_bf16_f32c", gemm_bf16}, /* problems/gemm_bf16_f32c.lua: C->type says which */
    {NULL, NULL},
};
