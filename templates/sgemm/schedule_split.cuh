// Warp-specialised (the seed's split arrive/wait, CUTLASS's pipeline):
// producer warps fill a ring of kStages stages, consumer warps compute from
// it; producers wait only for empty[s], consumers only for full[s]. The
// first kStages fills need no wait and the last kStages drains no release,
// so both sides arrive the same number of times on every barrier.
//% if regs == "setmaxnreg" then
// regs = setmaxnreg (sm_90a): the producer warpgroup gives registers back
// and the consumer warpgroups take them, within what the block was launched
// with (kThreads x the registers __launch_bounds__ leaves a thread: an inc
// past it waits for ever), so 8 x 16 consumers hold their 128 accumulators
// and both fragment sets where every thread would have 168. Built for plain sm_90 (a program's build without the
// sm_90a flags) the instructions are left out: the same code, spilling,
// which the header's run() takes only from sm_90a code (usable()).
constexpr int kProducerRegs = $(producer_regs), kConsumerRegs = $(consumer_regs);
static_assert(kProducerThreads == 128 &&
                  kProducerRegs * 128 + kConsumerRegs * kConsumerThreads <= 65536 / kThreads / 8 * 8 * kThreads,
              "one producer warpgroup; the registers the block was launched with");
template <int R>
__device__ __forceinline__ void regs_give_back() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
#endif
}
template <int R>
__device__ __forceinline__ void regs_take() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
#endif
}
//% end
__device__ __forceinline__ void run_schedule(const Gemm& g, unsigned char* smem) {
    const int tid = threadIdx.x;
    if (tid == 0) sync_init(smem);
    __syncthreads();  // no thread may touch a barrier before init
//% if regs == "setmaxnreg" then
    if (tid < kProducerThreads) {  // warpgroup 0 (kSplit is 1: no cluster barriers to join)
        regs_give_back<kProducerRegs>();
//% else
    float acc[kTM][kTN] = {};
    if (tid < kProducerThreads) {
//% end
        for (int kt = 0; kt < g.ktiles; ++kt) {
            const int s = kt % kStages;
            const uint32_t phase = (uint32_t)((kt / kStages) & 1);
            if (kt >= kStages) producer_acquire(smem, s, phase ^ 1u);
            produce(g, kt, tid, smem, s);
        }
//% if regs == "setmaxnreg" then
        return;
    }
    regs_take<kConsumerRegs>();  // the accumulators live only past here
    float acc[kTM][kTN] = {};
//% else
        if (kSplit > 1) finish_tile(g, smem, -1, acc);  // the cluster's barriers count producers too
        return;
    }
//% end
    const int ctid = tid - kProducerThreads;
    for (int kt = 0; kt < g.ktiles; ++kt) {
        const int s = kt % kStages;
        const uint32_t phase = (uint32_t)((kt / kStages) & 1);
        consumer_wait(smem, s, phase);
        compute_tile(a_stage(smem, s), b_stage(smem, s), ctid, acc);
        if (kt + kStages < g.ktiles) consumer_release(smem, s);
    }
    finish_tile(g, smem, ctid, acc);
}
