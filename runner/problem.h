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

/* Three input sets at the same addresses. The verifying, warm-up and timed
 * launches see set 0. Set 1 draws every input anew, from the buffer's
 * second distribution (init2: the range the problem's precision allows),
 * and the scalars anew (from their range, or their special values): a
 * kernel that replays an answer, builds a scalar in or computes in a
 * narrower type fails there. Set 2 is set 0 with a few values changed at
 * positions drawn from a secret the kernel never sees: a kernel that keys a
 * replay on some of its inputs' values fails there. Each set has its own
 * CPU reference. */
enum { SETS = 3 };
/* Up to this many problems are set up at once: the tuned sizes (slot 0)
 * and the check sizes verified beside them (see the measure request). */
enum { SLOTS = 17 };

typedef struct {
    char *name, *type;
    int role;
    size_t length, elem; /* elements, bytes per element */
    bool fp;             /* float or double */
    json_t *init;        /* {kind, lo, hi} for in/inout */
    json_t *init2;       /* set 1's distribution; NULL: init */
    /* A scalar's name (unset_when_zero): in a set where it is 0 the kernel
     * must not read this input (BLAS's C when beta is 0): it holds NaN. */
    char *unset_when_zero;
    size_t offset; /* elements between the guard and the data (a check of offset pointers) */
    /* A matrix view (ld > 0): element i is padding when i % ld >= cols; the
     * padding holds `pattern` before every launch and must hold it after. */
    size_t cols, ld;
    unsigned long long pattern;
    /* Per set: the generated inputs (in, inout), the expected values (out,
     * inout: elem bytes; double for bound), the allowed error (verify =
     * bound) and the expected error of an honest order (accuracy). */
    void *host[SETS], *expect[SETS];
    double *bound[SETS], *scale[SETS];
    size_t scaled[SETS]; /* elements with a scale > 0 */
    CUdeviceptr base;    /* guard | data | guard */
    CUdeviceptr data;
    /* The device copies of the above, each with its keyed hash at setup:
     * a kernel that writes into any of them is caught, however it writes. */
    CUdeviceptr d_src[SETS], d_expect[SETS], d_bound[SETS], d_scale[SETS];
    unsigned long long sum_src[SETS], sum_expect[SETS], sum_bound[SETS], sum_scale[SETS];
    unsigned long long guard_before_sum, guard_after_sum; /* their keyed hashes, intact */
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

/* A scalar and its value in each input set. */
typedef struct {
    char *name, *type;
    double value[SETS];
} rscalar;

typedef struct {
    char *name;
    char *where;     /* "" for the tuned sizes; "at check sizes M=1 ...: " */
    bool bound_rule; /* verify = "bound" */
    /* accuracy = { rms, max }: the most a kernel's error may be, as RMS and
     * maximum over the elements, in units of the reference's `scale`; 0:
     * no such test. */
    double acc_rms, acc_max;
    int cur; /* the input set the in buffers' data holds now */
    rbuf *bufs;
    int n_bufs;
    rscalar *scalars;
    int n_scalars;
    rarg *args[SETS];
    void **arg_ptrs[SETS]; /* what cuLaunchKernel takes, per input set */
    int n_args;
    unsigned long long secret; /* where set 2 differs from set 0 */
} rproblem;

/* SplitMix64's finaliser: the inputs' generator and the runner's seals. */
static inline unsigned long long bt_mix64(unsigned long long x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The first buffer that holds NaN in input set `set` because its
 * unset_when_zero scalar is 0 there (for messages), or NULL. */
const rbuf *problem_unset_in(const rproblem *p, int set);

/* Builds the problem a "problem" request describes: inputs, the CPU
 * reference (from `reference`, cached in `cache`), device buffers. On
 * failure returns false with *why (owned) set. */
bool problem_setup(rproblem *p, json_t *req, bool *cached, char **why);
void problem_free(rproblem *p);
/* Device work of setup that needs the runner's kernels: checksums. */
typedef CUresult (*checksum_fn)(CUdeviceptr p, size_t bytes, unsigned long long *out);
CUresult problem_upload(rproblem *p, checksum_fn sum);
/* Bytes of guard before a buffer's data (the guard and its offset). */
size_t problem_guard_before(const rbuf *b);
/* Bytes of a buffer's expected values (elem, or a double for bound). */
size_t problem_expect_elem(const rproblem *p, const rbuf *b);

#endif
