// The runner's own kernels: checking a variant's output on the GPU (so that
// verifying 2^28 elements costs a millisecond, not a copy to the host),
// checksums that tell whether inputs, references and guards are intact, and
// the copy and FMA kernels that measure the card's ceilings.

// stats of one check: [0] elements that fail the rule, [1] first failing
// index, [2] of those still holding the poison (never written), [3] NaN or
// Inf where the reference is finite.
enum { ST_BAD, ST_FIRST, ST_UNWRITTEN, ST_NONFINITE, ST_WORDS };

__device__ __forceinline__ void report(unsigned long long* stats, unsigned long long bad,
                                       unsigned long long first, unsigned long long unwritten,
                                       unsigned long long nonfinite) {
    if (bad) {
        atomicAdd(&stats[ST_BAD], bad);
        atomicMin(&stats[ST_FIRST], first);
        atomicAdd(&stats[ST_UNWRITTEN], unwritten);
        atomicAdd(&stats[ST_NONFINITE], nonfinite);
    }
}

// Bit for bit: elements of `width` bytes (4 or 8); `fp` says whether they
// are floating point (for telling NaN/Inf apart). `poison` is one byte,
// repeated.
extern "C" __global__ void bartune_check_exact(const void* __restrict__ out,
                                               const void* __restrict__ expect,
                                               unsigned long long n, int width, int fp,
                                               unsigned poison, unsigned long long* stats) {
    unsigned long long bad = 0, unwritten = 0, nonfinite = 0, first = ~0ull;
    const unsigned long long p64 = 0x0101010101010101ull * (poison & 0xffu);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += stride) {
        unsigned long long o, r;
        bool inf_nan;
        if (width == 2) {  // bf16: NaN/Inf when the exponent is all ones
            const unsigned oo = static_cast<const unsigned short*>(out)[i];
            o = oo;
            r = static_cast<const unsigned short*>(expect)[i];
            inf_nan = fp && (oo & 0x7f80u) == 0x7f80u && (r & 0x7f80u) != 0x7f80u;
            if (o == r) continue;
            unwritten += oo == (unsigned)(p64 & 0xffffu);
        } else if (width == 4) {
            const unsigned oo = static_cast<const unsigned*>(out)[i];
            o = oo;
            r = static_cast<const unsigned*>(expect)[i];
            inf_nan = fp && (oo & 0x7f800000u) == 0x7f800000u && (r & 0x7f800000u) != 0x7f800000u;
            if (o == r) continue;
            unwritten += oo == (unsigned)p64;
        } else {
            o = static_cast<const unsigned long long*>(out)[i];
            r = static_cast<const unsigned long long*>(expect)[i];
            const unsigned long long e = 0x7ff0000000000000ull;
            inf_nan = fp && (o & e) == e && (r & e) != e;
            if (o == r) continue;
            unwritten += o == p64;
        }
        bad++;
        nonfinite += inf_nan;
        if (i < first) first = i;
    }
    report(stats, bad, first, unwritten, nonfinite);
}

// Within a bound: |out - expect| <= bound, per element, for float or double
// outputs (`width` 4 or 8; 2 for bf16) against double references. NaN fails.
extern "C" __global__ void bartune_check_bound(const void* __restrict__ out,
                                               const double* __restrict__ expect,
                                               const double* __restrict__ bound,
                                               unsigned long long n, int width, unsigned poison,
                                               unsigned long long* stats) {
    unsigned long long bad = 0, unwritten = 0, nonfinite = 0, first = ~0ull;
    const unsigned long long p64 = 0x0101010101010101ull * (poison & 0xffu);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += stride) {
        double o;
        bool was_poison;
        if (width == 2) {  // bf16: the upper half of a float
            const unsigned short h = static_cast<const unsigned short*>(out)[i];
            o = __uint_as_float((unsigned)h << 16);
            was_poison = h == (unsigned short)(p64 & 0xffffu);
        } else if (width == 4) {
            const float f = static_cast<const float*>(out)[i];
            o = f;
            was_poison = __float_as_uint(f) == (unsigned)p64;
        } else {
            o = static_cast<const double*>(out)[i];
            was_poison = (unsigned long long)__double_as_longlong(o) == p64;
        }
        if (fabs(o - expect[i]) <= bound[i]) continue;
        bad++;
        unwritten += was_poison;
        nonfinite += !isfinite(o) && isfinite(expect[i]);
        if (i < first) first = i;
    }
    report(stats, bad, first, unwritten, nonfinite);
}

// A checksum of `bytes` bytes: sum of w_i * (2i + 1) mod 2^64 over its
// 32-bit words, then the bytes of a tail shorter than a word (2-byte
// elements leave one), order independent, so atomics give the same answer
// every time. p is 4-byte aligned or the sum is over bytes alone.
extern "C" __global__ void bartune_checksum(const unsigned char* __restrict__ p,
                                            unsigned long long bytes,
                                            unsigned long long* sum) {
    unsigned long long s = 0;
    const bool aligned = ((unsigned long long)p & 3) == 0;
    const unsigned long long words = aligned ? bytes / 4 : 0;
    const unsigned* w = reinterpret_cast<const unsigned*>(p);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (unsigned long long i = first; i < words; i += stride)
        s += (unsigned long long)w[i] * (2 * i + 1);
    for (unsigned long long i = 4 * words + first; i < bytes; i += stride)
        s += (unsigned long long)p[i] * (2 * i + 7);
    atomicAdd(sum, s);
}

// The card's ceilings, measured rather than taken from a datasheet.
// Copy: float4 grid-stride, one read and one write per element.
extern "C" __global__ void bartune_copy(const float4* __restrict__ in, float4* __restrict__ out,
                                        unsigned long long n4) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n4;
         i += stride)
        out[i] = in[i];
}

// FMA peak: 8 independent chains per thread, `iters` FMAs each; the result
// is stored so the compiler keeps the work.
extern "C" __global__ void bartune_fma_peak(float* out, int iters) {
    float v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = threadIdx.x * 1e-3f + k;
#pragma unroll 16  // 128 FMAs per trip: the loop's own instructions stay under 2%
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k) v[k] = fmaf(v[k], 0.999f, 0.0013f);
    }
    float s = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += v[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
