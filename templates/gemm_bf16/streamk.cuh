// stream_k's partial sums (tiles.cuh: work_of). Scratch memory holds a flag
// per CTA (kFlagWords of them, whatever the grid: the zero prefix, which
// launch() declares before the grid is lowered to what runs at once), then
// a slot of kBM x kBN fp32 sums per CTA: element i of consumer thread t at
// float4 i * kT + t, so a warp's stores and loads are whole lines. A CTA
// writes its slot at most once a launch (its one piece that does not store
// its tile) and raises its flag; the CTA that stores the tile waits for the
// flags of the lower clusters' CTAs of the same rank holding the rest of the
// unit, and adds their slots, nearest first: the same sums every launch. It
// waits only on lower clusters, which the GPU starts first, so a launch
// that does not fit on the GPU at once still finishes. Each flag has that
// one waiter, which lowers it again for the next launch (scratch_zero_kept).
constexpr int kQuads = kMsub * kBN / 8, kT = kConsumers * 128;
// gen/gemm_bf16.lua's launch() (CTAs: at most one an SM; a constraint keeps
// them within the flags; a check here made ptxas spill)
constexpr int kFlagWords = 1024;

__device__ __forceinline__ unsigned* sk_flags(const Problem& p) {
    return reinterpret_cast<unsigned*>(p.scratch);
}
__device__ __forceinline__ float4* sk_slot(const Problem& p, int cta) {
    return reinterpret_cast<float4*>(p.scratch + kFlagWords) + (long long)cta * kQuads * kT;
}

// This CTA's partial sums of a piece that does not store its tile.
__device__ __forceinline__ void sk_put(const Problem& p, const float (&acc)[kMsub][kBN / 2]) {
    const int t = threadIdx.x;
    float4* slot = sk_slot(p, blockIdx.x) + t;
    const float* a = &acc[0][0];
#pragma unroll
    for (int i = 0; i < kQuads; ++i) slot[i * kT] = make_float4(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]);
    __threadfence();  // the sums are visible before the flag
    named_sync(5, kT);
    if (t == 0) atomicExch(sk_flags(p) + blockIdx.x, 1u);
}

__device__ __forceinline__ unsigned ld_acquire(const unsigned* a) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}
// The partial sums of unit x.u's k-tiles before x.kb0, added into acc: they
// lie in the slots of the lower clusters whose ranges end inside the unit
// (not empty ones: those raise no flag).
__device__ __forceinline__ void sk_add(const Problem& p, const Work& x, float (&acc)[kMsub][kBN / 2]) {
    const int t = threadIdx.x, cid = blockIdx.x / kClusterDims, rank = blockIdx.x % kClusterDims;
    const int clusters = gridDim.x / kClusterDims;
    const long long start = (long long)(x.u - p.units / clusters * clusters) * p.ktiles;  // the unit's first k-tile
    float* a = &acc[0][0];
    for (int c = cid - 1; c >= 0; --c) {
        long long s, e;
        sk_range(p, c, s, e);
        if (e <= start) break;
        if (e == s) continue;  // no k-tiles at all (fewer left over than clusters)
        const int cta = c * kClusterDims + rank;
        if (t == 0) {
            while (ld_acquire(sk_flags(p) + cta) == 0) {
            }
            sk_flags(p)[cta] = 0u;  // seen: no one else reads it this launch
        }
        named_sync(5, kT);  // the slot is read after thread 0 saw the flag
        const float4* slot = sk_slot(p, cta) + t;
#pragma unroll
        for (int i = 0; i < kQuads; ++i) {
            const float4 v = __ldcg(slot + i * kT);  // L2, not L1: another SM wrote it
            a[4 * i] += v.x, a[4 * i + 1] += v.y, a[4 * i + 2] += v.z, a[4 * i + 3] += v.w;
        }
    }
}
