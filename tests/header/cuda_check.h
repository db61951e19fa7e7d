// The header tests' check of a CUDA call: print what failed, return false.
#pragma once
#include <cstdio>

#define CHECK(x)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                         \
            return false;                                                                    \
        }                                                                                    \
    } while (0)
