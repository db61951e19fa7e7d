//% -- C's element type and its conversions to and from fp32, one and two at a
//% -- time: bf16, or fp32 (problems/gemm_bf16_f32c.lua: no conversion)
//% local c_f32 = ctype.C == "float"
//% local c_pair = c_f32 and "float2" or "__nv_bfloat162"
//% local c_to_f, c_to_f2 = c_f32 and "" or "__bfloat162float", c_f32 and "" or "__bfloat1622float2"
//% local c_of_f, c_of_f2 = c_f32 and "" or "__float2bfloat16_rn", c_f32 and "make_float2" or "__floats2bfloat162_rn"
// The two roles. Producers: the issuing threads (one, or one per operand)
// walk the CTA's tiles and k-tiles, acquire a stage, announce its bytes and
// start the copies. Consumers: each warpgroup waits for a stage, issues its
// wgmmas (64 x kBN x 16 each, kMsub x 4 per k-tile), keeps one k-tile of
// them in flight and frees the stage of the one before; then the epilogue
// scales and stores its rows of the tile from registers.
//% local fault = fault or "none"
//% if c_early == "late" then
// c_early = late: the producer asks L2 for the tile's C, box by box (the
// copy engine's prefetch, one instruction a 64 x 64 box), kLateK k-tiles
// before its last, so the epilogue's loads hit L2 without holding the lines
// there through the whole main loop, and the SMs' reads of C, which their
// epilogues would make all at once, spread over the main loops.
constexpr int kLateK = $(c_lead or 8);
__device__ __forceinline__ void prefetch_c_boxes(const Problem& p, const CUtensorMap* tmC, int tm, int tn) {
    if (p.beta == 0.f) return;
    for (int i = 0; i < kBM / 64; ++i)
        for (int j = 0; j < kBBoxes; ++j)
            asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(
                             reinterpret_cast<uint64_t>(tmC)),
                         "r"(tn * kBN + j * 64), "r"(tm * kBM + i * 64)
                         : "memory");
}
__device__ __forceinline__ void produce(const Problem& p, uint32_t base, uint32_t rank,
                                        const CUtensorMap* tmA, const CUtensorMap* tmB, const CUtensorMap* tmC) {
//% else
__device__ __forceinline__ void produce(const Problem& p, uint32_t base, uint32_t rank,
                                        const CUtensorMap* tmA, const CUtensorMap* tmB) {
//% end
//% if regs == "setmaxnreg" then
    setmaxnreg_dec<$(producer_regs)>();
//% end
    const int warp = (threadIdx.x - kConsumers * 128) / 32, lane = threadIdx.x & 31;
    if (lane != 0 || warp >= kIssuers) return;
    const bool loads_a = kIssuers == 1 || warp == 0, loads_b = kIssuers == 1 || warp == 1;
    prefetch_map(loads_a ? tmA : tmB);
    const uint32_t bytes = (loads_a ? kABytes : 0) + (loads_b ? kBBytes : 0);
//% if (cluster_n or 1) > 1 and split > 1 then
    // split-K with cluster_n: this CTA's share of A's rows goes to the CTAs
    // of its K slice along N (ranks slice + kSplit j); B is its own
    const int rn = (int)rank / kSplit;
    uint16_t a_mask = 0;
    for (int j = 0; j < kClusterN; ++j) a_mask |= (uint16_t)(1u << (slice_of(rank) + j * kSplit));
    constexpr int kARows = kBM / kClusterN;  // rows of A this CTA loads (whole 64-row boxes when M-major)
    constexpr int box0 = 0;
//% elseif (cluster_n or 1) > 1 then
    // cluster_n: this CTA's share of B's boxes goes to the CTAs along M (its
    // column of the cluster), its share of A's rows to those along N (its row)
    const int rm = (int)rank % kCluster, rn = (int)rank / kCluster;
    const int box0 = rm * (kBBoxes / kCluster);
    const uint16_t b_mask = (uint16_t)(((1u << kCluster) - 1) << (rn * kCluster));
    uint16_t a_mask = 0;
    for (int j = 0; j < kClusterN; ++j) a_mask |= (uint16_t)(1u << (rm + j * kCluster));
    constexpr int kARows = kBM / kClusterN;  // rows of A this CTA loads (whole 64-row boxes when M-major)
//% elseif b_rows < 64 then
    // b_rows: more CTAs in the cluster than B has 64-column boxes: CTA rank
    // loads rows bq kBRows.. of box bj (k-rows; N-rows where B is K-major)
    // to their place in the stage, a multiple of the 128-byte swizzle's
    // 1024-byte atom, so the pattern (a function of the address) is the
    // whole box's
    constexpr int kBRows = $(b_rows), kBParts = 64 / kBRows;
    static_assert(kBParts * kBBoxes == kCluster, "the cluster splits B's boxes into whole parts");
    const int bj = (int)rank / kBParts, bq = (int)rank % kBParts;
//% else
    const int box0 = kCluster > 1 ? (int)rank * (kBBoxes / kCluster) : 0;
//% end
//% if fences == "light" then
    int next = 0;  // the iterations issued: where the tail starts
//% end
//% if (stream_k or "off") == "on" then
    Work x;
    for (int w = 0, it0 = 0; work_of(p, w, x); it0 += x.nk, ++w) {
        const int u = x.u, kb0 = x.kb0, nk = x.nk;
//% else
    int kb0, nk;
    k_range(p, rank, kb0, nk);
    for (int lt = 0;; ++lt) {
        const int u = unit_of(p, lt);
        if (u < 0) break;
//% end
        int tm, tn;
        tile_of(p, u, rank, tm, tn);
        for (int kb = 0; kb < nk; ++kb) {
//% if (stream_k or "off") == "on" then
            const int it = it0 + kb, s = stage_of(it);
//% else
            const int it = lt * nk + kb, s = stage_of(it);
//% end
//% if fences == "light" then
            next = it + 1;
//% end
//% if fault == "read_twice" then
            const int k0 = (kb0 + (kb == 1 ? 0 : kb)) * kBK;  // fault: k-tile 1 is k-tile 0 again
//% else
            const int k0 = (kb0 + kb) * kBK;
//% end
            producer_acquire(base, it);
            mbar_expect_tx(full_bar(base, s), bytes);
//% if (cluster_n or 1) > 1 then
            if (loads_a && !p.ta)  // rows rn kARows.. of the tile, into every CTA of this row of the cluster
                tma_load_multicast(stage_a(base, s) + rn * kARows * 128, tmA, k0, tm * kBM + rn * kARows,
                                   full_bar(base, s), a_mask);
            if (loads_a && p.ta)
                for (int i = rn * (kARows / 64); i < (rn + 1) * (kARows / 64); ++i)
                    tma_load_multicast(stage_a(base, s) + i * 8192, tmA, tm * kBM + i * 64, k0, full_bar(base, s),
                                       a_mask);
//% else
            if (loads_a && !p.ta) tma_load(stage_a(base, s), tmA, k0, tm * kBM, full_bar(base, s));
            if (loads_a && p.ta)  // M-major: boxes of 64 rows of M by the k-tile's 64
                for (int i = 0; i < kBM / 64; ++i)
                    tma_load(stage_a(base, s) + i * 8192, tmA, tm * kBM + i * 64, k0, full_bar(base, s));
//% end
//% if c_early == "late" and (stream_k or "off") == "on" then
            // only a piece that stores its tile (the unit's last k-tiles) asks for C
            if (loads_a && kb0 + nk == p.ktiles && kb == (nk > kLateK ? nk - kLateK : 0))
                prefetch_c_boxes(p, tmC, tm, tn);
//% elseif c_early == "late" then
            if (loads_a && kb == (nk > kLateK ? nk - kLateK : 0)) prefetch_c_boxes(p, tmC, tm, tn);
//% end
            if (!loads_b) continue;
//% if b_rows < 64 then
            tma_load_multicast(stage_b(base, s) + bj * 8192 + bq * kBRows * 128, tmB,
                               p.tb ? k0 : tn * kBN + bj * 64, p.tb ? tn * kBN + bj * 64 + bq * kBRows : k0 + bq * kBRows,
                               full_bar(base, s), (uint16_t)((1u << kCluster) - 1));
//% else
            for (int j = box0; j < box0 + kBBoxes / kCluster; ++j) {
                // box j: 64 columns of the tile (N-major), or its rows 64j.. (K-major)
                const uint32_t dst = stage_b(base, s) + j * 8192;
                const int x = p.tb ? k0 : tn * kBN + j * 64, y = p.tb ? tn * kBN + j * 64 : k0;
                if (kCluster == 1)
                    tma_load(dst, tmB, x, y, full_bar(base, s));
                else
//% if (cluster_n or 1) > 1 and split == 1 then
                    tma_load_multicast(dst, tmB, x, y, full_bar(base, s), b_mask);
//% else
                    tma_load_multicast(dst, tmB, x, y, full_bar(base, s), (uint16_t)((1u << kCluster) - 1));
//% end
            }
//% end
        }
    }
//% if fences == "light" then
    // the tail: each stage's last use released by all its readers (fences.cuh)
    if (kClusterDims > 1 && kSplit == 1)
        for (int i = 0; i < kStages; ++i) producer_acquire(base, next + i);
//% end
}

// The epilogue from registers. wgmma's D layout gives warp w rows 16w ..
// 16w + 15 of each 64-row slab, lane l rows l/4 and l/4 + 8, columns 8j +
// 2(l % 4) and the next one, pair j of a row at acc[4j + 2h]. Inside the
// matrix (and with C's rows 4-byte aligned) pairs go as bf16x2, the old
// values of kBatch pairs loaded before any of them is stored, so their
// latencies overlap (a load after a store to C could alias it and waits);
// kBatch is what the registers beside the accumulators hold. Edge tiles go
// element by element.
constexpr int kBatch = $(epilogue_batch);
static_assert((kBN / 8) % kBatch == 0, "batches of whole pairs");
__device__ __forceinline__ void store_row_edge(const Problem& p, $(ctype.C)* c, int col,
                                               const float* acc, int h) {
    for (int j = 0; j < kBN / 8; ++j, c += 8, col += 8)
        for (int e = 0; e < 2; ++e) {
            if (col + e >= p.N) continue;
            float v = p.alpha * acc[4 * j + 2 * h + e];
//% if fault == "beta_reads_c" then
            v += p.beta * $(c_to_f)(c[e]);  // fault: C read where beta is 0 too
//% else
            if (p.beta != 0.f) v += p.beta * $(c_to_f)(c[e]);
//% end
//% -- fault "truncate": C rounded toward zero (the faults' odd ldc stores here)
            c[e] = $(fault == "truncate" and not c_f32 and "__float2bfloat16_rz" or c_of_f)(v);
        }
}
__device__ __forceinline__ void store_row(const Problem& p, $(ctype.C)* c, const float* acc, int h) {
    $(c_pair)* c2 = reinterpret_cast<$(c_pair)*>(c);
#pragma unroll
    for (int j0 = 0; j0 < kBN / 8; j0 += kBatch) {
        float2 old[kBatch];
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
            old[j] = p.beta != 0.f ? $(c_to_f2)(c2[(j0 + j) * 4]) : make_float2(0.f, 0.f);
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            const int a = 4 * (j0 + j) + 2 * h;
            c2[(j0 + j) * 4] = $(c_of_f2)(p.alpha * acc[a] + p.beta * old[j].x,
                                                     p.alpha * acc[a + 1] + p.beta * old[j].y);
        }
    }
}
__device__ __forceinline__ void store_tile(const Problem& p, float (&acc)[kMsub][kBN / 2], int tm,
                                          int tn, int rows0) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31;
    const int col0 = tn * kBN + (lane & 3) * 2;
    const bool inside = p.vec_store && (tn + 1) * kBN <= p.N;
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = tm * kBM + rows0 + ms * 64 + warp * 16 + lane / 4 + 8 * h;
            if (row >= p.M) continue;
            $(ctype.C)* c = p.C + (long long)row * p.ldc + col0;
            if (inside)
                store_row(p, c, acc[ms], h);
            else
                store_row_edge(p, c, col0, acc[ms], h);
        }
    }
}

//% if c_early == "regs" or c_early == "l2" then
// This thread's row of C in slab ms, half h of a tile (store_tile's D layout).
__device__ __forceinline__ int early_row(int tm, int rows0, int ms, int h) {
    const int t = threadIdx.x & 127;
    return tm * kBM + rows0 + ms * 64 + (t / 32) * 16 + (t & 31) / 4 + 8 * h;
}
//% end
//% if c_early == "regs" then
// c_early = regs: C's old values at this thread's pairs of a tile inside
// the matrix, loaded into registers as the tile's main loop starts, so their
// latency hides under the wgmmas (store_tile loads them after the main
// loop, with the tensor cores idle until they come). Edge tiles and beta = 0
// take store_tile. One 32-bit register a pair: acc_regs / 2 of them.
__device__ __forceinline__ bool c_early_inside(const Problem& p, int tn) {
    return p.beta != 0.f && p.vec_store && (tn + 1) * kBN <= p.N;
}
// Where this thread's first pair of a row lies in C (the row clamped into C:
// loads past M read row M - 1, whose values no store uses).
__device__ __forceinline__ __nv_bfloat16* early_pair(const Problem& p, int row, int tn) {
    return p.C + (long long)min(row, p.M - 1) * p.ldc + tn * kBN + (threadIdx.x & 3) * 2;
}
__device__ __forceinline__ void load_c_early(const Problem& p, uint32_t (&old)[kMsub][2][kBN / 8],
                                             int tm, int tn, int rows0) {
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const uint32_t* c = reinterpret_cast<const uint32_t*>(early_pair(p, early_row(tm, rows0, ms, h), tn));
#pragma unroll
            for (int j = 0; j < kBN / 8; ++j) old[ms][h][j] = c[j * 4];
        }
}
__device__ __forceinline__ void store_tile_early(const Problem& p, float (&acc)[kMsub][kBN / 2],
                                                 const uint32_t (&old)[kMsub][2][kBN / 8], int tm,
                                                 int tn, int rows0) {
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = early_row(tm, rows0, ms, h);
            if (row >= p.M) continue;
            __nv_bfloat162* c2 = reinterpret_cast<__nv_bfloat162*>(early_pair(p, row, tn));
#pragma unroll
            for (int j = 0; j < kBN / 8; ++j) {
                const float2 o = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&old[ms][h][j]));
                const int a = 4 * j + 2 * h;
                c2[j * 4] = __floats2bfloat162_rn(p.alpha * acc[ms][a] + p.beta * o.x,
                                                  p.alpha * acc[ms][a + 1] + p.beta * o.y);
            }
        }
}

//% elseif c_early == "l2" then
// c_early = l2: as a tile's main loop starts, its consumer threads ask L2
// for the 128-byte lines of C's old values at their rows (lane % 4 takes
// lines lane % 4, + 4, ...), so store_tile's loads after the main loop hit
// L2 rather than wait for memory. No registers held; beta = 0 asks nothing.
__device__ __forceinline__ void prefetch_c(const Problem& p, int tm, int tn, int rows0) {
    if (p.beta == 0.f) return;
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = early_row(tm, rows0, ms, h);
#pragma unroll
            for (int line = threadIdx.x & 3; line < kBN / $(c_f32 and 32 or 64); line += 4) {
                const int col = tn * kBN + line * $(c_f32 and 32 or 64);
                if (row < p.M && col < p.N)
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(p.C + (long long)row * p.ldc + col));
            }
        }
}

//% end
// The tma epilogue. Element (r, c) of the warpgroup's rows lies in box c /
// 64 (64 columns, 128-byte rows) at row r, its 16-byte chunk swizzled by r
// % 8 as the copy engine's 128-byte swizzle does: the 8 rows a warp writes
// at once land in 8 different chunks, so no bank conflicts.
__device__ __forceinline__ uint32_t c_addr(uint32_t buf, int r, int j, int lane) {
    return buf + (j / 8) * (kWM * 128) + r * 128 + (((j % 8) ^ (r % 8)) << 4) + (lane & 3) * 4;
}
// At the start of a tile: the previous tile's stores have read the buffer;
// C's old values of this tile are on their way (one thread of the group).
__device__ __forceinline__ void load_c(const Problem& p, uint32_t base, int wg, int tm, int tn,
                                       int rows0, const CUtensorMap* tmC) {
    if (!kTmaEpilogue || (threadIdx.x & 127) != 0) return;
    bulk_wait_read();
    if (p.beta == 0.f) return;
    mbar_expect_tx(c_bar(base, wg), kCBytes);
    for (int b = 0; b < kBBoxes; ++b)
        tma_load(c_buf(base, wg) + b * (kWM * 128), tmC, tn * kBN + b * 64, tm * kBM + rows0,
                 c_bar(base, wg));
}
// The copy engine writes a row's last 16 bytes whole: a box holding C's last
// column, where N is not a multiple of 8, would also write the columns up to
// the next multiple of 8 (129 x 257 with ldc = 264 wrote 7 padding columns a
// row). Such a tile takes the direct epilogue.
__device__ __forceinline__ bool tma_stores_exactly(const Problem& p, int tn) {
    return (p.N & 7) == 0 || (tn + 1) * kBN <= p.N;
}
__device__ __forceinline__ void store_tile_tma(const Problem& p, float (&acc)[kMsub][kBN / 2],
                                              int tm, int tn, int rows0, int wg, uint32_t base,
                                              uint32_t& c_phase, const CUtensorMap* tmC) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31;
    const uint32_t buf = c_buf(base, wg);
    if (p.beta != 0.f) {
        mbar_wait(c_bar(base, wg), c_phase);
        c_phase ^= 1u;
    } else {
        named_sync(3 + wg, 128);  // ids 3, 4: thread 0's wait for the last stores' reads
    }
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = ms * 64 + warp * 16 + lane / 4 + 8 * h;
#pragma unroll
            for (int j = 0; j < kBN / 8; ++j) {
                const uint32_t at = c_addr(buf, r, j, lane);
                float v0 = p.alpha * acc[ms][4 * j + 2 * h], v1 = p.alpha * acc[ms][4 * j + 2 * h + 1];
                if (p.beta != 0.f) {
                    const uint32_t o = ld_shared(at);
                    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&o));
                    v0 += p.beta * f.x;
                    v1 += p.beta * f.y;
                }
                const __nv_bfloat162 v = __floats2bfloat162_rn(v0, v1);
                st_shared(at, *reinterpret_cast<const uint32_t*>(&v));
            }
        }
    fence_async_smem();
    named_sync(3 + wg, 128);
    if (t != 0) return;
    for (int b = 0; b < kBBoxes; ++b)  // the copy engine clips rows and columns past C's edges
        tma_store(tmC, buf + b * (kWM * 128), tn * kBN + b * 64, tm * kBM + rows0);
    bulk_commit();
}

// The direct epilogue in a tma-epilogue kernel: C's old values were loaded
// into the buffer as for any tile, so its barrier's phase is taken as
// store_tile_tma takes it; the values come from C itself.
__device__ __forceinline__ void store_tile_edge(const Problem& p, float (&acc)[kMsub][kBN / 2],
                                               int tm, int tn, int rows0, int wg, uint32_t base,
                                               uint32_t& c_phase) {
    if (p.beta != 0.f) {
        mbar_wait(c_bar(base, wg), c_phase);
        c_phase ^= 1u;
    }
    store_tile(p, acc, tm, tn, rows0);
}

//% if epilogue == "tma_store" then
// The tma_store epilogue: a warpgroup's rows of the tile leave in boxes of
// 64 x 64 through two 8 KiB buffers of shared memory, each stored by the copy
// engine while the next box is written (and the last ones while the next
// tile's main loop runs), so no consumer waits on global stores and the
// stages keep their number (the tma epilogue's whole-tile buffers cost a
// stage at 128 x 256). C's old values come from global memory into
// registers, as in the direct epilogue. Tiles at C's edges go direct.
__device__ __forceinline__ uint32_t box_buf(uint32_t base, int wg, uint32_t n) {
    return stage_a(base, kStages) + (wg * 2 + (n & 1u)) * 8192;
}
__device__ __forceinline__ bool boxes_inside(const Problem& p, int tm, int tn, int rows0) {
    return p.vec_store && (tn + 1) * kBN <= p.N && tm * kBM + rows0 + kWM <= p.M;
}
//% if (c_ahead or "off") ~= "off" then
// c_ahead: C's old values of box i (ms = i / kBBoxes, b = i % kBBoxes), both
// halves of the thread's rows, loaded into 16 registers at once
constexpr int kBoxes = kMsub * kBBoxes;
constexpr int kAhead = $(c_ahead == "tile" and "kBoxes" or "1");
__device__ __forceinline__ void load_box_old(const Problem& p, uint32_t (&old)[16], int tm, int tn, int rows0,
                                             int i) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31, ms = i / kBBoxes, b = i % kBBoxes;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int r = warp * 16 + lane / 4 + 8 * h;
        const uint32_t* c2 = reinterpret_cast<const uint32_t*>(
            p.C + (long long)(tm * kBM + rows0 + ms * 64 + r) * p.ldc + tn * kBN + b * 64 + (lane & 3) * 2);
#pragma unroll
        for (int j = 0; j < 8; ++j) old[8 * h + j] = p.beta != 0.f ? c2[j * 4] : 0u;
    }
}
//% end
__device__ __forceinline__ void store_tile_boxes(const Problem& p, float (&acc)[kMsub][kBN / 2], int tm,
                                                 int tn, int rows0, int wg, uint32_t base, uint32_t& boxes,
                                                 const CUtensorMap* tmC) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31;
//% if (c_ahead or "off") ~= "off" then
    // box i's old values (both halves) are loaded kAhead boxes before it is
    // written: their latency under the writes and stores of the boxes between
    uint32_t olds[kBoxes][16];
#pragma unroll
    for (int i = 0; i < kAhead; ++i) load_box_old(p, olds[i], tm, tn, rows0, i);
//% end
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int b = 0; b < kBBoxes; ++b, ++boxes) {
            // the store of two boxes ago has read this buffer (see below)
            const uint32_t buf = box_buf(base, wg, boxes);
//% if (c_ahead or "off") ~= "off" then
            const int i = ms * kBBoxes + b;
            if (i + kAhead < kBoxes) load_box_old(p, olds[i + kAhead], tm, tn, rows0, i + kAhead);
//% end
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                // this thread's 8 pairs of row r of the box: their old values
                // loaded at once, then each scaled into its 16-byte chunk j,
                // which lies at chunk j ^ (r % 8) (r % 8 = lane / 4)
                const int r = warp * 16 + lane / 4 + 8 * h;
//% if (c_ahead or "off") ~= "off" then
                const uint32_t* old = olds[i] + 8 * h;
//% else
                const uint32_t* c2 = reinterpret_cast<const uint32_t*>(
                    p.C + (long long)(tm * kBM + rows0 + ms * 64 + r) * p.ldc + tn * kBN + b * 64 + (lane & 3) * 2);
                uint32_t old[8];
#pragma unroll
                for (int j = 0; j < 8; ++j) old[j] = p.beta != 0.f ? c2[j * 4] : 0u;
//% end
                const uint32_t row = buf + r * 128 + (lane & 3) * 4, swz = (uint32_t)(lane / 4) << 4;
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    const int a = 4 * (b * 8 + j) + 2 * h;
                    const float2 o = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&old[j]));
                    const __nv_bfloat162 v = __floats2bfloat162_rn(p.alpha * acc[ms][a] + p.beta * o.x,
                                                                   p.alpha * acc[ms][a + 1] + p.beta * o.y);
                    st_shared(row + (((uint32_t)j << 4) ^ swz), *reinterpret_cast<const uint32_t*>(&v));
                }
            }
            fence_async_smem();
            // every store issued so far (the box before this one the newest)
            // has read its buffer: after the barrier, the next box may write it
            if (t == 0) bulk_wait_read();
            named_sync(3 + wg, 128);
            if (t == 0) {
                tma_store(tmC, buf, tn * kBN + b * 64, tm * kBM + rows0 + ms * 64);
                bulk_commit();
            }
        }
}

//% end
//% if (scratch_split or 1) > 1 and scratch_sum ~= "spread" then
// Split-K through scratch memory: each of a tile's kScratchSplit CTAs
// writes its sums to its slot, element i of consumer thread t at float4
// i * threads + t (a warp's stores are whole lines); the last to arrive (a
// counter per tile, zero at launch: launch().scratch_zero; its atomicInc
// wraps the count to zero for the next launch: scratch_zero_kept) adds the
// slots in slice order, the same sums every launch, and stores the tile. Every slot
// is written before it is read; the CTAs of a tile need not run at once.
// True where this CTA holds the tile's sums in acc. The verdict passes
// through the last word of the barriers' kilobyte (no static shared memory:
// it would come before the 1024-aligned stages and push them 1 KB on).
static_assert(8 * (2 * kStages + 4) <= 1020, "the barriers leave the kilobyte's last word");
// Whether this CTA is the last of `of` to count itself in at *counter, each
// once its consumers' stores to scratch are visible (all, to the last).
__device__ __forceinline__ bool counted_last(unsigned* counter, unsigned of, uint32_t base) {
    const uint32_t last = base + 1020;
    __threadfence();  // this CTA's sums are visible before its count
    named_sync(5, kConsumers * 128);
    if (threadIdx.x == 0) st_shared(last, atomicInc(counter, of - 1) == of - 1);
    named_sync(5, kConsumers * 128);
    if (!ld_shared(last)) return false;
    __threadfence();  // the others' sums, counted, are read after their counts
    return true;
}
__device__ __forceinline__ bool sum_slices(const Problem& p, float (&acc)[kMsub][kBN / 2], bool any,
                                           uint32_t base) {
    constexpr int kQuads = kMsub * kBN / 8, kT = kConsumers * 128;
    const int t = threadIdx.x;
    const long long counter_words = ((long long)gridDim.x + 63) / 64 * 64;
    float4* const slots = reinterpret_cast<float4*>(p.scratch + counter_words) +
                          (long long)blockIdx.x * kScratchSplit * kQuads * kT;
    float4* const mine = slots + (long long)blockIdx.y * kQuads * kT;
    float* a = &acc[0][0];
#pragma unroll
    for (int i = 0; i < kQuads; ++i)
        mine[i * kT + t] = any ? make_float4(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3])
                               : make_float4(0.f, 0.f, 0.f, 0.f);
    if (!counted_last(reinterpret_cast<unsigned*>(p.scratch) + blockIdx.x, kScratchSplit, base)) return false;
    // slice by slice, a slice's loads all in flight at once (L2, not L1:
    // other SMs wrote them)
#pragma unroll
    for (int i = 0; i < 4 * kQuads; ++i) a[i] = 0.f;
#pragma unroll 1
//% -- fault "scratch_short" (tests/faults): the last slice left out of the sum
    for (int z = 0; z < kScratchSplit$(fault == "scratch_short" and " - 1" or ""); ++z) {
        const float4* slot = slots + (long long)z * kQuads * kT + t;
#pragma unroll
        for (int i = 0; i < kQuads; ++i) {
            const float4 v = __ldcg(slot + i * kT);
            a[4 * i] += v.x, a[4 * i + 1] += v.y, a[4 * i + 2] += v.z, a[4 * i + 3] += v.w;
        }
    }
    return true;
}

//% end
//% if scratch_sum == "spread" then
// scratch_sum = spread: every CTA of a tile writes its sums to its slot as
// above, counts itself in, waits until the tile's kScratchSplit CTAs have
// (they run at once: consecutive blocks, launch()), then adds share r of
// the tile's float4s over the slots in slice order (the same sums every
// launch) and stores them: each CTA reads one tile's worth of sums, where
// the last of them would read kScratchSplit tiles' worth alone. Thread 0
// waits and counts again, up to 2 kScratchSplit, where the count wraps to
// zero for the next launch (scratch_zero_kept): by then no CTA still waits.
__device__ __forceinline__ unsigned ld_acquire_count(const unsigned* a) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}
// Float4 e of a slot (thread e % kT's quad e / kT: rows h = 0, 1 and two
// columns of store_tile's D layout) scaled into C.
__device__ __forceinline__ void store_quad(const Problem& p, float4 v, int e, int tm, int tn) {
    constexpr int kT = kConsumers * 128;
    const int i = e / kT, tt = e % kT, warp = (tt & 127) / 32, lane = tt & 31;
    const int ms = i / (kBN / 8), j = i % (kBN / 8);
    const int row0 = tm * kBM + (tt / 128) * kWM + ms * 64 + warp * 16 + lane / 4;
    const int col = tn * kBN + j * 8 + (lane & 3) * 2;
    const float s[2][2] = {{v.x, v.y}, {v.z, v.w}};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = row0 + 8 * h;
        if (row >= p.M) continue;
        $(ctype.C)* c = p.C + (long long)row * p.ldc + col;
        for (int x = 0; x < 2; ++x) {
            if (col + x >= p.N) continue;
            float out = p.alpha * s[h][x];
            if (p.beta != 0.f) out += p.beta * $(c_to_f)(c[x]);
            c[x] = $(c_of_f)(out);
        }
    }
}
__device__ __forceinline__ void spread_slices(const Problem& p, float (&acc)[kMsub][kBN / 2], bool any,
                                              int tm, int tn) {
    constexpr int kQuads = kMsub * kBN / 8, kT = kConsumers * 128, kE = kQuads * kT;
    const int t = threadIdx.x;
//% if cluster > 1 then
    // clusters along M (tiles.cuh unit_of): tile u of the unit's kClusterDims, slice r
    const long long u = blockIdx.x / (kScratchSplit * kClusterDims) * kClusterDims + blockIdx.x % kClusterDims;
    const long long r = blockIdx.x / kClusterDims % kScratchSplit;
    const long long counter_words = ((long long)p.units * kClusterDims + 63) / 64 * 64;
//% else
    const long long u = blockIdx.x / kScratchSplit, r = blockIdx.x % kScratchSplit;
    const long long counter_words = ((long long)p.units + 63) / 64 * 64;
//% end
    unsigned* const count = reinterpret_cast<unsigned*>(p.scratch) + u;
    float4* const slots = reinterpret_cast<float4*>(p.scratch + counter_words) + u * kScratchSplit * kE;
    float4* const mine = slots + r * kE;
    const float* a = &acc[0][0];
#pragma unroll
    for (int i = 0; i < kQuads; ++i)
        mine[i * kT + t] = any ? make_float4(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3])
                               : make_float4(0.f, 0.f, 0.f, 0.f);
    __threadfence();  // this CTA's sums are visible before its count
    named_sync(5, kT);
    if (t == 0) {
        atomicAdd(count, 1u);
        while (ld_acquire_count(count) < kScratchSplit) {
        }
        atomicInc(count, 2 * kScratchSplit - 1);
    }
    named_sync(5, kT);  // the others' sums are read after thread 0 saw them counted
    const int e0 = (int)(r * kE / kScratchSplit), e1 = (int)((r + 1) * kE / kScratchSplit);
#pragma unroll 1
    for (int e = e0 + t; e < e1; e += kT) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
//% -- faults "spread_short", "spread_pairs_short" (tests/faults): the last slice left out of the sum
        for (int z = 0; z < kScratchSplit$((fault == "spread_short" or fault == "spread_pairs_short") and " - 1" or ""); ++z) {
            const float4 w = __ldcg(slots + (long long)z * kE + e);  // L2: other SMs wrote it
            v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
        }
        store_quad(p, v, e, tm, tn);
    }
}

//% end
// Split-K: each CTA's sums as fp32 rows of kBN + 8 (fewer bank conflicts)
// where its stages were (all consumed: one tile per CTA); then CTA r of the
// cluster adds row slice r of every CTA's sums, read across the cluster, and
// stores it.
constexpr int kPartialRow = kBN + 8;
static_assert(kSplit == 1 || kBM * kPartialRow * 4 <= kStages * kStageBytes, "sums fit the stages");
static_assert(kSplit == 1 || kBM % (4 * kSplit) == 0, "row slices of whole float4 rows");
__device__ __forceinline__ void store_partial(float (&acc)[kMsub][kBN / 2], int rows0,
                                              uint32_t base, bool any) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31;
#pragma unroll
    for (int ms = 0; ms < kMsub; ++ms)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int r = rows0 + ms * 64 + warp * 16 + lane / 4 + 8 * h;
#pragma unroll
            for (int j = 0; j < kBN / 8; ++j) {
                const uint32_t at = stage_a(base, 0) + (r * kPartialRow + j * 8 + (lane & 3) * 2) * 4;
                const float v0 = any ? acc[ms][4 * j + 2 * h] : 0.f, v1 = any ? acc[ms][4 * j + 2 * h + 1] : 0.f;
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(at), "f"(v0), "f"(v1) : "memory");
            }
        }
}
//% if split > 1 then
// A thread's float4s of the slice go kChunk at a time, each chunk's loads
// (distributed shared memory, the slots, C's old values) all issued before
// its sums: one round trip a chunk rather than one an element. kChunk keeps
// the loads in flight to 16 float4s a thread.
constexpr int kSliceRows = kBM / kSplit, kSliceQuads = kBN / 4;
constexpr int kSliceE = kSliceRows * kSliceQuads, kSliceT = kConsumers * 128;
constexpr int kSliceN = (kSliceE + kSliceT - 1) / kSliceT;
//% local fan = math.max(split, scratch_split or 1)  -- at most 8: a chunk of 2 or more
//% -- this CTA's row slice, and the cluster rank of its tile's slice q (cluster_n: tiles.cuh)
//% local slice = (cluster_n or 1) > 1 and "slice_of(rank)" or "(int)rank"
//% local peer = (cluster_n or 1) > 1 and "slice_peer(rank, q)" or "q"
constexpr int kChunk = kSliceN < $(16 // fan) ? kSliceN : $(16 // fan);
// Whether float4 i is in the slice (the last chunk may run past it)
__device__ __forceinline__ bool in_slice(int i) { return kSliceE % kSliceT == 0 || i < kSliceE; }
// The tile of this CTA's cluster (false: none, past the units)
__device__ __forceinline__ bool split_tile(const Problem& p, uint32_t rank, int& tm, int& tn) {
    const int u = unit_of(p, 0);
    if (u < 0) return false;
    tile_of(p, u, rank, tm, tn);
    return true;
}
// C's old values of float4 i of the slice (zero where beta is 0: C unread)
__device__ __forceinline__ float4 slice_old(const Problem& p, int row, int col, bool vec) {
    if (p.beta == 0.f || row >= p.M || col >= p.N) return make_float4(0.f, 0.f, 0.f, 0.f);
    float o[4] = {0.f, 0.f, 0.f, 0.f};
    const $(ctype.C)* cp = p.C + (long long)row * p.ldc + col;
    if (vec && col + 3 < p.N) {
        const $(c_pair)* c2 = reinterpret_cast<const $(c_pair)*>(cp);
        const float2 o0 = $(c_to_f2)(c2[0]), o1 = $(c_to_f2)(c2[1]);
        return make_float4(o0.x, o0.y, o1.x, o1.y);
    }
    for (int e = 0; e < 4 && col + e < p.N; ++e) o[e] = $(c_to_f)(cp[e]);
    return make_float4(o[0], o[1], o[2], o[3]);
}
__device__ __forceinline__ void slice_store(const Problem& p, int row, int col, bool vec, float4 sum,
                                            float4 old) {
    if (row >= p.M || col >= p.N) return;
    $(ctype.C)* cp = p.C + (long long)row * p.ldc + col;
    const float s4[4] = {sum.x, sum.y, sum.z, sum.w}, o4[4] = {old.x, old.y, old.z, old.w};
    if (vec && col + 3 < p.N) {
        $(c_pair)* c2 = reinterpret_cast<$(c_pair)*>(cp);
        c2[0] = $(c_of_f2)(p.alpha * s4[0] + p.beta * o4[0], p.alpha * s4[1] + p.beta * o4[1]);
        c2[1] = $(c_of_f2)(p.alpha * s4[2] + p.beta * o4[2], p.alpha * s4[3] + p.beta * o4[3]);
        return;
    }
    for (int e = 0; e < 4 && col + e < p.N; ++e) {
        float v = p.alpha * s4[e];
        if (p.beta != 0.f) v += p.beta * o4[e];
        cp[e] = $(c_of_f)(v);
    }
}
// The cluster's sums of the chunk's float4s (i0 + n kSliceT), in CTA order
__device__ __forceinline__ void cluster_sums(float4 (&sum)[kChunk], uint32_t base, uint32_t rank, int i0) {
#pragma unroll
    for (int n = 0; n < kChunk; ++n) {
        const int i = i0 + n * kSliceT;
        sum[n] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (!in_slice(i)) continue;
        const int r = $(slice) * kSliceRows + i / kSliceQuads, c = (i % kSliceQuads) * 4;
        const uint32_t at = stage_a(base, 0) + (r * kPartialRow + c) * 4;
#pragma unroll
        for (int q = 0; q < kSplit; ++q) {
            float4 v;
            asm volatile(
                "{\n\t.reg .b32 remote;\n\t"
                "mapa.shared::cluster.u32 remote, %4, %5;\n\t"
                "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n\t}"
                : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                : "r"(at), "r"($(peer))
                : "memory");
            sum[n].x += v.x, sum[n].y += v.y, sum[n].z += v.z, sum[n].w += v.w;
        }
    }
}
// As the CTA starts, its consumers ask L2 for the lines of C's old values
// in its row slice, so reduce_split's loads hit L2 instead of memory
// (nothing asked where beta is 0).
__device__ __forceinline__ void prefetch_slice_c(const Problem& p, uint32_t rank) {
    int tm, tn;
    if (p.beta == 0.f || !split_tile(p, rank, tm, tn)) return;
    constexpr int kLine = 128 / (int)sizeof($(ctype.C)), kLines = (kBN + kLine - 1) / kLine;
    for (int l = threadIdx.x; l < kSliceRows * kLines; l += kSliceT) {
        const int row = tm * kBM + $(slice) * kSliceRows + l / kLines, col = tn * kBN + (l % kLines) * kLine;
        if (row < p.M && col < p.N)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(p.C + (long long)row * p.ldc + col));
    }
}
__device__ __forceinline__ void reduce_split(const Problem& p, uint32_t base, uint32_t rank) {
    int tm, tn;
    if (!split_tile(p, rank, tm, tn)) return;
    const bool vec = p.ldc % 4 == 0 && reinterpret_cast<uintptr_t>(p.C) % 8 == 0;
//% if (scratch_split or 1) > 1 and split > 1 then
    // split_scratch: the cluster's sums of row slice `rank` go to slot
    // blockIdx.y of the slice's kScratchSplit (a counter per slice first:
    // gridDim.x of them); the last cluster to count in adds the slots in
    // order (the same sums every launch) and stores the slice
    unsigned* const counter = reinterpret_cast<unsigned*>(p.scratch) + blockIdx.x;
    float4* const slots = reinterpret_cast<float4*>(p.scratch + ((long long)gridDim.x + 63) / 64 * 64) +
                          (long long)blockIdx.x * kScratchSplit * kSliceE;
    for (int i0 = threadIdx.x; i0 < kSliceE; i0 += kChunk * kSliceT) {
        float4 sum[kChunk];
        cluster_sums(sum, base, rank, i0);
#pragma unroll
        for (int n = 0; n < kChunk; ++n)
            if (in_slice(i0 + n * kSliceT)) slots[blockIdx.y * kSliceE + i0 + n * kSliceT] = sum[n];
    }
    if (!counted_last(counter, kScratchSplit, base)) return;
//% end
    for (int i0 = threadIdx.x; i0 < kSliceE; i0 += kChunk * kSliceT) {
        float4 old[kChunk], sum[kChunk];
        int row[kChunk], col[kChunk];  // of C
#pragma unroll
        for (int n = 0; n < kChunk; ++n) {
            const int i = i0 + n * kSliceT;
            row[n] = tm * kBM + $(slice) * kSliceRows + i / kSliceQuads;
            col[n] = tn * kBN + (i % kSliceQuads) * 4;
            old[n] = in_slice(i) ? slice_old(p, row[n], col[n], vec) : make_float4(0.f, 0.f, 0.f, 0.f);
        }
//% if (scratch_split or 1) > 1 and split > 1 then
#pragma unroll
        for (int n = 0; n < kChunk; ++n) sum[n] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
//% -- fault "split_scratch_short" (tests/faults): the last slot left out of the sum
        for (int z = 0; z < kScratchSplit$(fault == "split_scratch_short" and " - 1" or ""); ++z)
#pragma unroll
            for (int n = 0; n < kChunk; ++n) {
                if (!in_slice(i0 + n * kSliceT)) continue;
                const float4 v = __ldcg(slots + z * kSliceE + i0 + n * kSliceT);  // L2: other SMs wrote it
                sum[n].x += v.x, sum[n].y += v.y, sum[n].z += v.z, sum[n].w += v.w;
            }
//% else
        cluster_sums(sum, base, rank, i0);
//% end
#pragma unroll
        for (int n = 0; n < kChunk; ++n)
            if (in_slice(i0 + n * kSliceT)) slice_store(p, row[n], col[n], vec, sum[n], old[n]);
    }
}
//% else
//% -- split = 1: the reduce is never called; its former text kept so that
//% -- these variants render (and hash) as before, their records current.
//% -- Drop it at the next edit that re-tunes every variant anyway.
__device__ __forceinline__ void reduce_split(const Problem& p, uint32_t base, uint32_t rank) {
    const int u = unit_of(p, 0);
    if (u < 0) return;
    int tm, tn;
    tile_of(p, u, rank, tm, tn);
    constexpr int kRows = kBM / kSplit, kQuads = kBN / 4;
    const bool vec = p.ldc % 4 == 0 && reinterpret_cast<uintptr_t>(p.C) % 8 == 0;
//% if (scratch_split or 1) > 1 and split > 1 then
    // split_scratch: the cluster's sums of row slice `rank` go to slot
    // blockIdx.y of the slice's kScratchSplit (a counter per slice first:
    // gridDim.x of them); the last cluster to count in adds the slots in
    // order (the same sums every launch) and stores the slice
    constexpr int kE = kRows * kQuads;
    unsigned* const counter = reinterpret_cast<unsigned*>(p.scratch) + blockIdx.x;
    float4* const slots = reinterpret_cast<float4*>(p.scratch + ((long long)gridDim.x + 63) / 64 * 64) +
                          (long long)blockIdx.x * kScratchSplit * kE;
//% end
    for (int i = threadIdx.x; i < kRows * kQuads; i += kConsumers * 128) {
        const int r = (int)rank * kRows + i / kQuads, c = (i % kQuads) * 4;
        const uint32_t at = stage_a(base, 0) + (r * kPartialRow + c) * 4;
        float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
        for (int q = 0; q < kSplit; ++q) {
            float4 v;
            asm volatile(
                "{\n\t.reg .b32 remote;\n\t"
                "mapa.shared::cluster.u32 remote, %4, %5;\n\t"
                "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n\t}"
                : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                : "r"(at), "r"(q)
                : "memory");
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
//% if (scratch_split or 1) > 1 and split > 1 then
        slots[blockIdx.y * kE + i] = sum;
    }
    if (!counted_last(counter, kScratchSplit, base)) return;
    for (int i = threadIdx.x; i < kE; i += kConsumers * 128) {
        const int r = (int)rank * kRows + i / kQuads, c = (i % kQuads) * 4;
        float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 1
//% -- fault "split_scratch_short" (tests/faults): the last slot left out of the sum
        for (int z = 0; z < kScratchSplit$(fault == "split_scratch_short" and " - 1" or ""); ++z) {
            const float4 v = __ldcg(slots + z * kE + i);  // L2: other SMs wrote it
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
//% end
        const int row = tm * kBM + r, col = tn * kBN + c;
        if (row >= p.M || col >= p.N) continue;
        $(ctype.C)* cp = p.C + (long long)row * p.ldc + col;
        const float s4[4] = {sum.x, sum.y, sum.z, sum.w};
        if (vec && col + 3 < p.N) {
            $(c_pair)* c2 = reinterpret_cast<$(c_pair)*>(cp);
            float2 o0 = make_float2(0.f, 0.f), o1 = o0;
            if (p.beta != 0.f) o0 = $(c_to_f2)(c2[0]), o1 = $(c_to_f2)(c2[1]);
            c2[0] = $(c_of_f2)(p.alpha * s4[0] + p.beta * o0.x, p.alpha * s4[1] + p.beta * o0.y);
            c2[1] = $(c_of_f2)(p.alpha * s4[2] + p.beta * o1.x, p.alpha * s4[3] + p.beta * o1.y);
            continue;
        }
        for (int e = 0; e < 4 && col + e < p.N; ++e) {
            float v = p.alpha * s4[e];
            if (p.beta != 0.f) v += p.beta * $(c_to_f)(cp[e]);
            cp[e] = $(c_of_f)(v);
        }
    }
}
//% end

//% if (overlap or "off") ~= "off" then
//% include("gemm_bf16/overlap.cuh")
//% else
// One tile's main loop in the layouts' shared-memory forms: A K-major (rows
// of 128 bytes) or M-major (TA: boxes of 64 rows of M, k-rows of 128 bytes),
// B N-major (boxes of 64 columns) or K-major (TB: rows of 128 bytes); one
// instantiation each, so no branch comes between a tile's wgmmas.
template <bool TA, bool TB>
__device__ __forceinline__ void main_loop(float (&acc)[kMsub][kBN / 2], uint32_t base, int lt,
                                          int nk, int rows0) {
    for (int kb = 0; kb < nk; ++kb) {
        const int it = lt * nk + kb, s = stage_of(it);
//% if fault ~= "no_full_wait" then
        consumer_wait(base, it);
//% end
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kBK / 16; ++kk) {
//% if fault == "drop_k" then
            if (kb == nk - 1 && kk == 0 && kb > 0) continue;  // fault: a k-slice of 16
//% end
            const uint64_t db = TB ? smem_desc(stage_b(base, s) + kk * 32, 16, 1024)
                                   : smem_desc(stage_b(base, s) + kk * 2048, 8192, 1024);
#pragma unroll
            for (int ms = 0; ms < kMsub; ++ms) {
                const int row = rows0 + ms * 64;
                const uint64_t da = TA ? smem_desc(stage_a(base, s) + (row / 64) * 8192 + kk * 2048, 8192, 1024)
                                       : smem_desc(stage_a(base, s) + row * 128 + kk * 32, 16, 1024);
                wgmma_tile<TA, TB>(acc[ms], da, db, kb > 0 || kk > 0);
            }
        }
        wgmma_commit();
//% if (inflight or 1) == 2 then
        wgmma_wait<2>();  // inflight = 2: k-tiles kb - 1 and kb stay on the tensor cores
        if (kb > 1) consumer_release(base, it - 2);
//% else
        wgmma_wait<1>();
        if (kb > 0) consumer_release(base, it - 1);
//% end
    }
    wgmma_wait<0>();
//% if (inflight or 1) == 2 then
    if (nk > 1) consumer_release(base, lt * nk + nk - 2);  // the caller releases the last
//% end
}

__device__ __forceinline__ void consume(const Problem& p, uint32_t base, uint32_t rank, int wg,
                                        const CUtensorMap* tmC) {
//% if regs == "setmaxnreg" then
    setmaxnreg_inc<$(consumer_regs)>();
//% end
    uint32_t order_phase = 0, c_phase = 0;
//% if epilogue == "tma_store" then
    uint32_t boxes = 0;  // boxes this warpgroup stored: which buffer is next
//% end
    const int rows0 = kPingpong ? 0 : wg * kWM;
    int kb0, nk;
    k_range(p, rank, kb0, nk);
    for (int lt = kPingpong ? wg : 0;; lt += kPingpong ? 2 : 1) {
        const int u = unit_of(p, lt);
        if (u < 0) break;
        int tm, tn;
        tile_of(p, u, rank, tm, tn);
        load_c(p, base, wg, tm, tn, rows0, tmC);
        if (kPingpong && (wg == 1 || lt > 0)) order_wait(base, wg, order_phase);
        // written first by the wgmmas of k-tile 0 (scale_d = 0): zeroing them
        // here would make ptxas serialise the wgmmas (C7515)
//% if c_early == "regs" then
        uint32_t old[kMsub][2][kBN / 8];
        const bool early = c_early_inside(p, tn);
        if (early) load_c_early(p, old, tm, tn, rows0);
//% elseif c_early == "l2" then
        prefetch_c(p, tm, tn, rows0);
//% end
        float acc[kMsub][kBN / 2];
        if (p.ta)
            p.tb ? main_loop<true, true>(acc, base, lt, nk, rows0) : main_loop<true, false>(acc, base, lt, nk, rows0);
        else
            p.tb ? main_loop<false, true>(acc, base, lt, nk, rows0) : main_loop<false, false>(acc, base, lt, nk, rows0);
        if (nk > 0) consumer_release(base, lt * nk + nk - 1);
//% if scratch_sum == "spread" then
        spread_slices(p, acc, nk > 0, tm, tn);  // its share of the tile stored
        continue;
//% elseif (scratch_split or 1) > 1 and split == 1 then
        if (!sum_slices(p, acc, nk > 0, base)) continue;  // another CTA of the tile stores it
//% end
        if (kPingpong && unit_of(p, lt + 1) >= 0) order_pass(base, 1 - wg);
        if (kSplit > 1) {
            // the other warpgroup's wgmmas may still read the stages the sums overwrite
            named_sync(5, kConsumers * 128);
            store_partial(acc, rows0, base, nk > 0);
        }
        else if (kTmaEpilogue && tma_stores_exactly(p, tn))
            store_tile_tma(p, acc, tm, tn, rows0, wg, base, c_phase, tmC);
        else if (kTmaEpilogue)
            store_tile_edge(p, acc, tm, tn, rows0, wg, base, c_phase);
//% if epilogue == "tma_store" then
        else if (boxes_inside(p, tm, tn, rows0))
            store_tile_boxes(p, acc, tm, tn, rows0, wg, base, boxes, tmC);
//% end
//% if c_early == "regs" then
        else if (early)
            store_tile_early(p, acc, old, tm, tn, rows0);
//% end
        else
            store_tile(p, acc, tm, tn, rows0);
    }
//% if fences == "light" then
//% if epilogue ~= "direct" then
    if ((threadIdx.x & 127) == 0) bulk_wait_read();  // the boxes read before the CTA ends
//% end
//% else
    if (kTmaEpilogue && (threadIdx.x & 127) == 0) bulk_wait();  // C written before the CTA ends
//% if epilogue == "tma_store" then
    if ((threadIdx.x & 127) == 0) bulk_wait();
//% end
//% end
}
//% end

__device__ __forceinline__ void run_roles(const Problem& p, unsigned char* smem_raw,
                                          const CUtensorMap* tmA, const CUtensorMap* tmB,
                                          const CUtensorMap* tmC) {
    const uint32_t base = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const uint32_t rank = kClusterDims > 1 ? cluster_rank() : 0u;
    if (threadIdx.x == 0) {
        ring_init(base);
        fence_barrier_init();
    }
    if (kClusterDims > 1)
//% if fences == "light" then
        cluster_sync_relaxed();  // the inits' fence released them
//% else
        cluster_sync();  // no CTA arrives on a peer's barriers before they exist
//% end
    else
        __syncthreads();
    const int wg = threadIdx.x / 128;
//% if split > 1 then
    if (wg < kConsumers) prefetch_slice_c(p, rank);
//% end
    if (wg >= kConsumers)
//% if c_early == "late" then
        produce(p, base, rank, tmA, tmB, tmC);
//% else
        produce(p, base, rank, tmA, tmB);
//% end
    else
        consume(p, base, rank, wg, tmC);
    if (kSplit > 1) {
        cluster_sync();  // every CTA's sums are in
        if (wg < kConsumers) reduce_split(p, base, rank);
    }
//% if fences == "light" then
    if (kSplit > 1) cluster_sync_relaxed();  // no CTA leaves while a peer reads its sums
//% else
    // no CTA leaves while a peer still copies into it or reads its sums
    if (kClusterDims > 1) cluster_sync();
//% end
}
