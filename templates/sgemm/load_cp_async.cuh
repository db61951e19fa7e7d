// cp.async loaders (sm_80+): kLoaders threads copy a k-tile of A and of B
// from global to shared memory with no registers in between; bytes past the
// matrix's edge are zero-filled by the copy (src-size < cp-size). 16-byte
// copies where the operand allows them (aligned, and for A an m-major
// stage); 4-byte ones otherwise, which also transpose A into a k-major stage.
constexpr int kAUnits = kBM * kBK / 4, kBUnits = kBK * kBN / 4;  // float4s per tile
constexpr int kAIters = (kAUnits + kLoaders - 1) / kLoaders;
constexpr int kBIters = (kBUnits + kLoaders - 1) / kLoaders;

__device__ __forceinline__ void cp_async16(float* dst, const float* src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void cp_async4(float* dst, const float* src, bool inside) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(inside ? 4 : 0)
                 : "memory");
}

// Four consecutive elements of a row (`left` of them inside it, none when
// the row is outside) to dst[0..3] (step 1) or dst[0], dst[step], ... .
__device__ __forceinline__ void copy4(float* dst, int step, const float* row, const float* base,
                                      int left, bool vec) {
    if (vec && step == 1) {  // aligned source: one copy, zero-filled past `left`
        const int bytes = left <= 0 ? 0 : (left >= 4 ? 16 : 4 * left);
        cp_async16(dst, bytes ? row : base, bytes);
        return;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) cp_async4(dst + q * step, q < left ? row + q : base, q < left);
}
//% if copy4 == "lanes" then

// copy4 = lanes: 4-byte copies one element a thread, consecutive threads
// consecutive elements of a row, so a warp's copy is one run of 128 bytes
// (under units its 32 threads, four elements apart, span 512 bytes: four
// times the sectors), and B's stage is stored without bank conflicts (4-way
// under units). For A into a k-major stage always; for B where its rows are
// not 16-byte aligned (kCheck: at the matrices' edges, zeros past them).
static_assert((kLoaders & (kLoaders - 1)) == 0 && (kBN & (kBN - 1)) == 0 && kLoaders % kBK == 0 &&
                  kBK * kBN % kLoaders == 0,
              "copy4 = lanes: loaders and tile widths are powers of two");
constexpr int kARowStep = kLoaders / kBK;  // rows of A's k-tile per round of loaders
template <bool kCheck>
__device__ __forceinline__ void issue_a_lanes(const Gemm& g, int k0, int ptid, float* As) {
    const int k = ptid % kBK, row0 = ptid / kBK;
    const bool k_in = !kCheck || k0 + k < g.K;
    const float* src = g.A + (long long)(g.m0 + row0) * g.lda + k0 + k;  // one pointer, stepped
    const long long step = (long long)kARowStep * g.lda;
#pragma unroll
    for (int j = 0; j < (kBM + kARowStep - 1) / kARowStep; ++j, src += step) {
        const int row = row0 + j * kARowStep;
        if (kBM % kARowStep != 0 && row >= kBM) break;  // the last round's rows past the tile
        const bool in = k_in && (!kCheck || g.m0 + row < g.M);
        cp_async4(As + k * kAStride + row, in ? src : g.A, in);
    }
}
// Thread ptid copies elements ptid + j kLoaders of B's k-tile (row-major):
// whole rows a round (kLoaders >= kBN) or whole rounds a row. Unrolled by 8
// only: in full, every warp loading at 64 x 256 x 32 spilled (128 registers).
template <bool kCheck>
__device__ __forceinline__ void issue_b_lanes(const Gemm& g, int k0, int ptid, float* Bs) {
#pragma unroll 8
    for (int j = 0; j < kBK * kBN / kLoaders; ++j) {
        const int kr = kLoaders >= kBN ? ptid / kBN + j * (kLoaders / kBN) : j * kLoaders / kBN;
        const int n = kLoaders >= kBN ? ptid % kBN : ptid + j * kLoaders % kBN;
        const int gk = k0 + kr, gn = g.n0 + n;
        const bool in = !kCheck || (gk < g.K && gn < g.N);
        cp_async4(Bs + kr * kBN + n, in ? g.B + (long long)gk * g.ldb + gn : g.B, in);
    }
}
//% end

// A k-tile inside both matrices (inside_tile): whole copies with no checks,
// 16 bytes where kVec (both operands aligned) and the stage's layout allow.
template <bool kVec>
__device__ __forceinline__ void issue_inside(const Gemm& g, int k0, int ptid, float* As, float* Bs) {
//% if copy4 == "lanes" then
    issue_a_lanes<false>(g, k0, ptid, As);
    if (!kVec) {
        issue_b_lanes<false>(g, k0, ptid, Bs);
        return;
    }
//% else
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (kAUnits % kLoaders != 0 && u >= kAUnits) break;  // known at compile time where whole
        const int row = u / (kBK / 4), kq = u % (kBK / 4) * 4;
        copy4(kAKMajor ? As + kq * kAStride + row : As + row * kAStride + kq, kAKMajor ? kAStride : 1,
              g.A + (long long)(g.m0 + row) * g.lda + k0 + kq, g.A, 4, kVec);
    }
//% end
#pragma unroll
    for (int it = 0; it < kBIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (kBUnits % kLoaders != 0 && u >= kBUnits) break;
        const int kr = u / (kBN / 4), nq = u % (kBN / 4) * 4;
        copy4(Bs + kr * kBN + nq, 1, g.B + (long long)(k0 + kr) * g.ldb + g.n0 + nq, g.B, 4, kVec);
    }
}

__device__ __forceinline__ void issue(const Gemm& g, int kt, int ptid, float* As, float* Bs) {
    const int k0 = (g.kt0 + kt) * kBK;
    if (inside_tile(g, k0)) {  // no checks and no zero fill
//% if copy4 == "lanes" then
        if (g.b_vec)  // A's k-major stage takes 4-byte copies either way
//% else
        if (g.a_vec && g.b_vec)
//% end
            issue_inside<true>(g, k0, ptid, As, Bs);
        else
            issue_inside<false>(g, k0, ptid, As, Bs);
        return;
    }
//% if copy4 == "lanes" then
    issue_a_lanes<true>(g, k0, ptid, As);
    if (!g.b_vec) {
        issue_b_lanes<true>(g, k0, ptid, Bs);
        return;
    }
//% else
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (u >= kAUnits) break;
        const int row = u / (kBK / 4), kq = u % (kBK / 4) * 4;
        const int gm = g.m0 + row, gk = k0 + kq;
        float* dst = kAKMajor ? As + kq * kAStride + row : As + row * kAStride + kq;
        copy4(dst, kAKMajor ? kAStride : 1, g.A + (long long)(gm < g.M ? gm : 0) * g.lda + gk, g.A,
              gm < g.M ? g.K - gk : 0, g.a_vec);
    }
//% end
#pragma unroll
    for (int it = 0; it < kBIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (u >= kBUnits) break;
        const int kr = u / (kBN / 4), nq = u % (kBN / 4) * 4;
        const int gk = k0 + kr, gn = g.n0 + nq;
        copy4(Bs + kr * kBN + nq, 1, g.B + (long long)(gk < g.K ? gk : 0) * g.ldb + gn, g.B,
              gk < g.K ? g.N - gn : 0, g.b_vec);
    }
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

//% if loaders ~= "all" and producer == "cp_async" then
// A producer's share of k-tile kt into stage s; the stage is signalled full
// when the copies have landed: by the copies themselves on an mbarrier
// (noinc: this thread's arrival is one of the kFullCount the barrier
// expects), else after waiting for them.
__device__ __forceinline__ void produce(const Gemm& g, int kt, int ptid, unsigned char* smem, int s) {
    issue(g, kt, ptid, a_stage(smem, s), b_stage(smem, s));
//% if barrier == "mbarrier" then
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(full_bar(smem, s))
                 : "memory");
//% else
    cp_async_commit();
    cp_async_wait<0>();
    producer_commit(smem, s);
//% end
}
//% end
