// stream_k = 1 (stream-K after rounds of whole tiles, as CUTLASS's hybrid):
// with S blocks resident at once (launch(): the SMs x min_blocks), T tiles
// as T / S rounds leave the last round's T % S tiles on part of the slots.
// Here the first (T / S - 1) S tiles are whole tiles, a block each (the rows
// of blockIdx.y but the last), and the last W = S + T % S tiles (all T where
// T < S) are shared out in equal runs of k-tiles over the last row's S
// blocks. A block's run crosses tile edges in one ring of stages (the
// producers go on into the next tile while the consumers finish one), so
// each slot does W / S tiles of work and no block waits for another. A
// block's part of a tile that is not all of it goes to scratch (two slots a
// block: the part where its run begins and the part where it ends); the
// last of a tile's blocks to arrive (a counter per shared tile, atomicInc:
// left zero for the next launch, launch().scratch_zero_kept) sums the parts
// in block order, the same sums every launch, and stores.
static_assert(kSplit == 1 && kProducerThreads > 0, "stream-K runs the warp-specialised ring, whole tiles");

//% include("sgemm/tile_at.cuh")
//% include("sgemm/parts.cuh")

// The launch's share-out, read back from the grid (launch(): S x (rounds + 1)).
struct StreamK {
    int tiles_n, tiles_m, ktiles;  // tiles of C, k-tiles of a tile
    int whole, shared;             // tiles before the shared ones (whole tiles), tiles shared out
    long long per;                 // k-tiles of a block's run
};
__device__ __forceinline__ StreamK stream_k_of(int M, int N, int K) {
    StreamK sk;
    sk.tiles_n = (N + kBN - 1) / kBN;
    sk.tiles_m = (M + kBM - 1) / kBM;
    sk.ktiles = max((K + kBK - 1) / kBK, 1);  // K = 0: one k-tile of zeros, so C is still scaled
    const long long tiles = (long long)sk.tiles_n * sk.tiles_m, slots = gridDim.x;
    const long long rounds = tiles / slots > 1 ? tiles / slots - 1 : 0;
    if (gridDim.y != rounds + 1 || gridDim.z != 1) __trap();  // a grid launch() never gives
    sk.whole = (int)(rounds * slots);
    sk.shared = (int)(tiles - sk.whole);
    sk.per = ((long long)sk.shared * sk.ktiles + slots - 1) / slots;
    return sk;
}

// The part of a block's run [it, e) in one shared tile: the tile t and its
// k-tiles k0..k1 (the run goes on at t's k-tile k1).
struct Part {
    int t, k0, k1;
};
__device__ __forceinline__ Part part_at(const StreamK& sk, long long it, long long e) {
    const int t = (int)(it / sk.ktiles);
    const long long t0 = (long long)t * sk.ktiles;
    return {t, (int)(it - t0), (int)min((long long)sk.ktiles, e - t0)};
}

// g at tile t of the raster (whole tiles first, then the shared ones).
__device__ __forceinline__ Gemm gemm_at(Gemm g, const StreamK& sk, int t) {
    int tm, tn;
    tile_at(t, sk.tiles_n, sk.tiles_m, tm, tn);
    g.m0 = tm * kBM;
    g.n0 = tn * kBN;
    return g;
}

// Block b's slot for its part of shared tile t, whose first k-tile is t0 of
// the share-out: slot 0 where b's run begins in t, else slot 1 (it ends there).
__device__ __forceinline__ float* part_slot(float* scratch, const StreamK& sk, int b, long long t0) {
    const long long counter_words = ((long long)sk.shared + 63) / 64 * 64;
    return scratch + counter_words + ((long long)b * 2 + (b * sk.per >= t0 ? 0 : 1)) * (kBM * kBN);
}

// A part of shared tile t (this block's k-tiles of it, not all): written to
// this block's slot; the tile's last block to arrive sums the parts of its
// blocks first..last in order and stores (parts.cuh).
__device__ __forceinline__ void finish_part(const Gemm& g, const StreamK& sk, int t, float* scratch, int ctid,
                                            float (&acc)[kTM][kTN]) {
    const long long t0 = (long long)t * sk.ktiles;
    const int first = (int)(t0 / sk.per), last = (int)((t0 + sk.ktiles - 1) / sk.per);
    unsigned* const count = reinterpret_cast<unsigned*>(scratch) + t;
    if (!write_part(part_slot(scratch, sk, (int)blockIdx.x, t0), count, (unsigned)(last - first + 1), ctid, acc))
        return;
    sum_parts(last - first + 1, [&](int z) { return part_slot(scratch, sk, first + z, t0); }, ctid, acc);
    store_tile(g, ctid, acc);
}
