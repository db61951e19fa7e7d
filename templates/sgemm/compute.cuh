// Consumers: each thread accumulates a kTM x kTN tile of C in registers,
// within its group's kWM x kWN tile (a warp's, or the whole block's). Its
// rows are kTM / 4 runs of 4, spread kWM / (kTM / 4) apart within the group
// (likewise its columns), so that a warp's float4 reads of a stage hit
// distinct banks or broadcast, never the same bank twice.
struct Place {
    int r0, c0;      // the group's tile of C within the block's
    int lrow, lcol;  // this thread within the group
};
__host__ __device__ __forceinline__ Place place_of(int ctid) {
    const int grp = ctid / kGroupThreads, lane = ctid % kGroupThreads;
    return {grp / (kBN / kWN) * kWM, grp % (kBN / kWN) * kWN, lane / (kWN / kTN), lane % (kWN / kTN)};
}
__host__ __device__ __forceinline__ int row_of(const Place& p, int i) {
    return p.r0 + i / 4 * (kWM / (kTM / 4)) + p.lrow * 4 + i % 4;
}
__host__ __device__ __forceinline__ int col_of(const Place& p, int j) {
    return p.c0 + j / 4 * (kWN / (kTN / 4)) + p.lcol * 4 + j % 4;
}

//% -- one k at a time (8 x 16) or two (frag = "k2"), both through load_fragments
//% if tn == 16 or frag == "k2" then
//%   if tn == 16 then
// One k-tile from stage (As, Bs): kBK rank-1 updates, one k at a time, the
// next k's fragments read before this k's FMAs (two register sets: a
// 16-wide thread tile's 128 accumulators leave no room for four k at once).
//%   else
// One k-tile from stage (As, Bs): kBK rank-1 updates, two k at a time, the
// next two k's fragments read before these two's FMAs: the four-k loop's 64
// fragment registers as two sets, so shared-memory loads overlap the FMAs.
//%   end
__device__ __forceinline__ void load_fragments(const float* As, const float* Bs, const Place& pl, int k,
                                               float (&a)[kTM], float (&b)[kTN]) {
#pragma unroll
    for (int i = 0; i < kTM; i += 4) {
        const float4 v = *reinterpret_cast<const float4*>(As + k * kAStride + row_of(pl, i));
        a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < kTN; j += 4) {
        const float4 v = *reinterpret_cast<const float4*>(Bs + k * kBN + col_of(pl, j));
        b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
    }
}
//%   if tn == 16 then
__device__ __forceinline__ void compute_tile(const float* As, const float* Bs, int ctid,
                                             float (&acc)[kTM][kTN]) {
    static_assert(kAKMajor, "one k at a time reads A's fragments from a k-major stage");
    const Place pl = place_of(ctid);
    float a[2][kTM], b[2][kTN];
    load_fragments(As, Bs, pl, 0, a[0], b[0]);
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
        if (k + 1 < kBK) load_fragments(As, Bs, pl, k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
//%     if fma_order == "zigzag" then
            for (int jj = 0; jj < kTN; ++jj) {  // odd rows right to left: b reused at the turn
                const int j = (i & 1) ? kTN - 1 - jj : jj;
                acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
            }
//%     else
            for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
//%     end
    }
}
//%   else
__device__ __forceinline__ void compute_tile(const float* As, const float* Bs, int ctid,
                                             float (&acc)[kTM][kTN]) {
    const Place pl = place_of(ctid);
    float a[2][2][kTM], b[2][2][kTN];
#pragma unroll
    for (int q = 0; q < 2; ++q) load_fragments(As, Bs, pl, q, a[0][q], b[0][q]);
#pragma unroll
    for (int k = 0; k < kBK; k += 2) {
        const int s = (k / 2) & 1;
#pragma unroll
        for (int q = 0; q < 2; ++q)
            if (k + 2 < kBK) load_fragments(As, Bs, pl, k + 2 + q, a[s ^ 1][q], b[s ^ 1][q]);
#pragma unroll
        for (int q = 0; q < 2; ++q)
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[s][q][i], b[s][q][j], acc[i][j]);
    }
}
//%   end
//% else
// One k-tile from stage (As, Bs): kBK rank-1 updates, four k at a time.
__device__ __forceinline__ void compute_tile(const float* As, const float* Bs, int ctid,
                                             float (&acc)[kTM][kTN]) {
    const Place pl = place_of(ctid);
#pragma unroll
    for (int kk = 0; kk < kBK; kk += 4) {
        float a[4][kTM], b[4][kTN];
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int j = 0; j < kTN; j += 4) {
                const float4 v = *reinterpret_cast<const float4*>(Bs + (kk + q) * kBN + col_of(pl, j));
                b[q][j] = v.x, b[q][j + 1] = v.y, b[q][j + 2] = v.z, b[q][j + 3] = v.w;
            }
//% if a_layout == "k" then
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int i = 0; i < kTM; i += 4) {
                const float4 v = *reinterpret_cast<const float4*>(As + (kk + q) * kAStride + row_of(pl, i));
                a[q][i] = v.x, a[q][i + 1] = v.y, a[q][i + 2] = v.z, a[q][i + 3] = v.w;
            }
//% else
#pragma unroll
        for (int i = 0; i < kTM; ++i) {  // four k of one row of A at once
            const float4 v = *reinterpret_cast<const float4*>(As + row_of(pl, i) * kAStride + kk);
            a[0][i] = v.x, a[1][i] = v.y, a[2][i] = v.z, a[3][i] = v.w;
        }
//% end
#pragma unroll
        for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
//% if fma_order == "zigzag" then
                for (int jj = 0; jj < kTN; ++jj) {  // odd rows right to left: b reused at the turn
                    const int j = (i & 1) ? kTN - 1 - jj : jj;
                    acc[i][j] = fmaf(a[q][i], b[q][j], acc[i][j]);
                }
//% else
                for (int j = 0; j < kTN; ++j) acc[i][j] = fmaf(a[q][i], b[q][j], acc[i][j]);
//% end
    }
}
//% end

// C = alpha * acc + beta * C for this thread's elements inside M x N; C is
// not read when beta is 0 (BLAS: C may hold anything then).
__device__ __forceinline__ void store_tile(const Gemm& g, int ctid, const float (&acc)[kTM][kTN]) {
    const Place pl = place_of(ctid);
//% if fault == "beta_reads_c" then
    const bool read_c = true;  // fault: C read where beta is 0 too (BLAS: it may hold anything)
//% else
    const bool read_c = g.beta != 0.0f;
//% end
#pragma unroll
    for (int i = 0; i < kTM; ++i) {
        const int gm = g.m0 + row_of(pl, i);
        if (gm >= g.M) continue;
        float* crow = g.C + (long long)gm * g.ldc;
#pragma unroll
        for (int j = 0; j < kTN; j += 4) {
            const int gn = g.n0 + col_of(pl, j);
            if (g.c_vec && gn + 4 <= g.N) {
                float4 c = read_c ? *reinterpret_cast<const float4*>(crow + gn) : make_float4(0, 0, 0, 0);
                c.x = fmaf(g.alpha, acc[i][j], g.beta * c.x);
                c.y = fmaf(g.alpha, acc[i][j + 1], g.beta * c.y);
                c.z = fmaf(g.alpha, acc[i][j + 2], g.beta * c.z);
                c.w = fmaf(g.alpha, acc[i][j + 3], g.beta * c.w);
                *reinterpret_cast<float4*>(crow + gn) = c;
            } else {
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    if (gn + r < g.N)
                        crow[gn + r] = fmaf(g.alpha, acc[i][j + r], read_c ? g.beta * crow[gn + r] : 0.0f);
            }
        }
    }
}

//% if (tail or 1) > 1 then
//%   include("sgemm/tail.cuh")
//% end
//% if (stream_k or 0) == 1 then
//%   include("sgemm/streamk.cuh")
//% end
//% if scratch_sum == "spread" then
// scratch_sum = spread: once a tile's kSplit blocks have written their
// partials (consecutive blocks, blockIdx.x % kSplit the slice: the block scheduler
// starts them in order, so the blocks a block waits for run or have run),
// block r adds share r of the tile's float4s over the slots in split order
// (the same sums every launch) and stores them, every thread taking part:
// each block reads 1 / kSplit of what the last block alone would. The
// counter goes on to 2 kSplit, each block counting again once it saw the
// kSplit arrivals, and the last of those leaves it zero for the next launch
// (launch().scratch_zero_kept): by then no block of the tile still waits.
__device__ __forceinline__ void spread_sum(const Gemm& g, const float* slots, unsigned* count) {
    if (threadIdx.x == 0) {
        atomicAdd(count, 1u);
        unsigned n;
        do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(n) : "l"(count) : "memory");
        while (n < kSplit);
//% -- fault "spread_left" (tests/faults): the counter left at 2 kSplit for the next launch
        $((fault == "counter_left" or fault == "spread_left") and "atomicAdd(count, 1u)" or "atomicInc(count, 2 * kSplit - 1)");  // past 2 kSplit - 1: 0
    }
    __syncthreads();  // the others' partials are read after thread 0 saw them counted
    constexpr int kQuads = kBM * kBN / 4;
    const int r = blockIdx.x % kSplit, e1 = (r + 1) * kQuads / kSplit;
    const bool read_c = g.beta != 0.0f;
    for (int e = r * kQuads / kSplit + threadIdx.x; e < e1; e += kThreads) {
        float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
//% -- fault "spread_short" (tests/faults): the last slot left out of the sum
        for (int z = 0; z < kSplit$(fault == "spread_short" and " - 1" or ""); ++z) {  // L2: other SMs wrote them
            const float4 v = __ldcg(reinterpret_cast<const float4*>(slots) + z * kQuads + e);
            s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
        }
        const int gm = g.m0 + e / (kBN / 4), gn = g.n0 + e % (kBN / 4) * 4;
        if (gm >= g.M) continue;
        float* c = g.C + (long long)gm * g.ldc + gn;
        const float v[4] = {s.x, s.y, s.z, s.w};
        if (g.c_vec && gn + 4 <= g.N) {
            float4 o = read_c ? *reinterpret_cast<const float4*>(c) : make_float4(0, 0, 0, 0);
            *reinterpret_cast<float4*>(c) = make_float4(fmaf(g.alpha, v[0], g.beta * o.x), fmaf(g.alpha, v[1], g.beta * o.y),
                                                        fmaf(g.alpha, v[2], g.beta * o.z), fmaf(g.alpha, v[3], g.beta * o.w));
        } else {
            for (int q = 0; q < 4 && gn + q < g.N; ++q) c[q] = fmaf(g.alpha, v[q], read_c ? g.beta * c[q] : 0.0f);
        }
    }
}

//% end
// The tile's end: stored by each consumer (ctid >= 0); under split-K the
// blocks of the cluster (every thread, producers too, takes part in the
// cluster barriers) first add their sums into the first block's shared
// memory, where its stages were, and only the first block stores.
__device__ __forceinline__ void finish_tile(const Gemm& g, unsigned char* smem, int ctid,
                                            float (&acc)[kTM][kTN]) {
//% if (tail or 1) > 1 then
    (void)smem;
    finish_tail(g, ctid, acc);
//% elseif (split or 1) == 1 and (scratch_split or 1) == 1 then
    (void)smem;
    if (ctid >= 0) store_tile(g, ctid, acc);
//% elseif (scratch_split or 1) > 1 then
    // Split-K through scratch memory: each block writes its partial tile to
    // its slot; the last of the tile's kSplit blocks to arrive (a counter per
    // tile) sums the slots in split order, the same sums every launch, and
    // stores. Blocks of a tile need not run at once. Only the counters are
    // zero at launch (launch().scratch_zero: whole 256-byte lines of them,
    // which keeps the slots 16-byte aligned), and the kernel leaves them
    // zero (scratch_zero_kept: the last block's atomicInc wraps its count to
    // 0); every slot is written before it is read.
    (void)smem;
//%   if scratch_sum == "spread" then
    const long long tiles = (long long)gridDim.x / kSplit * gridDim.y, tile = (long long)blockIdx.y * (gridDim.x / kSplit) + blockIdx.x / kSplit;
//%   else
    __shared__ bool last;
    const long long tiles = (long long)gridDim.x * gridDim.y, tile = (long long)blockIdx.y * gridDim.x + blockIdx.x;
//%   end
    const long long counter_words = (tiles + 63) / 64 * 64;
    float* slots = g.scratch + counter_words + tile * kSplit * (kBM * kBN);
    unsigned* count = reinterpret_cast<unsigned*>(g.scratch) + tile;
    const Place pl = place_of(ctid);
    if (ctid >= 0)
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
            for (int j = 0; j < kTN; j += 4) {
                float* slot = slots + $(scratch_sum == "spread" and "(blockIdx.x % kSplit)" or "blockIdx.z") * (kBM * kBN) + row_of(pl, i) * kBN + col_of(pl, j);
//%   if fault == "scratch_accumulate" then
                // fault (tests/faults/sgemm_faults.lua): adds to its slot, right only where slots start at zero
                for (int r = 0; r < 4; ++r) atomicAdd(slot + r, acc[i][j + r]);
//%   else
                *reinterpret_cast<float4*>(slot) = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
//%   end
            }
    __threadfence();  // this block's partial is visible before its count
    __syncthreads();
//%   if scratch_sum == "spread" then
    spread_sum(g, slots, count);
//%   else
//% -- fault "counter_left" (tests/faults): the count left at kSplit for the next launch
    if (threadIdx.x == 0) last = $(fault == "counter_left" and "atomicAdd(count, 1u)" or "atomicInc(count, kSplit - 1)") == kSplit - 1;
    __syncthreads();
    if (!last || ctid < 0) return;
    __threadfence();  // the other blocks' partials, counted, are read after their counts
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; j += 4) {
            float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            for (int z = 0; z < kSplit; ++z) {  // L2, not L1: other SMs wrote them
                const float4 v = __ldcg(reinterpret_cast<const float4*>(slots + z * (kBM * kBN) + row_of(pl, i) * kBN + col_of(pl, j)));
                s.x += v.x, s.y += v.y, s.z += v.z, s.w += v.w;
            }
            acc[i][j] = s.x, acc[i][j + 1] = s.y, acc[i][j + 2] = s.z, acc[i][j + 3] = s.w;
        }
    store_tile(g, ctid, acc);
//%   end
//% else
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* sums = reinterpret_cast<float*>(smem + kBarArea);
    const bool first = cluster.block_rank() == 0;
    const Place pl = place_of(ctid);
    cluster.sync();  // every block is done with its stages: the first block's become `sums`
    if (first && ctid >= 0)
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
            for (int j = 0; j < kTN; ++j) sums[row_of(pl, i) * kBN + col_of(pl, j)] = acc[i][j];
    cluster.sync();
    if (!first && ctid >= 0) {
        float* into = cluster.map_shared_rank(sums, 0);
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
            for (int j = 0; j < kTN; ++j) atomicAdd(into + row_of(pl, i) * kBN + col_of(pl, j), acc[i][j]);
    }
    cluster.sync();  // all sums are in; the other blocks may end
    if (first && ctid >= 0) {
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
            for (int j = 0; j < kTN; ++j) acc[i][j] = sums[row_of(pl, i) * kBN + col_of(pl, j)];
        store_tile(g, ctid, acc);
    }
//% end
}
