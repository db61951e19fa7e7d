// The runner's own kernels: checking a variant's output on the GPU (so that
// verifying 2^28 elements costs a millisecond, not a copy to the host),
// checksums that tell whether inputs, references and guards are intact, and
// the copy and FMA kernels that measure the card's ceilings.

// stats of one check: [0] elements that fail the rule, [1] first failing
// index, [2] of those still holding the poison (never written), [3] NaN or
// Inf where the reference is finite; with a scale (accuracy), [4] the sum of
// (error / scale)^2 and [5] the largest error / scale, both doubles; for a
// matrix view (ld > 0: element i is padding when i % ld >= cols), [6] the
// failing elements in the padding and [7] the first of them.
enum { ST_BAD, ST_FIRST, ST_UNWRITTEN, ST_NONFINITE, ST_Z2, ST_ZMAX, ST_PAD, ST_PAD_FIRST, ST_WORDS };

// What one thread found: failures, and those in a view's padding.
struct found {
    unsigned long long bad = 0, first = ~0ull, unwritten = 0, nonfinite = 0, pad = 0,
                       pad_first = ~0ull;
    __device__ void fail(unsigned long long i, unsigned long long ld, unsigned long long cols) {
        bad++;
        if (i < first) first = i;
        if (ld && i % ld >= cols) {
            pad++;
            if (i < pad_first) pad_first = i;
        }
    }
};

__device__ __forceinline__ void report(unsigned long long* stats, const found& f) {
    if (f.bad) {
        atomicAdd(&stats[ST_BAD], f.bad);
        atomicMin(&stats[ST_FIRST], f.first);
        atomicAdd(&stats[ST_UNWRITTEN], f.unwritten);
        atomicAdd(&stats[ST_NONFINITE], f.nonfinite);
    }
    if (f.pad) {
        atomicAdd(&stats[ST_PAD], f.pad);
        atomicMin(&stats[ST_PAD_FIRST], f.pad_first);
    }
}

// Bit for bit: elements of `width` bytes (4 or 8); `fp` says whether they
// are floating point (for telling NaN/Inf apart). `poison` is one byte,
// repeated. ld, cols: the buffer's matrix view (ld 0: none).
extern "C" __global__ void bartune_check_exact(const void* __restrict__ out,
                                               const void* __restrict__ expect,
                                               unsigned long long n, int width, int fp,
                                               unsigned poison, unsigned long long ld,
                                               unsigned long long cols,
                                               unsigned long long* stats) {
    found f;
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
            f.unwritten += oo == (unsigned)(p64 & 0xffffu);
        } else if (width == 4) {
            const unsigned oo = static_cast<const unsigned*>(out)[i];
            o = oo;
            r = static_cast<const unsigned*>(expect)[i];
            inf_nan = fp && (oo & 0x7f800000u) == 0x7f800000u && (r & 0x7f800000u) != 0x7f800000u;
            if (o == r) continue;
            f.unwritten += oo == (unsigned)p64;
        } else {
            o = static_cast<const unsigned long long*>(out)[i];
            r = static_cast<const unsigned long long*>(expect)[i];
            const unsigned long long e = 0x7ff0000000000000ull;
            inf_nan = fp && (o & e) == e && (r & e) != e;
            if (o == r) continue;
            f.unwritten += o == p64;
        }
        f.nonfinite += inf_nan;
        f.fail(i, ld, cols);
    }
    report(stats, f);
}

// The block's sum of z2 and largest z into stats[ST_Z2], stats[ST_ZMAX]
// (z >= 0, so a double's bits order as the double does).
__device__ __forceinline__ void report_z(unsigned long long* stats, double z2, double zmax) {
    __shared__ double s2[32], sm[32];
    for (int o = 16; o > 0; o >>= 1) {
        z2 += __shfl_down_sync(0xffffffffu, z2, o);
        zmax = fmax(zmax, __shfl_down_sync(0xffffffffu, zmax, o));
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if (lane == 0) s2[warp] = z2, sm[warp] = zmax;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < warps; ++w) z2 += s2[w], zmax = fmax(zmax, sm[w]);
        if (z2 > 0) atomicAdd(reinterpret_cast<double*>(&stats[ST_Z2]), z2);
        if (zmax > 0) atomicMax(&stats[ST_ZMAX], (unsigned long long)__double_as_longlong(zmax));
    }
}

// Within a bound: |out - expect| <= bound, per element, for float or double
// outputs (`width` 4 or 8; 2 for bf16) against double references. NaN fails.
// With `scale` (else NULL), also the statistics of |out - expect| / scale
// over the elements whose scale is > 0. blockDim.x is a multiple of 32.
// ld, cols: the buffer's matrix view (ld 0: none).
extern "C" __global__ void bartune_check_bound(const void* __restrict__ out,
                                               const double* __restrict__ expect,
                                               const double* __restrict__ bound,
                                               const double* __restrict__ scale,
                                               unsigned long long n, int width, unsigned poison,
                                               unsigned long long ld, unsigned long long cols,
                                               unsigned long long* stats) {
    found f;
    double z2 = 0, zmax = 0;
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
        const double err = fabs(o - expect[i]);
        if (scale && scale[i] > 0 && err <= bound[i]) {
            const double z = err / scale[i];
            z2 += z * z;
            zmax = fmax(zmax, z);
        }
        if (err <= bound[i]) continue;
        f.unwritten += was_poison;
        f.nonfinite += !isfinite(o) && isfinite(expect[i]);
        f.fail(i, ld, cols);
    }
    report(stats, f);
    if (scale) report_z(stats, z2, zmax);
}

// A keyed hash of `bytes` bytes: the sum mod 2^64 of mix(w_i ^ mix(i + key))
// over its 32-bit words, then over the bytes of a tail shorter than a word
// (2-byte elements leave one). Order independent, so atomics give the same
// answer every time; not linear, and keyed by a secret of the runner's, so
// a kernel cannot change data in a way the hash keeps. p is 4-byte aligned
// or the sum is over bytes alone.
__device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

extern "C" __global__ void bartune_checksum(const unsigned char* __restrict__ p,
                                            unsigned long long bytes, unsigned long long key,
                                            unsigned long long* sum) {
    unsigned long long s = 0;
    const bool aligned = ((unsigned long long)p & 3) == 0;
    const unsigned long long words = aligned ? bytes / 4 : 0;
    const unsigned* w = reinterpret_cast<const unsigned*>(p);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    for (unsigned long long i = first; i < words; i += stride)
        s += mix64(w[i] ^ mix64(i + key));
    for (unsigned long long i = 4 * words + first; i < bytes; i += stride)
        s += mix64(p[i] ^ mix64(~i + key));
    atomicAdd(sum, s);
}

// Seals one launch's check statistics (`words` of them at block): a keyed
// chain of mix64 into block[words], so that a kernel's later launch cannot
// change them unseen (it does not know the key). One thread; the host
// recomputes the chain (runner.c, seal_of).
extern "C" __global__ void bartune_seal(unsigned long long* block, unsigned long long words,
                                        unsigned long long key) {
    unsigned long long h = key;
    for (unsigned long long i = 0; i < words; ++i) h = mix64(h ^ block[i] ^ (i << 1));
    block[words] = h;
}

// Writes `pattern` (width bytes, 2, 4 or 8) into the padding of a matrix
// view of n elements: element i with i % ld >= cols. Outputs are poisoned
// whole before a launch; this puts the padding back to what a kernel must
// leave there.
extern "C" __global__ void bartune_fill_padding(void* data, unsigned long long n, int width,
                                                unsigned long long ld, unsigned long long cols,
                                                unsigned long long pattern) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += stride) {
        if (i % ld < cols) continue;
        if (width == 2)
            static_cast<unsigned short*>(data)[i] = (unsigned short)pattern;
        else if (width == 4)
            static_cast<unsigned*>(data)[i] = (unsigned)pattern;
        else
            static_cast<unsigned long long*>(data)[i] = pattern;
    }
}

// bench --gate: holds its stream until *go (mapped host memory) reaches
// `want`, which the host writes once the timed launch behind it is queued, so
// that launch's events time the GPU alone and not the host's launch path.
// Past limit_ns it lets go and sets *expired (the call behind it waited on
// the GPU itself: a gate cannot time it).
extern "C" __global__ void bartune_gate(const volatile unsigned long long* go,
                                        unsigned long long want, unsigned long long limit_ns,
                                        unsigned* expired) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (*go < want) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > limit_ns) {
            *expired = 1;
            return;
        }
    }
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
