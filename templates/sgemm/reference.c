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
 * C by COLS columns accumulates in double over all of K, streaming the
 * matching rows of B, so B is read once per row block, from cache. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bartune_reference.h"

enum { ROWS = 32, COLS = 256 };

typedef struct {
    long long M, N, K, lda, ldb, ldc;
    double alpha, beta, gamma, u;
    const float *a, *b, *c;
    double *expect, *bound, *scale;
} gemm;

/* Rows [i0, i1) by columns [j0, j1), i1 - i0 <= ROWS, j1 - j0 <= COLS. */
static void block(const gemm *g, long long i0, long long i1, long long j0, long long j1,
                  double *acc, double *mag, double *sq, double *babs) {
    const long long w = j1 - j0, h = i1 - i0;
    for (long long x = 0; x < h * COLS; x++)
        acc[x] = mag[x] = sq[x] = 0;
    for (long long k = 0; k < g->K; k++) {
        const float *brow = g->b + k * g->ldb + j0;
        for (long long j = 0; j < w; j++)
            babs[j] = fabs((double)brow[j]);
        for (long long i = 0; i < h; i++) {
            const double a = g->a[(i0 + i) * g->lda + k], aa = fabs(a);
            double *ac = acc + i * COLS, *mg = mag + i * COLS, *q = sq + i * COLS;
            for (long long j = 0; j < w; j++) {
                const double prod = a * (double)brow[j];
                ac[j] += prod;
                mg[j] += aa * babs[j];
                q[j] += prod * prod;
            }
        }
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
    /* This part's share of the row blocks. */
    size_t begin, end;
    const long long blocks = (g.M + ROWS - 1) / ROWS;
    bt_share((size_t)blocks, part, parts, &begin, &end);
    double *acc = malloc(sizeof(double) * ROWS * COLS * 3 + sizeof(double) * COLS);
    if (!acc) {
        snprintf(p->error, sizeof p->error, "out of memory");
        return 1;
    }
    for (size_t rb = begin; rb < end; rb++) {
        const long long i0 = (long long)rb * ROWS, i1 = i0 + ROWS < g.M ? i0 + ROWS : g.M;
        for (long long j0 = 0; j0 < g.N; j0 += COLS)
            block(&g, i0, i1, j0, j0 + COLS < g.N ? j0 + COLS : g.N, acc, acc + ROWS * COLS,
                  acc + 2 * ROWS * COLS, acc + 3 * ROWS * COLS);
    }
    free(acc);
    return 0;
}

const bt_reference bartune_references[] = {
    {"sgemm", sgemm},
    {NULL, NULL},
};
