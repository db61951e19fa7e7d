// overlap = on (cooperative, tma_store, setmaxnreg): a tile's epilogue runs
// around the next tile's first k-tile rather than between the two main
// loops, where the tensor cores would idle. C's old values of this thread's
// pairs are loaded while the tile's last k-tile is on the tensor cores; the
// results are packed (alpha acc + beta old, as bf16 pairs: 64 registers at
// 128 x 256), which frees the accumulators; the next tile's first k-tile is
// issued; then the packed pairs go out through the two box buffers as
// store_tile_boxes sends them. Tiles at C's edges take store_tile after the
// main loop, as in the other kinds.
constexpr int kPairs = kMsub * kBBoxes * 2 * 8;  // a thread's bf16 pairs of a tile
//% if (stream_k or "off") == "on" then
//% include("gemm_bf16/streamk.cuh")
//% end

//% -- issue_ktile repeats a k-tile of roles.cuh's main_loop: one piece for both would change
//% -- every other variant's source and stale its records (a template comment: not rendered)
// One k-tile's wgmmas on stage it (scale_d = 0 on the tile's first: the
// accumulators are written, not read), committed as one group.
template <bool TA, bool TB>
__device__ __forceinline__ void issue_ktile(float (&acc)[kMsub][kBN / 2], uint32_t base, int it, bool first,
                                            int rows0) {
    const int s = stage_of(it);
    consumer_wait(base, it);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
        const uint64_t db = TB ? smem_desc(stage_b(base, s) + kk * 32, 16, 1024)
                               : smem_desc(stage_b(base, s) + kk * 2048, 8192, 1024);
#pragma unroll
        for (int ms = 0; ms < kMsub; ++ms) {
            const int row = rows0 + ms * 64;
            const uint64_t da = TA ? smem_desc(stage_a(base, s) + (row / 64) * 8192 + kk * 2048, 8192, 1024)
                                   : smem_desc(stage_a(base, s) + row * 128 + kk * 32, 16, 1024);
            wgmma_tile<TA, TB>(acc[ms], da, db, !first || kk > 0);
        }
    }
    wgmma_commit();
}

// k-tiles kb0 .. nk - 1 of the tile whose first stage is it0, one group in
// flight; the last k-tile's group is left in flight (the caller waits).
template <bool TA, bool TB>
__device__ __forceinline__ void main_loop_from(float (&acc)[kMsub][kBN / 2], uint32_t base, int it0, int kb0,
                                               int nk, int rows0) {
    for (int kb = kb0; kb < nk; ++kb) {
        issue_ktile<TA, TB>(acc, base, it0 + kb, kb == 0, rows0);
        wgmma_wait<1>();
//% if overlap == "two" then
        if (kb == 2 && kb0 == 2) consumer_release(base, it0);  // k-tile 0, issued with k-tile 1 before the loop
//% end
        if (kb > 0) consumer_release(base, it0 + kb - 1);
    }
}

// Thread 0's part of a box's store as predicated instructions, not a branch:
// while the next tile's wgmmas are in flight, a branch on the thread would
// make ptxas wait for them first (C7518).
__device__ __forceinline__ void box_store_t0(bool t0, const CUtensorMap* map, uint32_t src, int x, int y) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %0, 0;\n\t"
        "@p cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%1, {%2, %3}], [%4];\n\t"
        "@p cp.async.bulk.commit_group;\n\t}" ::"r"((int)t0),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(x), "r"(y), "r"(src)
        : "memory");
}
__device__ __forceinline__ void bulk_wait_read_t0(bool t0) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %0, 0;\n\t@p cp.async.bulk.wait_group.read 0;\n\t}" ::"r"(
                     (int)t0)
                 : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16(__nv_bfloat16 lo, __nv_bfloat16 hi) {
    const __nv_bfloat162 v(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
}
// This thread's pair ((i * 2 + h) * 8 + j) of a tile lies in box i (ms = i
// / kBBoxes, b = i % kBBoxes) at row r, columns c and c + 1 of C.
__device__ __forceinline__ void pair_at(int tm, int tn, int rows0, int i, int h, int j, int& r, int& c) {
    const int t = threadIdx.x & 127;
    r = tm * kBM + rows0 + (i / kBBoxes) * 64 + (t / 32) * 16 + (t & 31) / 4 + 8 * h;
    c = tn * kBN + (i % kBBoxes) * 64 + j * 8 + (t & 3) * 2;
}
// C's old values at this thread's pairs (zero where beta is 0): pairs at
// once inside C, element by element in tiles at its edges.
__device__ __forceinline__ void load_old(const Problem& p, uint32_t (&out)[kPairs], int tm, int tn, int rows0,
                                         bool inside) {
    int r, c;
    if (p.beta == 0.f) {
#pragma unroll
        for (int q = 0; q < kPairs; ++q) out[q] = 0u;
    } else if (inside) {
#pragma unroll
        for (int q = 0; q < kPairs; ++q) {
            pair_at(tm, tn, rows0, q / 16, q / 8 % 2, q % 8, r, c);
            out[q] = *reinterpret_cast<const uint32_t*>(p.C + (long long)r * p.ldc + c);
        }
    } else {
        const __nv_bfloat16 z = __float2bfloat16_rn(0.f);
#pragma unroll
        for (int q = 0; q < kPairs; ++q) {
            pair_at(tm, tn, rows0, q / 16, q / 8 % 2, q % 8, r, c);
            const __nv_bfloat16* e = p.C + (long long)r * p.ldc + c;
            out[q] = pack_bf16(r < p.M && c < p.N ? e[0] : z, r < p.M && c + 1 < p.N ? e[1] : z);
        }
    }
}
// alpha acc + beta old into `out` (which held the old values), as bf16 pairs.
__device__ __forceinline__ void pack(const Problem& p, const float (&acc)[kMsub][kBN / 2], uint32_t (&out)[kPairs]) {
#pragma unroll
    for (int i = 0; i < kMsub * kBBoxes; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const int ms = i / kBBoxes, b = i % kBBoxes, a = 4 * (b * 8 + j) + 2 * h;
                uint32_t& q = out[(i * 2 + h) * 8 + j];
                const float2 o = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&q));
                const __nv_bfloat162 v = __floats2bfloat162_rn(p.alpha * acc[ms][a] + p.beta * o.x,
                                                               p.alpha * acc[ms][a + 1] + p.beta * o.y);
                q = *reinterpret_cast<const uint32_t*>(&v);
            }
}
// Four 8 x 8 matrices of bf16 from this thread's pairs into shared memory
// (stmatrix: lane l gives the address of row l % 8 of matrix l / 8; each
// thread's register k holds its pair of matrix k, in wgmma's D layout).
__device__ __forceinline__ void stmatrix4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
}
// The packed pairs out through the two box buffers (store_tile_boxes' order
// of fences, barriers and stores), with no branch on the thread. Box row r's
// 16-byte chunk c lies at chunk c ^ (r % 8) (the copy engine's 128-byte
// swizzle); stmatrix k of a box writes chunks 2k and 2k + 1 of the warp's
// 16 rows, lane l the row 8 (m % 2) + l % 8 of matrix m = l / 8.
__device__ __forceinline__ void write_boxes(const uint32_t (&out)[kPairs], int tm, int tn, int rows0, int wg,
                                            uint32_t base, uint32_t& boxes, const CUtensorMap* tmC) {
    const int t = threadIdx.x & 127, warp = t / 32, lane = t & 31, m = lane / 8, rr = lane & 7;
    const uint32_t row = (uint32_t)(warp * 16 + 8 * (m & 1) + rr) * 128;
#pragma unroll
    for (int i = 0; i < kMsub * kBBoxes; ++i, ++boxes) {
        const uint32_t at = box_buf(base, wg, boxes) + row;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const uint32_t* q = out + i * 16 + 2 * k;  // pairs (i * 2 + h) * 8 + j
            stmatrix4(at + ((uint32_t)((2 * k + (m >> 1)) ^ rr) << 4), q[0], q[8], q[1], q[9]);
        }
        fence_async_smem();
        bulk_wait_read_t0(t == 0);
        named_sync(3 + wg, 128);
        box_store_t0(t == 0, tmC, box_buf(base, wg, boxes), tn * kBN + (i % kBBoxes) * 64,
                     tm * kBM + rows0 + (i / kBBoxes) * 64);
    }
}

// The packed pairs of a tile at C's edges, element by element inside C.
__device__ __forceinline__ void write_edge(const Problem& p, const uint32_t (&out)[kPairs], int tm, int tn,
                                           int rows0) {
#pragma unroll
    for (int i = 0; i < kMsub * kBBoxes; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                int r, c;
                pair_at(tm, tn, rows0, i, h, j, r, c);
                if (r >= p.M) continue;
                const __nv_bfloat162 v = *reinterpret_cast<const __nv_bfloat162*>(&out[(i * 2 + h) * 8 + j]);
                __nv_bfloat16* e = p.C + (long long)r * p.ldc + c;
                if (c < p.N) e[0] = v.x;
                if (c + 1 < p.N) e[1] = v.y;
            }
}
// Whether every box of the tile (both warpgroups' rows) lies inside C: the
// same for all of the CTA's threads, so the branch on it is uniform.
__device__ __forceinline__ bool tile_inside(const Problem& p, int tm, int tn) {
    return p.vec_store && (tn + 1) * kBN <= p.N && (tm + 1) * kBM <= p.M;
}
__device__ __forceinline__ void write_tile(const Problem& p, const uint32_t (&out)[kPairs], int tm, int tn,
                                           bool inside, int rows0, int wg, uint32_t base, uint32_t& boxes,
                                           const CUtensorMap* tmC) {
    if (inside)
        write_boxes(out, tm, tn, rows0, wg, base, boxes, tmC);
    else
        write_edge(p, out, tm, tn, rows0);
}

// The CTA's tiles in one layout's instantiation. Each tile's first k-tile
// is issued before the last tile's boxes are written; the group in flight
// then crosses only uniform branches, never the loop's back edge (where
// ptxas would serialise every wgmma: C7511).
template <bool TA, bool TB>
__device__ __forceinline__ void consume_tiles(const Problem& p, uint32_t base, uint32_t rank, int wg,
                                              const CUtensorMap* tmC) {
    uint32_t boxes = 0;  // boxes this warpgroup stored: which buffer is next
    const int rows0 = wg * kWM;
//% if (stream_k or "off") == "on" then
    if (p.ktiles == 0) return;  // K = 0: the header's plain kernel scales C
//% else
    int kb0, nk;
    k_range(p, rank, kb0, nk);
    if (nk == 0) return;  // K = 0: the header's plain kernel scales C
//% end
    uint32_t out[kPairs];  // the last tile's packed pairs, not yet written
    int last_tm = -1, last_tn = 0;  // that tile (-1: none)
    bool last_inside = false;
//% if (stream_k or "off") == "on" then
    Work x;
    for (int w = 0, it0 = 0; work_of(p, w, x); it0 += x.nk, ++w) {
        const int u = x.u, nk = x.nk;
        int tm, tn;
        tile_of(p, u, rank, tm, tn);
//% else
    for (int lt = 0;; ++lt) {
        const int u = unit_of(p, lt);
        if (u < 0) break;
        int tm, tn;
        tile_of(p, u, rank, tm, tn);
        const int it0 = lt * nk;
//% end
        // written first by the wgmmas of k-tile 0 (scale_d = 0): zeroing them
        // here would make ptxas serialise the wgmmas (C7515)
        float acc[kMsub][kBN / 2];
        issue_ktile<TA, TB>(acc, base, it0, true, rows0);
//% if overlap == "two" then
        // overlap = two: k-tile 1 too, so the tensor cores have two k-tiles
        // of work while the last tile's boxes are written
        const int ahead = nk > 1 ? 2 : 1;
        if (ahead == 2) issue_ktile<TA, TB>(acc, base, it0 + 1, false, rows0);
        if (last_tm >= 0) write_tile(p, out, last_tm, last_tn, last_inside, rows0, wg, base, boxes, tmC);
        main_loop_from<TA, TB>(acc, base, it0, ahead, nk, rows0);
//% else
        if (last_tm >= 0) write_tile(p, out, last_tm, last_tn, last_inside, rows0, wg, base, boxes, tmC);
        main_loop_from<TA, TB>(acc, base, it0, 1, nk, rows0);
//% end
//% if (stream_k or "off") == "on" then
        if (x.kb0 + nk < p.ktiles) {  // the unit's last k-tiles are a higher cluster's: it stores the tile
            wgmma_wait<0>();
            consumer_release(base, it0 + nk - 1);
            sk_put(p, acc);
            last_tm = -1;
            continue;
        }
//% end
        last_tm = tm, last_tn = tn, last_inside = tile_inside(p, tm, tn);
//% if (stream_k or "off") == "on" then
        if (x.kb0 > 0) {  // the unit's first k-tiles, from lower clusters (then C: registers)
            wgmma_wait<0>();
            consumer_release(base, it0 + nk - 1);
            sk_add(p, x, acc);
            load_old(p, out, tm, tn, rows0, last_inside);
            pack(p, acc, out);
            continue;
        }
//% end
        load_old(p, out, tm, tn, rows0, last_inside);  // under the last k-tile's wgmmas
        wgmma_wait<0>();
//% if overlap == "two" then
        if (nk == 2) consumer_release(base, it0);  // the loop did not run: k-tile 0 is still held
//% end
        consumer_release(base, it0 + nk - 1);
        pack(p, acc, out);
    }
    if (last_tm >= 0) write_tile(p, out, last_tm, last_tn, last_inside, rows0, wg, base, boxes, tmC);
}

__device__ __forceinline__ void consume(const Problem& p, uint32_t base, uint32_t rank, int wg,
                                        const CUtensorMap* tmC) {
    setmaxnreg_inc<$(consumer_regs)>();
    if (p.ta)
        p.tb ? consume_tiles<true, true>(p, base, rank, wg, tmC) : consume_tiles<true, false>(p, base, rank, wg, tmC);
    else
        p.tb ? consume_tiles<false, true>(p, base, rank, wg, tmC) : consume_tiles<false, false>(p, base, rank, wg, tmC);
//% if fences == "light" then
    if ((threadIdx.x & 127) == 0) bulk_wait_read();  // the boxes read before the CTA ends (fences.cuh)
//% else
    if ((threadIdx.x & 127) == 0) bulk_wait();  // C written before the CTA ends
//% end
}
