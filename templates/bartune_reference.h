/* The C side of the problem interface (the Lua side is gen/lib/problem.lua).
 *
 * A problem's CPU reference lives in templates/<problem>/reference.c, the only
 * C a new workload needs. It defines the table
 *
 *     const bt_reference bartune_references[] = {
 *         {"pipeline", pipeline_reference},
 *         {NULL, NULL},
 *     };
 *
 * bartune compiles the file into a shared object (cc -O2 -shared -fPIC, with
 * this folder on the include path) and the runner loads it. The runner
 * generates the inputs the problem declares, then calls the reference on as
 * many threads as the machine has cores: call `part` of `parts` does its
 * share of the work (split rows, say) and writes, for every out/inout buffer,
 * the expected values into `expect`: in the buffer's own type for
 * verify = "exact", as doubles for verify = "bound", together with the
 * allowed |got - expect| per element in `bound`, and, where the problem
 * declares accuracy = { precision = ..., rms = R, max = X }, the error an
 * honest evaluation at that precision is expected to make per element in
 * `scale` (its standard deviation): the runner then also rejects a kernel
 * whose errors, in units of `scale`, have an RMS over R or a maximum over X
 * (the bound alone grows like K where honest errors grow like sqrt(K), so
 * it cannot tell TF32 from fp32). The reference is called twice, once for
 * each of two input sets (the second is what one launch after the timed
 * ones sees). Return 0, or nonzero after writing a message into `error`. The results are cached on
 * disk per (problem, sizes, seed, reference), so a restarted runner reuses them. */
#ifndef BARTUNE_REFERENCE_H
#define BARTUNE_REFERENCE_H

#include <stddef.h>
#include <string.h>

typedef struct {
    const char *name;
    const char *type; /* "float", "double", "int", ... as declared */
    const char *role; /* "in", "out", "inout" */
    size_t length;    /* elements */
    const void *data; /* in, inout: the inputs as generated; out: NULL */
    void *expect;     /* out, inout: the reference writes the expected values */
    double *bound;    /* verify = "bound": the allowed error per element; else NULL */
    /* accuracy = {...} declared: the expected error (standard deviation) of
     * an honest evaluation at the problem's precision, per element; 0 where
     * none is expected. Else NULL. */
    double *scale;
} bt_buffer;

typedef struct {
    int n_sizes;
    const char *const *size_names;
    const long long *sizes;
    int n_scalars;
    const char *const *scalar_names;
    const double *scalars;
    int n_buffers;
    bt_buffer *buffers;
    char error[256];
} bt_problem;

typedef int (*bt_reference_fn)(bt_problem *p, int part, int parts);

typedef struct {
    const char *name;
    bt_reference_fn reference;
} bt_reference;

/* A size by name (-1 when the problem has none of that name). */
static inline long long bt_size(const bt_problem *p, const char *name) {
    for (int i = 0; i < p->n_sizes; i++)
        if (strcmp(p->size_names[i], name) == 0) return p->sizes[i];
    return -1;
}

static inline double bt_scalar(const bt_problem *p, const char *name) {
    for (int i = 0; i < p->n_scalars; i++)
        if (strcmp(p->scalar_names[i], name) == 0) return p->scalars[i];
    return 0;
}

static inline bt_buffer *bt_buffer_named(bt_problem *p, const char *name) {
    for (int i = 0; i < p->n_buffers; i++)
        if (strcmp(p->buffers[i].name, name) == 0) return &p->buffers[i];
    return NULL;
}

/* The expected squared rounding error of a sum of K terms whose sum is S
 * and sum of squares Q, each partial sum s_k rounded to nearest with unit
 * roundoff u (an error uniform within +-u|s_k|: variance u^2 s_k^2 / 3),
 * averaged over the orders the terms may be added in: the sum over k of
 * E[s_k^2] is (K + 1)(Q + 2 S^2) / 6. For a scale (see bt_buffer). */
static inline double bt_sum_variance(double K, double S, double Q, double u) {
    return u * u / 3 * (K + 1) * (Q + 2 * S * S) / 6;
}

/* [begin, end) of `count` items for call `part` of `parts`. */
static inline void bt_share(size_t count, int part, int parts, size_t *begin, size_t *end) {
    *begin = count * (size_t)part / (size_t)parts;
    *end = count * (size_t)(part + 1) / (size_t)parts;
}

#endif
