// Host check of an sgemm variant's thread mapping (templates/sgemm/
// compute.cuh), built with -DVARIANT="path of the rendered variant": every
// element of the block tile belongs to exactly one consumer thread; a warp
// of a warp tile stays within its kWM x kWN tile; and every float4 read of
// a stage a warp makes (B's rows; A's, k-major or m-major) is free of bank
// conflicts: each quarter-warp (one 128-byte wavefront of 8 lanes) reads
// distinct 16-byte groups of banks, or the same address. Prints the
// distinct bytes a warp reads per k (what a warp tile saves).
#include <cstdio>
#include <set>
#include <vector>
#include VARIANT

using namespace bartune_variant;

// The float4 reads of one quarter-warp (word addresses): conflict-free?
static bool conflict_free(const std::vector<int>& words) {
    std::set<int> distinct(words.begin(), words.end()), groups;
    for (int w : distinct) groups.insert(w / 4 % 8);  // 8 groups of 4 banks per wavefront
    return groups.size() == distinct.size();
}

int main() {
    std::vector<int> owner(kBM * kBN, 0);
    int bad = 0;
    for (int t = 0; t < kConsumerThreads; ++t) {
        const Place p = place_of(t);
        for (int i = 0; i < kTM; ++i)
            for (int j = 0; j < kTN; ++j) {
                const int r = row_of(p, i), c = col_of(p, j);
                if (r < 0 || r >= kBM || c < 0 || c >= kBN) {
                    if (bad++ < 5) printf("thread %d element (%d,%d) -> (%d,%d): outside the tile\n", t, i, j, r, c);
                    continue;
                }
                if (kGroupThreads == 32 && (r < p.r0 || r >= p.r0 + kWM || c < p.c0 || c >= p.c0 + kWN) &&
                    bad++ < 5)
                    printf("thread %d element (%d,%d) -> (%d,%d): outside its warp's tile\n", t, i, j, r, c);
                owner[r * kBN + c]++;
            }
    }
    for (int e = 0; e < kBM * kBN; ++e)
        if (owner[e] != 1 && bad++ < 5) printf("element (%d,%d) owned %d times\n", e / kBN, e % kBN, owner[e]);
    // the float4 reads of one k (row k = 0 of the stage): B's at each lane's
    // columns 4f..4f+3; A's at its rows (k-major: 4 rows at once; m-major:
    // one row's 4 k at once, row by row)
    const int a_reads = kAKMajor ? kTM / 4 : kTM;
    long distinct_bytes = 0;
    for (int w = 0; w < kConsumerThreads / 32; ++w) {
        std::set<int> rows, cols;
        for (int q = 0; q < 4; ++q)
            for (int f = 0; f < kTN / 4 + a_reads; ++f) {
                std::vector<int> words;
                for (int l = 0; l < 8; ++l) {
                    const Place p = place_of(w * 32 + q * 8 + l);
                    const int g = f - kTN / 4;
                    if (g < 0)
                        words.push_back(col_of(p, 4 * f));
                    else
                        words.push_back(kAKMajor ? row_of(p, 4 * g) : row_of(p, g) * kAStride);
                }
                if (!conflict_free(words) && bad++ < 5)
                    printf("warp %d quarter %d, %s read %d: a bank conflict\n", w, q,
                           f < kTN / 4 ? "B" : "A", f < kTN / 4 ? f : f - kTN / 4);
            }
        for (int l = 0; l < 32; ++l) {
            const Place p = place_of(w * 32 + l);
            for (int i = 0; i < kTM; ++i) rows.insert(row_of(p, i));
            for (int j = 0; j < kTN; ++j) cols.insert(col_of(p, j));
        }
        distinct_bytes += 4 * (long)(rows.size() + cols.size());
    }
    printf("%dx%d tile, threads %dx%d, groups %dx%d: %s; a warp reads %ld distinct bytes of a stage per k\n",
           kBM, kBN, kTM, kTN, kWM, kWN, bad ? "FAILED" : "every element once, no bank conflict",
           distinct_bytes / (kConsumerThreads / 32));
    return bad ? 1 : 0;
}
