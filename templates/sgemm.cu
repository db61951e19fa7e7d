// bartune template: SGEMM, C = alpha * A * B + beta * C, fp32, row-major.
// A block computes a BM x BN tile of C over k-tiles of BK staged through a
// ring of shared-memory stages. Who loads the stages (every warp, or
// producer warps beside consumer warps) and how the two sides synchronise
// (__syncthreads, named barriers, cuda::barrier, raw mbarrier) are the
// barrier kind, written once in pipeline/sync_*.cuh; how a stage is filled
// (through registers, or cp.async) is the producer kind.
// Variant: $(describe)
#include <cstdint>
#include <cuda_runtime.h>
//% if producer == "tensor_b" then
#include <cuda.h>  // CUtensorMap
//% end
//% if (split or 1) > 1 then
#include <cooperative_groups.h>
//% end
//% if barrier == "cuda_barrier" then
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
//% end

namespace $(ns) {

//% include("sgemm/common.cuh")

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)

//% include("sgemm/compute.cuh")
//% if loaders == "all" then
//%   include("sgemm/load_" .. producer .. ".cuh")
//%   include("sgemm/schedule_all_" .. producer .. ".cuh")
//% else
//%   include("pipeline/sync_" .. barrier .. ".cuh")
//%   include("sgemm/load_" .. producer .. ".cuh")
//%   include(barrier == "syncthreads" and "sgemm/schedule_lockstep.cuh" or "sgemm/schedule_split.cuh")
//% end
//% if (tail or 1) > 1 then
//%   include("sgemm/tail_run.cuh")
//% end
//% if (stream_k or 0) == 1 then
//%   include("sgemm/streamk_run.cuh")
//% end

#endif  // arch guard

//% if (split or 1) > 1 then
// a cluster of kSplit blocks along z shares a tile (compile-time, so a plain
// launch keeps it); clusters exist from sm_90, below it the kernel is a stub
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define BARTUNE_CLUSTER __cluster_dims__(1, 1, $(split))
#else
#define BARTUNE_CLUSTER
#endif
//% else
#define BARTUNE_CLUSTER
//% end
$(kernel_linkage) __global__ void __launch_bounds__(kThreads, $(min_blocks)) BARTUNE_CLUSTER
$(kernel_name)(int M, int N, int K, float alpha, const float* __restrict__ A, int lda,
               const float* __restrict__ B, int ldb, float beta, float* __restrict__ C, int ldc$(producer == "tensor_b" and ",\n               const __grid_constant__ CUtensorMap b_map" or "")$(((scratch_split or 1) > 1 or (tail or 1) > 1 or (stream_k or 0) == 1) and ",\n               float* scratch" or "")) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= $(min_cc * 10)
    extern __shared__ __align__(128) unsigned char smem[];
//% if (scratch_split or 1) > 1 then
    Gemm g = make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    g.scratch = scratch;  // its counters zero at launch (launch().scratch_zero)
//% if producer == "tensor_b" then
    g.b_map = &b_map;
//% end
//% elseif (tail or 1) > 1 then
    run_tail(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, scratch, smem);
//% elseif (stream_k or 0) == 1 then
    run_stream_k(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, scratch, smem);
//% elseif producer == "tensor_b" then
    Gemm g = make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    g.b_map = &b_map;
//% else
    const Gemm g = make_gemm(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
//% end
//% if (tail or 1) == 1 and (stream_k or 0) == 0 then
    run_schedule(g, smem);
//% end
#else
    __trap();  // compiled for an architecture below kMinArch: the launcher never calls this
#endif
}
#undef BARTUNE_CLUSTER  // the next variant of a header defines its own

}  // namespace $(ns)
