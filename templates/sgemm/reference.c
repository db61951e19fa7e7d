/* CPU reference of sgemm: C = alpha A B + beta C in double, and per element
 * the bound gamma_{K+2} (|alpha| sum_k |a_ik b_kj| + |beta c_ij|) that any
 * fp32 evaluation meets (see gen/problems/sgemm.lua), and the expected error
 * of an honest fp32 evaluation (the scale of the accuracy test): the sum's
 * rounding (bt_sum_variance), the products' (if not fused), and the
 * epilogue's three roundings. C's padding between rows (ldc > N) is the
 * runner's: the problem declares C a view, and the runner expects its
 * pattern back there.
 *
 * Blocked so that 4096^3 takes seconds on 16 cores: a block of ROWS rows of
 * C by COLS columns accumulates in double over all of K, a chunk of KC k at
 * a time: the chunk's rows of A and of B are converted once into panels of
 * doubles, summed by bartune_gemm_sums.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bartune_gemm_sums.h"
#include "bartune_reference.h"

enum { ROWS = 128, COLS = 256, KC = BT_SUM_KC };
_Static_assert(ROWS % BT_SUM_ROWS == 0 && COLS % BT_SUM_COLS == 0, "whole register tiles");
/* the sums (three of ROWS x COLS), B's chunk and its magnitudes (KC x COLS
 * each), A's (ROWS x KC each) */
enum { SCRATCH = 3 * ROWS * COLS + 2 * KC * COLS + 2 * ROWS * KC };

typedef struct {
    long long M, N, K, lda, ldb, ldc;
    double alpha, beta, gamma, u;
    const float *a, *b, *c;
    double *expect, *bound, *scale;
} gemm;

/* Rows [i0, i1) by columns [j0, j1), i1 - i0 <= ROWS, j1 - j0 <= COLS;
 * scratch holds SCRATCH doubles. Rows and columns past the block's are
 * zeros in the panels. */
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
        for (long long k = 0; k < kc; k++) {
            const float *brow = g->b + (k0 + k) * g->ldb + j0;
            for (long long j = 0; j < w8; j++) {
                const double v = j < w ? brow[j] : 0;
                bp[k * COLS + j] = v, bap[k * COLS + j] = fabs(v);
            }
        }
        for (long long i = 0; i < h4; i++)
            for (long long k = 0; k < kc; k++) {
                const double v = i < h ? g->a[(i0 + i) * g->lda + k0 + k] : 0;
                ap[i * KC + k] = v, aap[i * KC + k] = fabs(v);
            }
        bt_sums_chunk(ap, aap, bp, bap, kc, h4, w8, COLS, acc, mag, sq);
    }
    for (long long i = 0; i < h; i++)
        for (long long j = 0; j < w; j++) {
            const long long at = (i0 + i) * g->ldc + j0 + j;
            /* C is not read when beta is 0 (BLAS: it may hold anything, NaN too) */
            const double c = g->beta != 0 ? g->c[at] : 0, S = acc[i * COLS + j],
                         Q = sq[i * COLS + j];
            const double r = g->alpha * S + g->beta * c, u = g->u;
            g->expect[at] = r;
            g->bound[at] = g->gamma * (fabs(g->alpha) * mag[i * COLS + j] + fabs(g->beta * c));
            const double sum = bt_sum_variance((double)g->K, S, Q, u) + u * u / 3 * Q;
            g->scale[at] =
                sqrt(g->alpha * g->alpha * sum +
                     u * u / 3 * (g->alpha * S * g->alpha * S + g->beta * c * g->beta * c + r * r));
        }
}

static int sgemm(bt_problem *p, int part, int parts) {
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
              .expect = C->expect,
              .bound = C->bound,
              .scale = C->scale,
              .u = ldexp(1.0, -24)};
    const double n = (double)g.K + 2;
    g.gamma = n * g.u / (1 - n * g.u);
    if (!g.scale) {
        snprintf(p->error, sizeof p->error, "sgemm declares accuracy: the runner gave no scale");
        return 1;
    }
    if (g.lda < g.K || g.ldb < g.N || g.ldc < g.N) {
        snprintf(p->error, sizeof p->error,
                 "leading dimensions too small: lda %lld < K %lld, "
                 "ldb %lld < N %lld or ldc %lld < N %lld",
                 g.lda, g.K, g.ldb, g.N, g.ldc, g.N);
        return 1;
    }
    /* This part's share of the blocks. */
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
    {"sgemm", sgemm},
    {NULL, NULL},
};
