/* The C side of a host baseline: library code (cuBLAS, say) that bench
 * times beside the tuned kernel, on the same inputs, verified by the same
 * rule. A problem names it in host_baselines (gen/lib/problem.lua); bartune
 * builds the .cu with nvcc into a shared object (-shared, the problem's libs
 * linked) and the runner loads it and calls, for every launch,
 *
 *     extern "C" int bartune_baseline(void *const *args, cudaStream_t stream,
 *                                     char *error, size_t error_len);
 *
 * args[i] points at the value of the problem's i-th kernel argument: a
 * buffer's device pointer (as a void *), a size or scalar in its declared C
 * type. Enqueue the work on `stream` (the runner's events time it there)
 * and return 0, or nonzero after writing a message into error. The runner's
 * CUDA context is current on the calling thread.
 *
 * It runs inside the runner, trusted like the CPU reference: both are part
 * of the problem's definition, written by its author, not variants under
 * test (those are checked as hostile: see the README). */
#ifndef BARTUNE_BASELINE_H
#define BARTUNE_BASELINE_H

#include <stddef.h>

#define BARTUNE_BASELINE_ARG(args, i, type) (*(type const *)(args)[i])

#endif
