// Calls the emitted bartune_axpy2d as a user would and checks y = a x + y
// against a double computation within the problem's bound. Exit 77 without
// a GPU. Usage: consumer [expect-tuned|any]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "axpy2d.cuh"

int main(int argc, char** argv) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return 77;
    const bool expect_tuned = argc > 1 && !strcmp(argv[1], "expect-tuned");
    const int shapes[][2] = {{1, 1}, {7, 33}, {1000, 3001}, {513, 4096}};
    bool ok = true;
    for (auto& sh : shapes) {
        const int rows = sh[0], cols = sh[1];
        const size_t n = (size_t)rows * cols;
        std::vector<float> x(n), y(n), got(n);
        for (size_t i = 0; i < n; i++) x[i] = (float)(i % 97) * 0.01f - 0.5f, y[i] = (float)(i % 89) * 0.02f;
        float *dx, *dy;
        cudaMalloc(&dx, n * 4);
        cudaMalloc(&dy, n * 4);
        cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dy, y.data(), n * 4, cudaMemcpyHostToDevice);
        const char* v = bartune_axpy2d_variant(1.75f, dx, dy, rows, cols);
        cudaError_t e = bartune_axpy2d(1.75f, dx, dy, rows, cols, 0);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        cudaMemcpy(got.data(), dy, n * 4, cudaMemcpyDeviceToHost);
        cudaFree(dx);
        cudaFree(dy);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++) {
            double ax = 1.75 * x[i], want = ax + y[i];
            if (!(fabs(got[i] - want) <= 1.2e-7 * (fabs(ax) + fabs(y[i])))) bad++;
        }
        printf("%d x %d: %s: %s\n", rows, cols, v, e != cudaSuccess ? cudaGetErrorString(e) : bad ? "WRONG" : "within the bound");
        ok = ok && e == cudaSuccess && !bad && !(expect_tuned && bartune_axpy2d_path(1.75f, dx, dy, rows, cols).variant < 0);
    }
    return ok ? 0 : 1;
}
