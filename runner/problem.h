/* The runner's copy of a problem: the buffers the problem declares, on the
 * host and on the GPU, with what each output is expected to hold. Nothing
 * here knows a workload: buffers, sizes and the reference come from the
 * CLI's "problem" request and the problem's reference library. */
#ifndef BARTUNE_RUNNER_PROBLEM_H
#define BARTUNE_RUNNER_PROBLEM_H

#include <cuda.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum { ROLE_IN, ROLE_OUT, ROLE_INOUT };
/* Bytes of guard before and after every buffer: a kernel that writes there
 * wrote out of bounds. */
enum { GUARD_BYTES = 65536 };
#define GUARD_BYTE 0xA7

typedef struct {
    char *name, *type;
    int role;
    size_t length, elem; /* elements, bytes per element */
    bool fp;             /* float or double */
    json_t *init;        /* {kind, lo, hi} for in/inout */
    void *host;          /* in, inout: the generated inputs */
    void *expect;        /* out, inout: expected values (elem bytes; double for bound) */
    double *bound;       /* verify = bound: allowed error per element */
    CUdeviceptr base;    /* guard | data | guard */
    CUdeviceptr data, d_expect, d_bound;
    CUdeviceptr d_initial; /* inout: the inputs, copied in before every launch */
    unsigned long long sum_data, sum_expect, sum_bound; /* checksums at setup */
    unsigned long long guard_after_sum; /* the guard after data (2-byte elements: unaligned) */
} rbuf;

/* A kernel argument: a buffer's device pointer or a typed value. */
typedef struct {
    union {
        int i32;
        unsigned u32;
        long long i64;
        unsigned long long u64;
        float f32;
        double f64;
    } v;
    rbuf *buffer; /* NULL for a value */
} rarg;

typedef struct {
    char *name;
    bool bound_rule; /* verify = "bound" */
    rbuf *bufs;
    int n_bufs;
    rarg *args;
    void **arg_ptrs; /* what cuLaunchKernel takes */
    int n_args;
    unsigned long long guard_sum; /* checksum of an intact guard */
} rproblem;

/* Builds the problem a "problem" request describes: inputs, the CPU
 * reference (from `reference`, cached in `cache`), device buffers. On
 * failure returns false with *why (owned) set. */
bool problem_setup(rproblem *p, json_t *req, bool *cached, char **why);
void problem_free(rproblem *p);
/* Device work of setup that needs the runner's kernels: checksums. */
typedef CUresult (*checksum_fn)(CUdeviceptr p, size_t bytes, unsigned long long *out);
CUresult problem_upload(rproblem *p, checksum_fn sum);

#endif
