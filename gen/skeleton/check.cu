// A program that includes the header bartune emits for skeleton and calls
// it, as yours will (written by bartune new):
//   nvcc -arch=native -std=c++17 -I <kernels> check.cu -o check && ./check
// where <kernels> is the --kernels folder of bartune run (bartune's kernels/
// by default). Exit 0 when every call matches fmaf on the host.
#include <cmath>
#include <cstdio>
#include <vector>

#include "skeleton.cuh"

int main() {
    const float a = 1.5f, b = -0.25f;
    bool ok = true;
    for (size_t n : {size_t(1), size_t(1000), size_t(1) << 20, (size_t(1) << 20) + 7}) {
        std::vector<float> x(n), y(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)((i * 2654435761u) % 2001) / 1000.f - 1.f;
        float *dx, *dy;
        if (cudaMalloc(&dx, n * 4) != cudaSuccess || cudaMalloc(&dy, n * 4) != cudaSuccess) {
            printf("no GPU memory\n");
            return 77;
        }
        cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
        const char* variant = bartune_skeleton_variant(dx, dy, a, b, n);
        cudaError_t e = bartune_skeleton(dx, dy, a, b, n);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost);
        cudaFree(dx);
        cudaFree(dy);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) bad += y[i] != fmaf(a, x[i], b);
        printf("n = %zu: %s, %zu wrong (%s)\n", n, cudaGetErrorString(e), bad, variant);
        ok = ok && e == cudaSuccess && bad == 0;
    }
    return ok ? 0 : 1;
}
