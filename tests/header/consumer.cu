// A program of two translation units that both include the emitted header
// and just call the tuned kernel, as a user would; it checks the output bit
// for bit against the CPU reference at several sizes, with aligned and
// unaligned pointers, from both units, and under CUDA graph capture.
// Usage: consumer [expect-tuned|any] [N...]   (exit 77 without a GPU)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pipeline.cuh"
#include "pipeline/reference.h"

// consumer_other.cu: the same header, the other translation unit.
cudaError_t other_unit_run(const float* in, float* out, size_t n, cudaStream_t stream);
const char* other_unit_variant(const float* in, float* out, size_t n);

#include "cuda_check.h"

static bool expect_tuned;

// One call at offsets (in + a, out + b) through `unit` (0 this, 1 other, 2 graph).
static bool check(size_t n, int a, int b, int unit) {
    std::vector<float> in(n + 4), want(n), got(n);
    for (size_t i = 0; i < n + 4; i++) in[i] = (float)((i * 2654435761u) % 8000) * 1e-3f - 4.0f;
    pipeline_chains(in.data() + a, want.data(), 0, n);
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, (n + 4) * sizeof(float)));
    CHECK(cudaMalloc(&d_out, (n + 4) * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), (n + 4) * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, (n + 4) * sizeof(float)));
    const char* variant = unit == 1 ? other_unit_variant(d_in + a, d_out + b, n)
                                    : bartune_pipeline_variant(d_in + a, d_out + b, n);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    if (unit == 2) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        CHECK(bartune_pipeline(d_in + a, d_out + b, n, s));
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaStreamSynchronize(s));
        cudaGraphExecDestroy(ge);
        cudaGraphDestroy(g);
    } else {
        CHECK(unit == 1 ? other_unit_run(d_in + a, d_out + b, n, s)
                        : bartune_pipeline(d_in + a, d_out + b, n, s));
        CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaMemcpy(got.data(), d_out + b, n * sizeof(float), cudaMemcpyDeviceToHost));
    cudaStreamDestroy(s);
    cudaFree(d_in);
    cudaFree(d_out);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && bad++ == 0) first = i;
    const char* how[] = {"this unit", "other unit", "graph"};
    printf("n=%zu in+%d out+%d (%s): %s: %s\n", n, a, b, how[unit], variant,
           bad ? "WRONG" : "bit-exact");
    if (bad) {
        printf("  %zu outputs differ; first at %zu: got %.9g, expected %.9g\n", bad, first,
               got[first], want[first]);
        return false;
    }
    if (expect_tuned && bartune_pipeline_path(d_in + a, d_out + b, n).variant < 0) {
        printf("  expected the tuned variant for this device, got the portable one\n");
        return false;
    }
    return true;
}

int main(int argc, char** argv) {
    skip_without_gpu();
    expect_tuned = argc > 1 && !strcmp(argv[1], "expect-tuned");
    std::vector<size_t> sizes;
    for (int i = 2; i < argc; i++) sizes.push_back(strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {1, 31, 4097, (1u << 20) + 7, (1u << 26) + 123};
    bool ok = true;
    const int offsets[][2] = {{0, 0}, {1, 1}, {3, 3}, {1, 3}, {0, 1}};
    int unit = 0;
    for (size_t n : sizes)
        for (auto& o : offsets) ok = check(n, o[0], o[1], unit++ % 3) && ok;
    // n = 0 does nothing and succeeds
    if (bartune_pipeline(nullptr, nullptr, 0, 0) != cudaSuccess) {
        printf("n=0 did not return cudaSuccess\n");
        ok = false;
    }
    printf(ok ? "all exact\n" : "FAILED\n");
    return ok ? 0 : 1;
}
