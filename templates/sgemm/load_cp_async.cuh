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

// A k-tile inside both matrices (inside_tile): whole copies with no checks,
// 16 bytes where kVec (both operands aligned) and the stage's layout allow.
template <bool kVec>
__device__ __forceinline__ void issue_inside(const Gemm& g, int k0, int ptid, float* As, float* Bs) {
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (kAUnits % kLoaders != 0 && u >= kAUnits) break;  // known at compile time where whole
        const int row = u / (kBK / 4), kq = u % (kBK / 4) * 4;
        copy4(kAKMajor ? As + kq * kAStride + row : As + row * kAStride + kq, kAKMajor ? kAStride : 1,
              g.A + (long long)(g.m0 + row) * g.lda + k0 + kq, g.A, 4, kVec);
    }
//% if producer == "tensor_b" then
    if (!Bs) return;  // B by its tensor copy
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
        if (g.a_vec && g.b_vec)
            issue_inside<true>(g, k0, ptid, As, Bs);
        else
            issue_inside<false>(g, k0, ptid, As, Bs);
        return;
    }
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
//% if producer == "tensor_b" then
    if (!Bs) return;
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
