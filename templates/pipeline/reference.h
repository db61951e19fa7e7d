/* The pipeline problem's arithmetic on the CPU, for the runner (through
 * bartune_references) and for programs that check the emitted header. */
#ifndef BARTUNE_PIPELINE_REFERENCE_H
#define BARTUNE_PIPELINE_REFERENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = f^64(in[i]) for i in [begin, end). */
void pipeline_chains(const float *in, float *out, size_t begin, size_t end);

#ifdef __cplusplus
}
#endif

#endif
