// Tensor copies of B (sm_90, raw mbarrier): producer thread 0 asks the copy
// engine for the k-tile of B as one box of kBK rows by kBN columns (the
// tensor map launch() gives: N inner, K rows, no swizzle), which lands as
// Bs[k][n], the stage the consumers read, with the rows past K or N zeroed,
// and completes on full[s] through its byte count; every producer thread
// copies its share of A with cp.async as the cp_async kind does (the copy
// engine does not transpose 4-byte elements into A's k-major stage). Where B
// is not 16-byte aligned (address or ldb % 4) the map is zeros
// (launch().tensor_maps optional) and B goes by cp.async too. Either way
// each producer thread arrives once, when its copies have landed.
//% include("sgemm/load_cp_async.cuh")
constexpr uint32_t kBBoxBytes = kBK * kBN * 4;
static_assert((kBarArea + kStages * kAStage * 4) % 128 == 0 && kBStage * 4 % 128 == 0,
              "tensor copies land on 128-byte boundaries");

__device__ __forceinline__ void produce(const Gemm& g, int kt, int ptid, unsigned char* smem, int s) {
    float* Bs = b_stage(smem, s);
    const uint32_t bar = full_bar(smem, s);
    if (g.b_vec && ptid == 0) {
        const int k0 = (g.kt0 + kt) * kBK;
        // the bytes are announced before the copy can complete; this thread's
        // arrival below comes after both, so the phase cannot end early
        asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(kBBoxBytes)
                     : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(Bs)),
            "l"(reinterpret_cast<uint64_t>(g.b_map)), "r"(g.n0), "r"(k0), "r"(bar)
            : "memory");
    }
    issue(g, kt, ptid, a_stage(smem, s), g.b_vec ? nullptr : Bs);  // B by cp.async only without a map
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}
