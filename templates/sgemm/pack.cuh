// pack = rows: an operand whose leading dimension is not a multiple of 4
// floats (3001 x 2999 x 4097's lda 4097, ldb 2999: no row starts 16-byte
// aligned) is copied first, by the variant's before kernel (launch().before),
// into scratch rows of whole float4s, so that the main loop copies it 16 bytes
// at a time instead of 4. Only what the stages take as float4s is copied: B
// always, A where its stage is m-major or the register loaders read float4s.
// The scratch layout, launch() in gen/sgemm.lua: A's rows (M x lda_p floats),
// then B's from the next 256-byte line (K x ldb_p), each part there only
// where that operand is copied.
constexpr bool kPackA = !kAKMajor || $(producer == "regs" and "true" or "false");

__device__ __forceinline__ long long packed_ld(int cols) {
    return ((long long)cols + 3) / 4 * 4;
}
// Whether the before kernel copies A (B): what the sizes say, so that
// launch()'s scratch size can say it too.
__device__ __forceinline__ bool packs_a(int lda) {
    return kPackA && lda % 4 != 0;
}
__device__ __forceinline__ bool packs_b(int ldb) {
    return ldb % 4 != 0;
}
__device__ __forceinline__ float* packed_b_base(float* scratch, int M, int K, int lda) {
    const long long a_bytes = packs_a(lda) ? (long long)M * packed_ld(K) * 4 : 0;
    return scratch + (a_bytes + 255) / 256 * 64;
}

// rows x cols of src (leading dimension ld, any alignment) into dst (ld_p =
// packed_ld(cols), 16-byte aligned), the padding past cols zero: one float4
// a thread, the grid striding over them.
__device__ __forceinline__ void pack_rows(float* __restrict__ dst, const float* __restrict__ src,
                                          int rows, int cols, int ld) {
    const long long per_row = packed_ld(cols) / 4, units = (long long)rows * per_row;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += step) {
        const long long r = u / per_row;
        const int c = (int)(u - r * per_row) * 4;
        const float* s = src + r * ld + c;
        const int left = cols - c;
        const float4 v = make_float4(s[0], left > 1 ? s[1] : 0.0f, left > 2 ? s[2] : 0.0f,
                                     left > 3 ? s[3] : 0.0f);
        reinterpret_cast<float4*>(dst)[u] = v;
    }
}

// The main kernel's operands: the packed copies where the before kernel made them.
__device__ __forceinline__ void use_packed(int M, int N, int K, const float* __restrict__& A, int& lda,
                                           const float* __restrict__& B, int& ldb, float* scratch) {
    float* b = packed_b_base(scratch, M, K, lda);
    if (packs_b(ldb)) {
        B = b;
        ldb = (int)packed_ld(N);
    }
    if (packs_a(lda)) {
        A = scratch;
        lda = (int)packed_ld(K);
    }
}
