// Register loaders: kLoaders threads read a k-tile of A (kBM x kBK) and of B
// (kBK x kBN) from global memory as float4 where the operand allows it
// (16-byte aligned, whole inside the matrix), element by element with zeros
// past the edges otherwise, then store them into a stage.
constexpr int kAUnits = kBM * kBK / 4, kBUnits = kBK * kBN / 4;  // float4s per tile
constexpr int kAIters = (kAUnits + kLoaders - 1) / kLoaders;
constexpr int kBIters = (kBUnits + kLoaders - 1) / kLoaders;

struct Fetched {
    float4 a[kAIters], b[kBIters];
};

// Four consecutive elements of a row (`left` of them inside it), zero past.
__device__ __forceinline__ float4 load4(const float* p, int left, bool vec) {
    if (vec && left >= 4) return __ldg(reinterpret_cast<const float4*>(p));
    float4 v = make_float4(0, 0, 0, 0);
    if (left > 0) v.x = __ldg(p);
    if (left > 1) v.y = __ldg(p + 1);
    if (left > 2) v.z = __ldg(p + 2);
    if (left > 3) v.w = __ldg(p + 3);
    return v;
}

// A's float4 u of the tile: its row and first k (consecutive threads read
// consecutive k, so each row is one coalesced run).
__device__ __forceinline__ void a_unit(int u, int& row, int& kq) {
    row = u / (kBK / 4);
    kq = u % (kBK / 4) * 4;
}
__device__ __forceinline__ void b_unit(int u, int& kr, int& nq) {
    kr = u / (kBN / 4);
    nq = u % (kBN / 4) * 4;
}

// A k-tile inside both matrices (inside_tile): no checks, one address per
// float4, read whole (kVec: both operands allow 16-byte loads) or as four
// elements.
template <bool kVec>
__device__ __forceinline__ void fetch_inside(const Gemm& g, int k0, int ptid, Fetched& f) {
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        int row, kq;
        a_unit(u, row, kq);
        if (kAUnits % kLoaders == 0 || u < kAUnits)  // known at compile time where whole
            f.a[it] = load4(g.A + (long long)(g.m0 + row) * g.lda + k0 + kq, 4, kVec);
    }
#pragma unroll
    for (int it = 0; it < kBIters; ++it) {
        const int u = ptid + it * kLoaders;
        int kr, nq;
        b_unit(u, kr, nq);
        if (kBUnits % kLoaders == 0 || u < kBUnits)
            f.b[it] = load4(g.B + (long long)(k0 + kr) * g.ldb + g.n0 + nq, 4, kVec);
    }
}

__device__ __forceinline__ void fetch(const Gemm& g, int kt, int ptid, Fetched& f) {
    const int k0 = (g.kt0 + kt) * kBK;
    if (inside_tile(g, k0)) {  // no checks
        if (g.a_vec && g.b_vec)
            fetch_inside<true>(g, k0, ptid, f);
        else
            fetch_inside<false>(g, k0, ptid, f);
        return;
    }
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        int row, kq;
        a_unit(u, row, kq);
        const int gm = g.m0 + row, gk = k0 + kq;
        f.a[it] = u < kAUnits && gm < g.M
                      ? load4(g.A + (long long)gm * g.lda + gk, g.K - gk, g.a_vec)
                      : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int it = 0; it < kBIters; ++it) {
        const int u = ptid + it * kLoaders;
        int kr, nq;
        b_unit(u, kr, nq);
        const int gk = k0 + kr, gn = g.n0 + nq;
        f.b[it] = u < kBUnits && gk < g.K
                      ? load4(g.B + (long long)gk * g.ldb + gn, g.N - gn, g.b_vec)
                      : make_float4(0, 0, 0, 0);
    }
}

__device__ __forceinline__ void stash(const Fetched& f, float* As, float* Bs, int ptid) {
#pragma unroll
    for (int it = 0; it < kAIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (kAUnits % kLoaders != 0 && u >= kAUnits) break;  // known at compile time where whole
        int row, kq;
        a_unit(u, row, kq);
        if (kAKMajor) {  // transposed: four scalar stores
            As[(kq + 0) * kAStride + row] = f.a[it].x;
            As[(kq + 1) * kAStride + row] = f.a[it].y;
            As[(kq + 2) * kAStride + row] = f.a[it].z;
            As[(kq + 3) * kAStride + row] = f.a[it].w;
        } else {
            *reinterpret_cast<float4*>(As + row * kAStride + kq) = f.a[it];
        }
    }
#pragma unroll
    for (int it = 0; it < kBIters; ++it) {
        const int u = ptid + it * kLoaders;
        if (kBUnits % kLoaders != 0 && u >= kBUnits) break;  // known at compile time where whole
        int kr, nq;
        b_unit(u, kr, nq);
        *reinterpret_cast<float4*>(Bs + kr * kBN + nq) = f.b[it];
    }
}

//% if loaders ~= "all" then
// A producer's whole share of k-tile kt, into stage s, then signalled.
__device__ __forceinline__ void produce(const Gemm& g, int kt, int ptid, unsigned char* smem, int s) {
    Fetched f;
    fetch(g, kt, ptid, f);
    stash(f, a_stage(smem, s), b_stage(smem, s), ptid);
    producer_commit(smem, s);
}
//% end
