/* What the GEMM references (templates/sgemm, templates/gemm_bf16) sum per
 * element of C over K, in k order: S = sum a b, the magnitude sum |a| |b|
 * (the error bound's) and Q = sum (a b)^2 (the honest error's), in double.
 * A reference converts a chunk of at most BT_SUM_KC k of its block's rows
 * of A and columns of B into panels of doubles (their magnitudes beside
 * them), then bt_sums_chunk adds the chunk to the block's sums. Pairs of
 * rows by four columns add up in registers, or four rows by eight where
 * the CPU has AVX-512 (its 32 registers hold the twelve sums): 8192^3 is
 * 5.5e11 products for each input set, and the runner's CPU does them while
 * the GPU waits. Each element's sums run over k in order either way, so
 * both give the same bits. Callers round a block's rows up to a multiple
 * of BT_SUM_ROWS and its columns to BT_SUM_COLS, zeros in the panels. */
#ifndef BARTUNE_GEMM_SUMS_H
#define BARTUNE_GEMM_SUMS_H

#include <stdlib.h>
#include <string.h>

#include "bartune_reference.h"

enum { BT_SUM_KC = 128, BT_SUM_ROWS = 4, BT_SUM_COLS = 8 };

/* n rounded up to a multiple of m (a block's rows to BT_SUM_ROWS, its
 * columns to BT_SUM_COLS) */
static inline long long bt_round_up(long long n, long long m) {
    return (n + m - 1) / m * m;
}

/* The blocks of rows x cols of an M x N result that call `part` of `parts`
 * takes: [*begin, *end) of them all, numbered by rows, then columns;
 * returns how many blocks a row of them holds. The threads share blocks,
 * not rows of blocks: a result of few rows (256 x 16384) keeps every
 * thread busy. */
static inline size_t bt_share_blocks(long long M, long long N, long long rows, long long cols,
                                     int part, int parts, size_t *begin, size_t *end) {
    const size_t per_row = (size_t)((N + cols - 1) / cols);
    bt_share((size_t)((M + rows - 1) / rows) * per_row, part, parts, begin, end);
    return per_row;
}

/* four doubles: a vector register where the target has one (GCC and Clang) */
typedef double bt_v4 __attribute__((vector_size(32)));

/* Two rows by four columns over kc k: a and aa hold the rows BT_SUM_KC
 * apart, b and ba the k cols apart, and the sums' rows are cols apart. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
/* "fma", not "arch=haswell": the latter dispatches on the CPU model */
__attribute__((target_clones("fma", "default"), optimize("O3", "fp-contract=fast")))
#endif
static void
bt_sums_2x4(const double *a, const double *aa, const double *b, const double *ba, long long kc,
            long long cols, double *s, double *mag, double *q) {
    bt_v4 s0, s1, m0, m1, q0, q1;
    memcpy(&s0, s, 32), memcpy(&s1, s + cols, 32);
    memcpy(&m0, mag, 32), memcpy(&m1, mag + cols, 32);
    memcpy(&q0, q, 32), memcpy(&q1, q + cols, 32);
    for (long long k = 0; k < kc; k++) {
        bt_v4 bk, bak;
        memcpy(&bk, b + k * cols, 32), memcpy(&bak, ba + k * cols, 32);
        const bt_v4 p0 = a[k] * bk, p1 = a[BT_SUM_KC + k] * bk;
        s0 += p0, s1 += p1;
        m0 += aa[k] * bak, m1 += aa[BT_SUM_KC + k] * bak;
        q0 += p0 * p0, q1 += p1 * p1;
    }
    memcpy(s, &s0, 32), memcpy(s + cols, &s1, 32);
    memcpy(mag, &m0, 32), memcpy(mag + cols, &m1, 32);
    memcpy(q, &q0, 32), memcpy(q + cols, &q1, 32);
}

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define BT_SUMS_AVX512 1
typedef double bt_v8 __attribute__((vector_size(64)));
/* Four rows by eight columns over kc k, laid out as bt_sums_2x4's. */
__attribute__((target("avx512f"), optimize("O3", "fp-contract=fast"))) static void
bt_sums_4x8(const double *a, const double *aa, const double *b, const double *ba, long long kc,
            long long cols, double *s, double *mag, double *q) {
    bt_v8 sr[4], mr[4], qr[4];
    for (int r = 0; r < 4; r++)
        memcpy(&sr[r], s + r * cols, 64), memcpy(&mr[r], mag + r * cols, 64),
            memcpy(&qr[r], q + r * cols, 64);
    for (long long k = 0; k < kc; k++) {
        bt_v8 bk, bak;
        memcpy(&bk, b + k * cols, 64), memcpy(&bak, ba + k * cols, 64);
        for (int r = 0; r < 4; r++) {
            const bt_v8 p = a[r * BT_SUM_KC + k] * bk;
            sr[r] += p, mr[r] += aa[r * BT_SUM_KC + k] * bak, qr[r] += p * p;
        }
    }
    for (int r = 0; r < 4; r++)
        memcpy(s + r * cols, &sr[r], 64), memcpy(mag + r * cols, &mr[r], 64),
            memcpy(q + r * cols, &qr[r], 64);
}
#endif

/* A chunk of kc k added to the sums of h rows (a multiple of BT_SUM_ROWS)
 * by w columns (of BT_SUM_COLS), rows cols apart: ap, aap are the rows of A
 * by k (BT_SUM_KC apart), bp, bap the k of B by column (cols apart); rows
 * and columns past the block's are zeros in the panels. */
static inline void bt_sums_chunk(const double *ap, const double *aap, const double *bp,
                                 const double *bap, long long kc, long long h, long long w,
                                 long long cols, double *s, double *mag, double *q) {
#ifdef BT_SUMS_AVX512
    if (__builtin_cpu_supports("avx512f") && !getenv("BARTUNE_REFERENCE_NO_AVX512")) {
        for (long long j = 0; j < w; j += 8)
            for (long long i = 0; i < h; i += 4)
                bt_sums_4x8(ap + i * BT_SUM_KC, aap + i * BT_SUM_KC, bp + j, bap + j, kc, cols,
                            s + i * cols + j, mag + i * cols + j, q + i * cols + j);
        return;
    }
#endif
    for (long long j = 0; j < w; j += 4)
        for (long long i = 0; i < h; i += 2)
            bt_sums_2x4(ap + i * BT_SUM_KC, aap + i * BT_SUM_KC, bp + j, bap + j, kc, cols,
                        s + i * cols + j, mag + i * cols + j, q + i * cols + j);
}

#endif
