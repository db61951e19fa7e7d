// Which variant a header's dispatcher picks on a given device, with no GPU:
// dispatch_mock_runtime.cpp answers the CUDA runtime calls that read the
// device (the program links the shared cudart, so its definitions are the
// ones called).
// Usage: dispatch_mock NAME MAJOR MINOR SMS N... ; prints the variant of each n.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// dispatch_mock_runtime.cpp (host code: nvcc's device runtime declares these too)
extern const char *mock_name;
extern int mock_major, mock_minor, mock_sms;

#include "pipeline.cuh"

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s NAME MAJOR MINOR SMS N...\n", argv[0]);
        return 2;
    }
    mock_name = argv[1];
    mock_major = atoi(argv[2]);
    mock_minor = atoi(argv[3]);
    mock_sms = atoi(argv[4]);
    static float in[4], out[4];
    for (int i = 5; i < argc; i++)
        printf("%s\n", bartune_pipeline_variant(in, out, strtoull(argv[i], nullptr, 10)));
    return 0;
}
