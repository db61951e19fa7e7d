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
//% if (scratch_split or 1) > 1 or (stream_k or "off") == "on" then
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
//% if (cluster_n or 1) > 1 then
    p.tiles_n = (p.tiles_n + kClusterN - 1) / kClusterN;  // cluster_n: columns of units of kClusterN tiles
//% end
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
//% if scratch_sum == "spread" and cluster > 1 then
    // spread with clusters along M: blocks ((u kScratchSplit + r) kClusterDims + rank)
    constexpr int kSpan = kScratchSplit * kClusterDims;  // a unit's CTAs in a row
    const int cid = blockIdx.x / kSpan, clusters = gridDim.x / kSpan;
//% elseif scratch_sum == "spread" then
    const int cid = blockIdx.x / kScratchSplit, clusters = gridDim.x / kScratchSplit;  // a tile's CTAs in a row
//% else
    const int cid = blockIdx.x / kClusterDims, clusters = gridDim.x / kClusterDims;
//% end
    const int u = kPersistent ? cid + lt * clusters : (lt < kTilesPerBlock ? cid * kTilesPerBlock + lt : p.units);
    return u < p.units ? u : -1;
}

//% if (cluster_n or 1) > 1 and split > 1 then
// split-K with cluster_n: the K slice of CTA `rank`, and the cluster rank of
// its tile's slice q (the kSplit CTAs of a tile are consecutive ranks)
__device__ __forceinline__ int slice_of(uint32_t rank) { return (int)rank % kSplit; }
__device__ __forceinline__ uint32_t slice_peer(uint32_t rank, int q) { return rank - rank % kSplit + (uint32_t)q; }
//% end
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
//% if (cluster_n or 1) > 1 and split > 1 then
    tm = um;  // split-K: a unit of kClusterN tiles along N, kSplit CTAs each
    tn = tn * kClusterN + (int)rank / kSplit;
//% elseif (cluster_n or 1) > 1 then
    tm = um * kCluster + (int)rank % kCluster;  // cluster_n: the unit's kCluster x kClusterN tiles
    tn = tn * kClusterN + (int)rank / kCluster;
//% else
    tm = um * kCluster + (kCluster > 1 ? (int)rank : 0);
//% end
}

//% if (stream_k or "off") == "on" then
// stream_k: after the rounds in which every cluster takes whole units
// (cid, cid + clusters, ...), the units left over (fewer than the clusters)
// go out as a stream of their T k-tiles: cluster c takes k-tiles [c T / C,
// (c + 1) T / C), in pieces that end at unit ends, the last piece first. A
// piece that holds its unit's last k-tile stores the tile, after adding the
// partial sums of the lower clusters that hold the rest of it; any other
// piece (at most one a cluster: the end of its range, so its first piece)
// leaves its partial sums in scratch (streamk.cuh). So every cluster does
// the same number of k-tiles, give or take one, where whole units would
// leave some clusters idle through the last round.
struct Work {
    int u, kb0, nk;  // unit u's k-tiles kb0 .. kb0 + nk - 1
};
__device__ __forceinline__ void sk_range(const Problem& p, int c, long long& s, long long& e) {
    const int clusters = gridDim.x / kClusterDims;
    const long long t = (long long)(p.units % clusters) * p.ktiles;
    s = t * c / clusters;
    e = t * (c + 1) / clusters;
}
// This CTA's work item w (false past its last).
__device__ __forceinline__ bool work_of(const Problem& p, int w, Work& x) {
    const int cid = blockIdx.x / kClusterDims, clusters = gridDim.x / kClusterDims;
    const int rounds = p.units / clusters;
    if (w < rounds) {
        x.u = cid + w * clusters, x.kb0 = 0, x.nk = p.ktiles;
        return true;
    }
    long long s, e;
    sk_range(p, cid, s, e);
    const long long kt = p.ktiles;
    if (e == s) return false;
    const long long v = (e - 1) / kt - (w - rounds);  // the piece's unit among those left over
    if (v < s / kt) return false;
    const long long lo = max(s, v * kt), hi = min(e, (v + 1) * kt);
    x.u = rounds * clusters + (int)v, x.kb0 = (int)(lo - v * kt), x.nk = (int)(hi - lo);
    return true;
}

//% end
// The k-tiles of a tile this CTA computes: all, or its share under split-K
// (none where there are fewer k-tiles than CTAs sharing the tile).
//% if (scratch_split or 1) > 1 and split > 1 then
// split_scratch: a tile's CTAs are the kSplit of a cluster in each of the
// kScratchSplit grid rows; CTA (blockIdx.y, rank) takes slice blockIdx.y *
// kSplit + rank of K (none where there are fewer k-tiles than slices).
__device__ __forceinline__ void k_range(const Problem& p, uint32_t rank, int& kb0, int& nk) {
    constexpr int kSlices = kScratchSplit * kSplit;
    const int r = (int)blockIdx.y * kSplit + $((cluster_n or 1) > 1 and "slice_of(rank)" or "(int)rank");
    kb0 = r * p.ktiles / kSlices;
    nk = (r + 1) * p.ktiles / kSlices - kb0;
}
//% elseif (scratch_split or 1) > 1 then
// scratch_split: the CTAs of a tile are blockIdx.y = 0 .. kScratchSplit - 1,
// slice r of K each (none where there are fewer k-tiles than slices).
__device__ __forceinline__ void k_range(const Problem& p, uint32_t, int& kb0, int& nk) {
//% if scratch_sum == "spread" and cluster > 1 then
    const int r = (int)(blockIdx.x / kClusterDims % kScratchSplit);  // spread, clusters: unit_of's order
//% elseif scratch_sum == "spread" then
    const int r = (int)(blockIdx.x % kScratchSplit);  // spread: blocks u * kScratchSplit + r
//% else
    const int r = (int)blockIdx.y;
//% end
    kb0 = r * p.ktiles / kScratchSplit;
    nk = (r + 1) * p.ktiles / kScratchSplit - kb0;
}
//% else
__device__ __forceinline__ void k_range(const Problem& p, uint32_t rank, int& kb0, int& nk) {
    const int r = kSplit > 1 ? $((cluster_n or 1) > 1 and split > 1 and "slice_of(rank)" or "(int)rank") : 0;
    kb0 = r * p.ktiles / kSplit;
    nk = (r + 1) * p.ktiles / kSplit - kb0;
}
//% end
