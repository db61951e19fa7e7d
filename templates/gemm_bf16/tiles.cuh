// Which tile of C a CTA computes. Tiles come in units of kCluster tiles
// along M (the CTAs of a cluster share the unit's B tile; under split-K they
// share the one tile); units go in row
// order, or in groups of kGroup unit-rows so that consecutive units reuse
// A and B tiles in L2. A persistent CTA walks units cid, cid + clusters, ...;
// a one-block-per-tile CTA takes kTilesPerBlock consecutive ones.
struct Problem {
    int M, N, K, ktiles, tiles_n, units_m, units;
    bool ta, tb;  // A stored K x M (M-major tiles), B stored N x K (K-major tiles)
    float alpha, beta;
    $(ctype.C)* C;
    int ldc;
    bool vec_store;  // bf16x2 stores are aligned
//% if (scratch_split or 1) > 1 then
    float* scratch;  // scratch_split: a counter per tile, then each tile's partial sums (roles.cuh)
//% end
};

__device__ __forceinline__ Problem make_problem(int transa, int transb, int M, int N, int K,
                                                float alpha, float beta, $(ctype.C)* C, int ldc) {
    Problem p;
    p.ta = transa != 0;
    p.tb = transb != 0;
    p.M = M;
    p.N = N;
    p.K = K;
    p.ktiles = (K + kBK - 1) / kBK;
    p.tiles_n = (N + kBN - 1) / kBN;
    const int tiles_m = (M + kBM - 1) / kBM;
    p.units_m = (tiles_m + kCluster - 1) / kCluster;
    p.units = p.units_m * p.tiles_n;
    p.alpha = alpha;
    p.beta = beta;
    p.C = C;
    p.ldc = ldc;
    p.vec_store = (ldc % 2) == 0 && (reinterpret_cast<uintptr_t>(C) % $(ctype.C == "float" and 8 or 4)) == 0;
    return p;
}

// The unit of this CTA's lt-th tile, or -1 past its last.
__device__ __forceinline__ int unit_of(const Problem& p, int lt) {
    const int cid = blockIdx.x / kClusterDims, clusters = gridDim.x / kClusterDims;
    const int u = kPersistent ? cid + lt * clusters : (lt < kTilesPerBlock ? cid * kTilesPerBlock + lt : p.units);
    return u < p.units ? u : -1;
}

// Tile coordinates (row of tiles, column of tiles) of unit u for this CTA.
__device__ __forceinline__ void tile_of(const Problem& p, int u, uint32_t rank, int& tm, int& tn) {
    int um;
    if (kGroup > 0) {
        const int span = kGroup * p.tiles_n, first = (u / span) * kGroup;
        const int rows = min(kGroup, p.units_m - first), r = u % span;
        um = first + r % rows;
        tn = r / rows;
    } else {
        um = u / p.tiles_n;
        tn = u % p.tiles_n;
    }
    tm = um * kCluster + (kCluster > 1 ? (int)rank : 0);
}

// The k-tiles of a tile this CTA computes: all, or its share under split-K
// (none where there are fewer k-tiles than CTAs sharing the tile).
//% if (scratch_split or 1) > 1 then
// scratch_split: the CTAs of a tile are blockIdx.y = 0 .. kScratchSplit - 1,
// slice r of K each (none where there are fewer k-tiles than slices).
__device__ __forceinline__ void k_range(const Problem& p, uint32_t, int& kb0, int& nk) {
    const int r = (int)blockIdx.y;
    kb0 = r * p.ktiles / kScratchSplit;
    nk = (r + 1) * p.ktiles / kScratchSplit - kb0;
}
//% else
__device__ __forceinline__ void k_range(const Problem& p, uint32_t rank, int& kb0, int& nk) {
    const int r = kSplit > 1 ? (int)rank : 0;
    kb0 = r * p.ktiles / kSplit;
    nk = (r + 1) * p.ktiles / kSplit - kb0;
}
//% end
