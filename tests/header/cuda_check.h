// What the header tests share: the check of a CUDA call (print what failed,
// return false) and the skip where there is no GPU.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                         \
            return false;                                                                    \
        }                                                                                    \
    } while (0)

// Without a GPU the test is skipped: exit 77, CTest's SKIP_RETURN_CODE.
inline void skip_without_gpu() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "no GPU: skipped\n");
        exit(77);
    }
}
