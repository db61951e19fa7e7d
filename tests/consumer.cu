// A program that includes the emitted header and just calls the tuned
// kernel, as a user would; it checks the output bit for bit against the CPU
// reference. Usage: consumer N [expect-tuned|any]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pipeline.cuh"

extern "C" {
#include "pipeline/reference.h"
}

#define CHECK(x)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                         \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

int main(int argc, char** argv) {
    size_t n = argc > 1 ? strtoull(argv[1], nullptr, 10) : 1000003;
    bool expect_tuned = argc > 2 && !strcmp(argv[2], "expect-tuned");
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "no GPU: skipped\n");
        return 77;
    }
    std::vector<float> in(n), want(n), got(n);
    pipeline_input(in.data(), 0, n, 12345);
    pipeline_reference(in.data(), want.data(), 0, n);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, n * sizeof(float)));
    const char* variant = bartune_pipeline_variant(d_in, d_out);
    CHECK(bartune_pipeline(d_in, d_out, n, 0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(got.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    printf("n=%zu variant: %s\n", n, variant);
    if (bad) {
        printf("%zu outputs differ; first at %zu: got %.9g, expected %.9g\n", bad, first,
               got[first], want[first]);
        return 1;
    }
    if (expect_tuned && !strcmp(variant, "portable")) {
        printf("expected the tuned variant for this device, got the portable one\n");
        return 1;
    }
    printf("bit-exact\n");
    return 0;
}
