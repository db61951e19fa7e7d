/* CPU reference of the pipeline problem: out[i] = f^64(in[i]) with
 * f(v) = fmaf(v, 0.999f, 0.0013f). fmaf rounds once, as the GPU's FFMA does,
 * so a correct kernel matches this bit for bit. */
#ifndef BARTUNE_PIPELINE_REFERENCE_H
#define BARTUNE_PIPELINE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* Random inputs in [-4, 4) from `seed` (splitmix64): fresh every run. */
void pipeline_input(float *in, size_t begin, size_t end, uint64_t seed);
void pipeline_reference(const float *in, float *out, size_t begin, size_t end);

#endif
