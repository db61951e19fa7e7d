// The second translation unit of the header test: includes the same header.
#include "pipeline.cuh"

cudaError_t other_unit_run(const float* in, float* out, size_t n, cudaStream_t stream) {
    return bartune_pipeline(in, out, n, stream);
}

const char* other_unit_variant(const float* in, float* out, size_t n) {
    return bartune_pipeline_variant(in, out, n);
}
