// Partial tiles through scratch (tail, stream_k): a block's part of a tile
// goes to a slot of its own; the tile's last block to arrive sums the slots
// in slot order (the same sums every launch) and stores. Consumers only (the
// producers may have left): a named barrier of the consumers.
constexpr int kPartsBarrier = 15;  // the named barrier kind uses 1..2 kStages
static_assert(2 * kStages < kPartsBarrier, "the named barrier kind's ids stay below the parts' barrier");

__device__ __forceinline__ void consumers_sync() {
    asm volatile("bar.sync %0, %1;" ::"n"(kPartsBarrier), "n"(kConsumerThreads) : "memory");
}

// This block's part written to its slot and counted on the tile's counter
// (atomicInc over n arrivals: left zero for the next launch,
// launch().scratch_zero_kept); true in the last of the n to arrive.
__device__ __forceinline__ bool write_part(float* slot, unsigned* count, unsigned n, int ctid,
                                           const float (&acc)[kTM][kTN]) {
    __shared__ bool last_part;
    const Place pl = place_of(ctid);
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; j += 4)
            *reinterpret_cast<float4*>(slot + row_of(pl, i) * kBN + col_of(pl, j)) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    __threadfence();  // this part is visible before its count
    consumers_sync();
    if (ctid == 0) last_part = atomicInc(count, n - 1) == n - 1;
    consumers_sync();  // read before a later call's thread 0 writes it again (after its first sync)
    if (!last_part) return false;
    __threadfence();  // the other parts, counted, are read after their counts
    return true;
}

// acc = the sum of the tile's n slots, slot_of(0), ..., slot_of(n - 1), in
// that order. Slots outer: a thread's loads of one slot are issued together,
// one L2 round trip a slot rather than one a slot and float4 (the 33 parts of
// a stream_k tile at 256 x 256 x 16384 took ~150 us one float4 at a time).
template <class SlotOf>
__device__ __forceinline__ void sum_parts(int n, SlotOf slot_of, int ctid, float (&acc)[kTM][kTN]) {
    const Place pl = place_of(ctid);
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) acc[i][j] = 0.0f;
#pragma unroll 1
    for (int z = 0; z < n; ++z) {
        const float* part = slot_of(z);
#pragma unroll
        for (int i = 0; i < kTM; ++i)
#pragma unroll
            for (int j = 0; j < kTN; j += 4) {  // L2, not L1: other SMs wrote them
                const float4 v = __ldcg(reinterpret_cast<const float4*>(part + row_of(pl, i) * kBN + col_of(pl, j)));
                acc[i][j] += v.x, acc[i][j + 1] += v.y, acc[i][j + 2] += v.z, acc[i][j + 3] += v.w;
            }
    }
}
