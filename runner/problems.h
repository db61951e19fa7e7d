/* The problems the runner can set up: how to make inputs and the CPU
 * reference. Every problem's kernels take (const T *in, T *out, u64 n). */
#ifndef BARTUNE_PROBLEMS_H
#define BARTUNE_PROBLEMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    size_t elem_size;
    void (*input)(float *in, size_t begin, size_t end, uint64_t seed);
    void (*reference)(const float *in, float *out, size_t begin, size_t end);
} problem;

const problem *problem_find(const char *name);
/* Fills in[0..n) and ref[0..n) using every core. */
void problem_prepare(const problem *p, float *in, float *ref, size_t n, uint64_t seed);

#endif
