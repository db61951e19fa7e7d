// The program's other unit: the same declarations, nothing compiled again.
#include BARTUNE_HEADER

const char *other_unit() {
#ifdef BARTUNE_NAME_axpy2d
    return bartune_axpy2d_variant(1.0f, nullptr, nullptr, 0, 0);
#else
    return bartune_gemm_bf16_variant(0, 0, 0, 0, 0, 1.0f, nullptr, 8, nullptr, 8, 0.0f, nullptr, 8);
#endif
}
