// Bulk copies with transaction counts (sm_90, raw mbarrier): where the whole
// k-tile lies inside both matrices and both allow 16-byte copies, producer
// warp 0 moves it row by row with cp.async.bulk (BM rows of A into an
// m-major stage, BK rows of B), completing on full[s] through its byte count,
// which lane 0 announces first (expect_tx). Elsewhere (the edge, unaligned
// operands) every producer fills the stage with cp.async instead. Either
// way each producer thread arrives once: kFullCount arrivals per fill.
//% include("sgemm/load_cp_async.cuh")
static_assert(!kAKMajor, "bulk rows of A land in an m-major stage");
constexpr uint32_t kTileBytes = (kBM * kBK + kBK * kBN) * 4;

__device__ __forceinline__ void bulk_row(float* dst, const float* src, uint32_t bytes, uint32_t bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}

__device__ __forceinline__ void produce(const Gemm& g, int kt, int ptid, unsigned char* smem, int s) {
    float* As = a_stage(smem, s);
    float* Bs = b_stage(smem, s);
    const int k0 = (g.kt0 + kt) * kBK;
    const uint32_t bar = full_bar(smem, s);
    if (!(inside_tile(g, k0) && g.a_vec && g.b_vec)) {
        issue(g, kt, ptid, As, Bs);
        asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
        return;
    }
    if (ptid < 32) {
        if (ptid == 0)
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                         "r"(kTileBytes)
                         : "memory");
        __syncwarp();  // the bytes are announced before any copy can complete
        for (int r = ptid; r < kBM + kBK; r += 32) {
            if (r < kBM)
                bulk_row(As + r * kAStride, g.A + (long long)(g.m0 + r) * g.lda + k0, kBK * 4, bar);
            else
                bulk_row(Bs + (r - kBM) * kBN, g.B + (long long)(k0 + r - kBM) * g.ldb + g.n0, kBN * 4, bar);
        }
        if (ptid != 0) mbar_arrive(bar);
    } else {
        mbar_arrive(bar);
    }
}
