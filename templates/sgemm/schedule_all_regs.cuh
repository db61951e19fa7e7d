// Every warp loads and computes, through registers: k-tile kt + 1 is read
// from global memory into registers before tile kt is computed and stored
// into the other stage after it (two stages), one __syncthreads per k-tile.
static_assert(kStages == 2, "register loading double-buffers: two stages");
__device__ __forceinline__ void run_schedule(const Gemm& g, unsigned char* smem) {
    const int tid = threadIdx.x;
    float acc[kTM][kTN] = {};
    Fetched f;
    if (g.ktiles > 0) {
        fetch(g, 0, tid, f);
        stash(f, a_stage(smem, 0), b_stage(smem, 0), tid);
    }
    __syncthreads();
    for (int kt = 0; kt < g.ktiles; ++kt) {
        const bool more = kt + 1 < g.ktiles;
        if (more) fetch(g, kt + 1, tid, f);  // in flight during the FMAs
        compute_tile(a_stage(smem, kt & 1), b_stage(smem, kt & 1), tid, acc);
        if (more) stash(f, a_stage(smem, (kt + 1) & 1), b_stage(smem, (kt + 1) & 1), tid);
        __syncthreads();
    }
    finish_tile(g, smem, tid, acc);
}
