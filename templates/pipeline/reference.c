#include "reference.h"

#include <math.h>

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void pipeline_input(float *in, size_t begin, size_t end, uint64_t seed) {
    for (size_t i = begin; i < end; i++) {
        uint64_t r = splitmix64(seed ^ (i * 0x2545f4914f6cdd1dull));
        in[i] = (float)(r >> 40) * (8.0f / 16777216.0f) - 4.0f;
    }
}

/* 16 independent chains per step keep the FMA units busy. */
#define CHAINS 16
#define REFERENCE_BODY                                                                             \
    size_t i = begin;                                                                              \
    for (; i + CHAINS <= end; i += CHAINS) {                                                       \
        float v[CHAINS];                                                                           \
        for (int u = 0; u < CHAINS; u++) v[u] = in[i + (size_t)u];                                 \
        for (int k = 0; k < 64; k++)                                                               \
            for (int u = 0; u < CHAINS; u++) v[u] = fmaf(v[u], 0.999f, 0.0013f);                   \
        for (int u = 0; u < CHAINS; u++) out[i + (size_t)u] = v[u];                                \
    }                                                                                              \
    for (; i < end; i++) {                                                                         \
        float v = in[i];                                                                           \
        for (int k = 0; k < 64; k++) v = fmaf(v, 0.999f, 0.0013f);                                \
        out[i] = v;                                                                                \
    }

#if defined(__x86_64__) && defined(__GNUC__)
/* With the FMA instruction fmaf is one instruction, not a libm call. */
__attribute__((target("fma"))) static void reference_fma(const float *in, float *out, size_t begin,
                                                          size_t end) {
    REFERENCE_BODY
}
#endif

static void reference_plain(const float *in, float *out, size_t begin, size_t end) {
    REFERENCE_BODY
}

void pipeline_reference(const float *in, float *out, size_t begin, size_t end) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("fma")) {
        reference_fma(in, out, begin, end);
        return;
    }
#endif
    reference_plain(in, out, begin, end);
}
