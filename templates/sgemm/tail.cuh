// tail = s: the tiles of the last, partly filled round split along K. With
// S blocks resident at once (launch(): the SMs x min_blocks), T tiles run as
// T / S whole rounds and a last round of r = T % S tiles, on r of the S
// slots: at 3001 x 2999 x 4097, 1128 tiles of 64 x 128 make 4 rounds of 264
// and 72 tiles alone. Here the first T - r blocks (blockIdx.x, one
// dimension) take a whole tile each and the last r tiles are s slices of K
// each, r s blocks, s consecutive blocks a tile: the last round does 1 / s
// of a tile's work on s times the slots. A slice writes its partial tile to
// scratch and the last of a tile's s to arrive (a counter per split tile,
// atomicInc: left zero for the next launch, launch().scratch_zero_kept) sums
// them in slice order, the same sums every launch, and stores.
constexpr int kTail = $(tail);
static_assert(kTail > 1 && kSplit == 1, "tail splits whole tiles only");

//% include("sgemm/tile_at.cuh")
//% include("sgemm/parts.cuh")

// The launch's split: its whole tiles (the first blocks) and split tiles,
// read back from gridDim.x (launch(): tiles + split (kTail - 1) blocks).
struct TailSplit {
    int whole, split;
};
// gridDim.x read anew each time (volatile): the compiler would otherwise keep
// make_gemm_tail's answer for finish_tail in registers through the main loop.
__device__ __forceinline__ unsigned blocks_now() {
    unsigned n;
    asm volatile("mov.u32 %0, %%nctaid.x;" : "=r"(n));
    return n;
}
__device__ __forceinline__ TailSplit tail_split(int M, int N) {
    const long long tiles = (long long)((N + kBN - 1) / kBN) * ((M + kBM - 1) / kBM), grid = blocks_now();
    const long long split = (grid - tiles) / (kTail - 1);
    if (split < 0 || split > tiles || tiles + split * (kTail - 1) != grid) __trap();  // a grid launch() never gives
    return {(int)(tiles - split), (int)split};
}
// This block's slice of its split tile (-1: a whole tile).
__device__ __forceinline__ int tail_slice(const TailSplit& ts) {
    return (int)blockIdx.x < ts.whole ? -1 : ((int)blockIdx.x - ts.whole) % kTail;
}
//% if loaders == "all" then

// Every warp loading (loaders = all, raster = row): whole rows of tiles
// instead, so that a whole tile's block is make_gemm's (its tile from
// blockIdx, which the compiler reads again rather than hold: at the 128
// registers of two blocks an SM, a tile index held through the main loop
// spilled ~110 bytes of the 64 x 256 x 32 kind). A grid of tiles_n x
// (tiles_m + L (kTail - 1)): rows below tiles_m - L are whole tiles, then
// kTail times L rows of slices of the last L rows of tiles (launch(): L
// rows cover T % S tiles).
struct TailRows {
    int whole, split;  // rows of tiles
};
__device__ __forceinline__ unsigned rows_now() {
    unsigned n;
    asm volatile("mov.u32 %0, %%nctaid.y;" : "=r"(n));
    return n;
}
__device__ __forceinline__ TailRows tail_rows(int M) {
    const int tiles_m = (M + kBM - 1) / kBM, grid = (int)rows_now();
    const int split = (grid - tiles_m) / (kTail - 1);
    if (split < 0 || split > tiles_m || tiles_m + split * (kTail - 1) != grid) __trap();  // a grid launch() never gives
    return {tiles_m - split, split};
}
//% end

// The scratch memory's address, kept in shared memory rather than the Gemm:
// a register pair held through the main loop spilled the all-warps 64 x 256
// x 32 kind (128 registers at two blocks an SM).
__shared__ float* tail_scratch;

// make_gemm for tail variants. A whole tile (the first blocks) as make_gemm
// makes it, at tile blockIdx.x of the raster; a slice as a GEMM of its own
// over its columns k0.. of A and rows of B (the main loop counts its
// k-tiles from 0). The kernel calls it on two paths, so the whole tiles'
// main loop keeps make_gemm's registers (A, B and K as the kernel's
// parameters, no k offset): held through one shared loop they spilled the
// all-warps 64 x 256 x 32 kind at 128 registers.
__device__ __forceinline__ Gemm make_gemm_tail(int M, int N, int K, float alpha, const float* A, int lda,
                                               const float* B, int ldb, float beta, float* C, int ldc,
                                               int slice, int t) {
    const int total = (K + kBK - 1) / kBK, per = (total + kTail - 1) / kTail;
    if (slice >= 0) {
        const int k0 = min(slice * per, total) * kBK;
        A += k0;
        B += (long long)k0 * ldb;
        K = max(0, min(K - k0, per * kBK));  // a slice past K (K of a few k-tiles) adds zeros
    }
    Gemm g{M, N, K, lda, ldb, ldc, alpha, beta, A, B, C, vec_ok(A, lda), vec_ok(B, ldb), vec_ok(C, ldc), 0, 0, 0,
           (K + kBK - 1) / kBK};
    int tm, tn;
    tile_at(t, (N + kBN - 1) / kBN, (M + kBM - 1) / kBM, tm, tn);
    g.m0 = tm * kBM;
    g.n0 = tn * kBN;
    return g;
}

// The tile's end under tail: a whole tile stored; a slice's partial written
// and, by the tile's last slice to arrive, all summed in slice order and
// stored (parts.cuh).
__device__ __forceinline__ void finish_tail(const Gemm& g, int ctid, float (&acc)[kTM][kTN]) {
    if (ctid < 0) return;
//% if loaders == "all" then
    const TailRows tr = tail_rows(g.M);
    const int slice = (int)blockIdx.y < tr.whole ? -1 : ((int)blockIdx.y - tr.whole) / tr.split;
//% else
    const TailSplit ts = tail_split(g.M, g.N);
    const int slice = tail_slice(ts);
//% end
    if (slice < 0) {
        store_tile(g, ctid, acc);
        return;
    }
//% if loaders == "all" then
    const int tile = ((int)blockIdx.y - tr.whole) % tr.split * (int)gridDim.x + (int)blockIdx.x;  // of the split ones
    const long long counter_words = ((long long)tr.split * gridDim.x + 63) / 64 * 64;
//% else
    const int tile = ((int)blockIdx.x - ts.whole) / kTail;  // of the split ones
    const long long counter_words = ((long long)ts.split + 63) / 64 * 64;
//% end
    float* const slots = tail_scratch + counter_words + (long long)tile * kTail * (kBM * kBN);
    unsigned* const count = reinterpret_cast<unsigned*>(tail_scratch) + tile;
    if (!write_part(slots + slice * (kBM * kBN), count, kTail, ctid, acc)) return;
    sum_parts(kTail, [slots](int z) { return slots + z * (kBM * kBN); }, ctid, acc);
    store_tile(g, ctid, acc);
}
