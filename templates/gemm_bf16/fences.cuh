// fences = light: what the kernel's start and end wait for, no more
// (ncu at 1024^3 on the H100, cluster_n = 2: 17% of the warps' samples sat
// in the release/acquire cluster barriers' MEMBAR.ALL.GPU / ERRBAR, which
// wait for every store of C the CTA made; cuBLAS's kernel has none).
// - Start: the barrier inits are released by thread 0's
//   fence.mbarrier_init; the cluster barrier's arrival may then be relaxed
//   and its wait acquires them (the CUTLASS sm90 kernels' order).
// - End, multicast (cluster, cluster_n, b_rows): the producer's tail waits
//   until every consumer that reads its stages (its CTA's and the peers')
//   has released them, so no peer copies into or arrives on this CTA once
//   it leaves; no cluster barrier. Split-K: the peers' reads of this CTA's
//   sums are done when they arrive (their values are stored by then), so a
//   relaxed barrier. The copy engine's stores of C need only have read
//   their boxes (the kernel's end makes them visible).
// One PTX instruction each, beside ptx.cuh's: kept here so that the
// variants without this parameter render as they did.
__device__ __forceinline__ void cluster_sync_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::: "memory");
}
