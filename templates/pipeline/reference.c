/* CPU reference of the pipeline problem: out[i] = f^64(in[i]) with
 * f(v) = fmaf(v, 0.999f, 0.0013f), the same fused operations in the same
 * order as every kernel, so the comparison is bit for bit. */
#include <math.h>

#include "bartune_reference.h"
#include "pipeline/reference.h"

/* 16 independent chains per step keep the FMA units busy. */
#define CHAINS 16
#define REFERENCE_BODY                                                                             \
    size_t i = begin;                                                                              \
    for (; i + CHAINS <= end; i += CHAINS) {                                                       \
        float v[CHAINS];                                                                           \
        for (int u = 0; u < CHAINS; u++)                                                           \
            v[u] = in[i + (size_t)u];                                                              \
        for (int k = 0; k < 64; k++)                                                               \
            for (int u = 0; u < CHAINS; u++)                                                       \
                v[u] = fmaf(v[u], 0.999f, 0.0013f);                                                \
        for (int u = 0; u < CHAINS; u++)                                                           \
            out[i + (size_t)u] = v[u];                                                             \
    }                                                                                              \
    for (; i < end; i++) {                                                                         \
        float v = in[i];                                                                           \
        for (int k = 0; k < 64; k++)                                                               \
            v = fmaf(v, 0.999f, 0.0013f);                                                          \
        out[i] = v;                                                                                \
    }

#if defined(__x86_64__) && defined(__GNUC__)
/* With the FMA instruction fmaf is one instruction, not a libm call. */
__attribute__((target("fma"))) static void chains_fma(const float *in, float *out, size_t begin,
                                                      size_t end) {
    REFERENCE_BODY
}
#endif

static void chains_plain(const float *in, float *out, size_t begin, size_t end) {
    REFERENCE_BODY
}

void pipeline_chains(const float *in, float *out, size_t begin, size_t end) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma")) {
        chains_fma(in, out, begin, end);
        return;
    }
#endif
    chains_plain(in, out, begin, end);
}

static int pipeline_reference(bt_problem *p, int part, int parts) {
    bt_buffer *in = bt_buffer_named(p, "in"), *out = bt_buffer_named(p, "out");
    size_t begin, end;
    bt_share(out->length, part, parts, &begin, &end);
    pipeline_chains(in->data, out->expect, begin, end);
    return 0;
}

const bt_reference bartune_references[] = {
    {"pipeline", pipeline_reference},
    {NULL, NULL},
};
