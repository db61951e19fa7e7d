// bartune template: bf16 GEMM on tensor cores, C = alpha op(A) op(B) + beta
// C, A (M x K) and B (K x N) bf16, each row-major or stored transposed
// (transa, transb), fp32 accumulation, C bf16 row-major.
// The Hopper kind is warp-specialised: producer threads issue bulk tensor
// copies (TMA) of A and B tiles into a ring of shared-memory stages, each
// completing on the stage's full mbarrier with a transaction count;
// consumer warpgroups run wgmma on the stage, then arrive on its empty
// mbarrier. Cooperative: the consumer warpgroups split one tile's rows;
// ping-pong: each takes every other tile, their main loops ordered by a
// barrier so one computes while the other stores. The simt kind is the
// plain kernel for every other GPU (and for calls the copy engine refuses).
// Variant: $(describe)
#include <cstdint>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

//% if kind == "wgmma" then
//% shared("gemm_bf16/ptx.cuh")
//% end
namespace $(ns) {

//% include("gemm_bf16/simt.cuh")
//% if kind == "wgmma" then
// What the kernel's code needs: sm_90a (wgmma, setmaxnreg). Built for
// plain sm_90, the kernel traps and the header's run() takes the simt path.
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define BARTUNE_HOPPER 1
#endif

// Named barriers: 0 __syncthreads, 1-2 the ping-pong order, 3-4 the tma
// epilogue of each consumer warpgroup, 5 the consumers before split-K sums.
constexpr int kBN = $(bn), kBK = 64, kStages = $(stages);
constexpr int kWM = $(wm), kMsub = kWM / 64;       // rows of C per consumer warpgroup
constexpr int kConsumers = $(consumers);           // consumer warpgroups
constexpr bool kPingpong = $(schedule == "pingpong" and "true" or "false");
constexpr int kBM = kPingpong ? kWM : kConsumers * kWM;  // rows of a stage's A tile
constexpr int kCluster = $(cluster);               // CTAs sharing B (multicast), along M
// split-K: kSplit CTAs of a cluster share a tile, each over 1/kSplit of the
// k-tiles; their sums meet in shared memory (distributed, DSMEM)
constexpr int kSplit = $(split or 1);
//% if (cluster_n or 1) > 1 then
// cluster_n: kClusterN CTAs along N share A (multicast), each loading
// 1 / kClusterN of its rows; a CTA's rank is its place along M plus kCluster
// times its place along N
constexpr int kClusterN = $(cluster_n);
//% if split > 1 then
// under split-K: kClusterN groups of the kSplit CTAs of a tile, rank = slice
// + kSplit x place along N; a slice's CTAs along N share A
constexpr int kClusterDims = kClusterN * kSplit;  // CTAs of a cluster
static_assert(kCluster == 1, "split-K clusters share A along N only");
//% else
constexpr int kClusterDims = kCluster * kClusterN;  // CTAs of a cluster
static_assert(kSplit == 1, "multicast or split-K, not both");
//% end
//% else
constexpr int kClusterDims = kCluster * kSplit;   // CTAs of a cluster
static_assert(kCluster == 1 || kSplit == 1, "multicast or split-K, not both");
//% end
//% if (scratch_split or 1) > 1 then
// split-K through scratch memory: kScratchSplit CTAs a tile (blockIdx.y), any
// of them resident at any time; the last to finish sums the partials
constexpr int kScratchSplit = $(scratch_split);
//% end
constexpr int kIssuers = $(producer == "warpgroup" and 2 or 1);  // threads issuing copies
constexpr int kProducerThreads = $(producer == "warpgroup" and 128 or 32);
constexpr int kThreads = kConsumers * 128 + kProducerThreads;
constexpr int kABytes = kBM * kBK * 2, kBBytes = kBK * kBN * 2;
constexpr int kStageBytes = kABytes + kBBytes;
constexpr int kBBoxes = kBN / 64;                  // B arrives as 64 x 64 boxes (128 B rows)
constexpr int kReaders = kPingpong ? 1 : kConsumers;  // warpgroups reading one stage
//% if (cluster_n or 1) > 1 and split > 1 then
constexpr int kEmptyCount = 4 * kReaders * kClusterN;  // one arrival per consumer warp sharing the stage's A
//% elseif (cluster_n or 1) > 1 then
constexpr int kEmptyCount = 4 * kReaders * kClusterDims;  // one arrival per consumer warp of the cluster
//% else
constexpr int kEmptyCount = 4 * kReaders * kCluster;  // one arrival per consumer warp
//% end
constexpr bool kPersistent = $(grid == "persistent" and "true" or "false");
constexpr int kTilesPerBlock = kPingpong ? 2 : 1;  // one-block-per-tile grids
constexpr int kGroup = $(raster == "grouped" and 8 or 0);  // rows of units per L2 group
// tma: the epilogue writes each consumer warpgroup's rows into a swizzled
// buffer of shared memory that the copy engine stores (C's old values come
// in the same way, loaded while the main loop runs); direct: from registers
//% -- tma_store: boxes of 64 x 64 through two buffers (roles.cuh); a template comment, so
//% -- that the other variants render as before and their records stay current
constexpr bool kTmaEpilogue = $(epilogue == "tma" and "true" or "false");
constexpr int kCBytes = kWM * kBN * 2;             // one warpgroup's rows of C
//% if b_rows < 64 then
static_assert(kBN % 64 == 0 && kCluster % kBBoxes == 0, "B's boxes split by rows over the cluster");
//% else
static_assert(kBN % 64 == 0 && kBBoxes % kCluster == 0, "B boxes split over the cluster");
//% end
static_assert(kABytes % 1024 == 0, "stages stay 1024-byte aligned (128-byte swizzle atoms)");
//% if (cluster_n or 1) > 1 then
static_assert((kBM / 64) % kClusterN == 0, "A's 64-row boxes split over the CTAs along N");
//% end

//% include("gemm_bf16/hopper.cuh")
//% include("gemm_bf16/tiles.cuh")
//% include("gemm_bf16/ring.cuh")
//% if (fences or "full") == "light" then
//% include("gemm_bf16/fences.cuh")
//% end
//% include("gemm_bf16/roles.cuh")
//% end

//% if kind == "wgmma" then
// the cluster is compile-time, so a plain launch keeps it (sm_90 and up)
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define BARTUNE_CLUSTER __cluster_dims__(kClusterDims, 1, 1)
#else
#define BARTUNE_CLUSTER
#endif
$(kernel_linkage) __global__ void __launch_bounds__(kThreads, 1) BARTUNE_CLUSTER
$(kernel_name)(int transa, int transb, int M, int N, int K, float alpha,
               const __nv_bfloat16* __restrict__ A, int lda, const __nv_bfloat16* __restrict__ B,
               int ldb, float beta, $(ctype.C)* __restrict__ C, int ldc,
               const __grid_constant__ CUtensorMap tmA,
//% if epilogue ~= "direct" and (stream_k or "off") == "on" then
               const __grid_constant__ CUtensorMap tmB, const __grid_constant__ CUtensorMap tmC,
               float* __restrict__ scratch) {
//% elseif epilogue ~= "direct" then
               const __grid_constant__ CUtensorMap tmB, const __grid_constant__ CUtensorMap tmC) {
//% elseif (scratch_split or 1) > 1 then
               const __grid_constant__ CUtensorMap tmB, float* __restrict__ scratch) {
//% else
               const __grid_constant__ CUtensorMap tmB) {
//% end
#if defined(BARTUNE_HOPPER)
    extern __shared__ __align__(1024) unsigned char smem_raw[];
//% if (scratch_split or 1) > 1 or (stream_k or "off") == "on" then
    Problem p = make_problem(transa, transb, M, N, K, alpha, beta, C, ldc);
    p.scratch = scratch;
//% else
    const Problem p = make_problem(transa, transb, M, N, K, alpha, beta, C, ldc);
//% end
    run_roles(p, smem_raw, &tmA, &tmB, $(epilogue ~= "direct" and "&tmC" or "nullptr"));
#else
    __trap();  // not built for sm_90a: the header's run() never launches this
#endif
}
#undef BARTUNE_CLUSTER
//% else
$(kernel_linkage) __global__ void __launch_bounds__(kSimtThreads)
$(kernel_name)(int transa, int transb, int M, int N, int K, float alpha,
               const __nv_bfloat16* __restrict__ A, int lda, const __nv_bfloat16* __restrict__ B,
               int ldb, float beta, $(ctype.C)* __restrict__ C, int ldc) {
    simt_gemm(transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
//% end

}  // namespace $(ns)
