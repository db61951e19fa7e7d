// The tile shape, the shared-memory layout and the call's arguments, shared
// by the loaders, the compute and the schedules.
constexpr int kBM = $(bm), kBN = $(bn), kBK = $(bk);  // block tile, k-tile
constexpr int kTM = $(tm), kTN = $(tn);                // one consumer thread's tile of C
// The tile of C a group of consumer threads shares (a warp's own wm x wn, or
// the whole block tile): its threads' float4 reads of a stage stay within
// the group's rows of A and columns of B, so a warp reads fewer distinct
// words of each stage than when its threads spread over the whole tile.
constexpr int kWM = $(wm), kWN = $(wn);
constexpr int kGroupThreads = (kWM / kTM) * (kWN / kTN);
constexpr int kStages = $(stages);
constexpr int kConsumerThreads = (kBM / kTM) * (kBN / kTN);
constexpr int kProducerThreads = $(loaders == "all" and 0 or producer_warps * 32);
constexpr int kThreads = kConsumerThreads + kProducerThreads;
constexpr int kLoaders = kProducerThreads ? kProducerThreads : kThreads;  // who fills stages
constexpr int kMinArch = $(min_cc);
// A's stage is k-major (As[k][m], transposed on the way in, so a thread
// reads its rows of A as float4) or m-major (As[m][k], as A lies, so 16-byte
// cp.async can fill it); kPad floats after each row spread the banks.
constexpr bool kAKMajor = $(a_layout == "k" and "true" or "false");
constexpr int kPad = $(pad);
constexpr int kAStride = kAKMajor ? kBM + kPad : kBK + kPad;
constexpr int kAStage = kAKMajor ? kBK * kAStride : kBM * kAStride;  // floats
constexpr int kBStage = kBK * kBN;                                   // Bs[k][n]
constexpr int kBarArea = $(bar_area);  // bytes of barrier objects before the stages
constexpr int kSmemBytes = $(smem_bytes);
constexpr int kGroup = $(raster == "grouped" and 8 or 0);  // tile rows per L2 group; 0: plain
constexpr int kSplit = $((scratch_split or 1) > 1 and scratch_split or split or 1);  // blocks of a cluster sharing a tile, each over 1/kSplit of K
constexpr int kStagesBytes = kStages * (kAStage + kBStage) * 4;
constexpr int kSumBytes = kSplit > 1 ? kBM * kBN * 4 : 0;  // split-K: the tile's sums
static_assert(kSmemBytes == kBarArea + (kStagesBytes > kSumBytes ? kStagesBytes : kSumBytes),
              "space and template disagree on shared memory");
static_assert(kConsumerThreads % 32 == 0, "consumers are whole warps");
static_assert(kBM % kWM == 0 && kBN % kWN == 0 && kWM % kTM == 0 && kWN % kTN == 0 &&
                  (kGroupThreads % 32 == 0 || kGroupThreads == kConsumerThreads),
              "groups of whole warps tile the block tile");
static_assert(kBK % 4 == 0 && kTM % 4 == 0 && kTN % 4 == 0 && kAStride % 4 == 0,
              "float4 fragments");
static_assert(kStages >= 2, "a ring of at least two stages");
static_assert(kMinArch >= 70, "the barrier kinds start at compute capability 7.0");

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

struct Gemm {
    int M, N, K, lda, ldb, ldc;
    float alpha, beta;
    const float* __restrict__ A;
    const float* __restrict__ B;
    float* __restrict__ C;
    bool a_vec, b_vec, c_vec;  // 16-byte accesses possible: aligned base, ld % 4 == 0
    int m0, n0;                // this block's tile of C
    int kt0, ktiles;           // its k-tiles: kt0, kt0 + 1, ... (a slice of K under split-K)
//% if producer == "tensor_b" then
    const CUtensorMap* b_map;  // B's tensor map, zeros where !b_vec (launch().tensor_maps optional)
//% end
//% if (scratch_split or 1) > 1 then
    float* scratch;            // split-K: a counter per tile (kCounterWords), then each tile's kSplit partial tiles
//% end
};

// This block's tile: row-major over the grid, or in groups of kGroup tile
// rows so that blocks running at once share rows of A and columns of B in L2.
__device__ __forceinline__ void tile_of(int& tm, int& tn) {
    if (kGroup == 0) {
//% -- scratch_sum = spread: blockIdx.x is tn * kSplit + the slice of K, so a tile's blocks are consecutive
        tm = blockIdx.y;
        tn = $(scratch_sum == "spread" and "blockIdx.x / kSplit" or "blockIdx.x");
        return;
    }
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x, per_group = kGroup * tiles_n;
    const int first = id / per_group * kGroup;
    const int rows = min(kGroup, tiles_m - first);
    tm = first + id % per_group % rows;
    tn = id % per_group / rows;
}

__device__ __forceinline__ bool vec_ok(const float* p, int ld) {
    return reinterpret_cast<uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

__device__ __forceinline__ Gemm make_gemm(int M, int N, int K, float alpha, const float* A, int lda,
                                          const float* B, int ldb, float beta, float* C, int ldc) {
    const int total = (K + kBK - 1) / kBK, per = (total + kSplit - 1) / kSplit;
    const int kt0 = kSplit > 1 ? (int)$(scratch_sum == "spread" and "(blockIdx.x % kSplit)" or "blockIdx.z") * per : 0;
    const int count = kSplit > 1 ? max(0, min(per, total - kt0)) : total;
    Gemm g{M, N, K, lda, ldb, ldc, alpha, beta, A, B, C, vec_ok(A, lda), vec_ok(B, ldb),
           vec_ok(C, ldc), 0, 0, kt0, count};
    int tm, tn;
    tile_of(tm, tn);
    g.m0 = tm * kBM;
    g.n0 = tn * kBN;
    return g;
}

// Whether k-tile k0.. of this block lies inside both matrices: every tile
// but the last row and column of tiles and a partial last k-tile. Its loads
// need no check of their own: the loaders test this once per k-tile instead
// of every float4 and element against the edges (ncu of the 4096^3 best:
// 2.67 G instructions issued against cuBLAS's 2.44 G, most of the
// difference the checks; 3.0634 -> 2.9208 ms without them, NOTES.md
// 2026-12-03).
__device__ __forceinline__ bool inside_tile(const Gemm& g, int k0) {
    return g.m0 + kBM <= g.M && g.n0 + kBN <= g.N && k0 + kBK <= g.K;
}

__device__ __forceinline__ float* a_stage(unsigned char* smem, int s) {
    return reinterpret_cast<float*>(smem + kBarArea) + s * kAStage;
}
__device__ __forceinline__ float* b_stage(unsigned char* smem, int s) {
    return reinterpret_cast<float*>(smem + kBarArea) + kStages * kAStage + s * kBStage;
}
