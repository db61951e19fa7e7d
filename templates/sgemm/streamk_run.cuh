// The kernel's body under stream_k: a whole tile's block runs the plain
// schedule; a block of the last row runs its share of k-tiles [b, e) of the
// shared tiles through one ring, tile part by tile part.
__device__ __forceinline__ void run_stream_k(int M, int N, int K, float alpha, const float* A, int lda,
                                             const float* B, int ldb, float beta, float* C, int ldc,
                                             float* scratch, unsigned char* smem) {
    const StreamK sk = stream_k_of(M, N, K);
    const Gemm g = make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    if (blockIdx.y + 1 < gridDim.y) {  // a whole tile
        run_schedule(gemm_at(g, sk, (int)(blockIdx.y * gridDim.x + blockIdx.x)), smem);
        return;
    }
    const long long b = blockIdx.x * sk.per, e = min(b + sk.per, (long long)sk.shared * sk.ktiles);
    const int tid = threadIdx.x;
    if (tid == 0) sync_init(smem);
    __syncthreads();  // no thread may touch a barrier before init
    if (tid < kProducerThreads) {  // warpgroup 0
        regs_give_back<kProducerRegs>();
        int r = 0;  // the ring's count of k-tiles
        for (long long it = b; it < e;) {
            const Part p = part_at(sk, it, e);
            const Gemm gt = gemm_at(g, sk, sk.whole + p.t);
            for (int k = p.k0; k < p.k1; ++k, ++r) {
                const int s = r % kStages;
                if (r >= kStages) producer_acquire(smem, s, (uint32_t)((r / kStages) & 1) ^ 1u);
                produce(gt, k, tid, smem, s);
            }
            it = (long long)p.t * sk.ktiles + p.k1;
        }
        return;
    }
    regs_take<kConsumerRegs>();  // the accumulators live only past here
    const int ctid = tid - kProducerThreads, total = (int)(e > b ? e - b : 0);
    int r = 0;
    for (long long it = b; it < e;) {
        const Part p = part_at(sk, it, e);
        float acc[kTM][kTN] = {};
        for (int k = p.k0; k < p.k1; ++k, ++r) {
            const int s = r % kStages;
            consumer_wait(smem, s, (uint32_t)((r / kStages) & 1));
            compute_tile(a_stage(smem, s), b_stage(smem, s), ctid, acc);
            if (r + kStages < total) consumer_release(smem, s);
        }
        const Gemm gt = gemm_at(g, sk, sk.whole + p.t);
        if (p.k0 == 0 && p.k1 == sk.ktiles)
            store_tile(gt, ctid, acc);  // all of the tile in this block's run
        else
            finish_part(gt, sk, p.t, scratch, ctid, acc);
        it = (long long)p.t * sk.ktiles + p.k1;
    }
}
