// Plain C++ (no nvcc): only the declarations of the compiled-once form.
#include <cstdio>

#include BARTUNE_HEADER

const char *other_unit();

int main() {
#ifdef BARTUNE_NAME_axpy2d
    const bartune_axpy2d_path_t p = bartune_axpy2d_path(1.0f, nullptr, nullptr, 0, 0);
    cudaError_t e = bartune_axpy2d(1.0f, nullptr, nullptr, 0, 0);
#else
    const bartune_gemm_bf16_path_t p =
        bartune_gemm_bf16_path(0, 0, 0, 0, 0, 1.0f, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8);
    cudaError_t e = bartune_gemm_bf16(0, 0, 0, 0, 0, 1.0f, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8);
#endif
    printf("%s / %s: %d\n", p.name, other_unit(), (int)e);
    return 0;
}
