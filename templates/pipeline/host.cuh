// Host entry of an emitted pipeline variant. The kernel's loads (vector,
// cp.async, bulk copies) need `in` 16-byte aligned: the up to 3 floats
// before that point are computed by a one-warp kernel, and the tuned kernel
// runs on the aligned rest (its stores check `out`'s alignment themselves).
static __global__ void head_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned n) {
    if (threadIdx.x < n) {
        float v = in[threadIdx.x];
#pragma unroll
        for (int i = 0; i < 64; ++i) v = fmaf(v, 0.999f, 0.0013f);
        out[threadIdx.x] = v;
    }
}

// The tuned kernel takes every call (an unaligned head goes to head_kernel
// first); null buffers with n > 0 are cudaErrorInvalidValue.
inline const char* fallback_reason(const float* in, float* out, size_t n) {
    return n && (!in || !out) ? "a null buffer: cudaErrorInvalidValue" : nullptr;
}

inline cudaError_t run(const float* in, float* out, size_t n, cudaStream_t stream) {
    if (n && (!in || !out)) return cudaErrorInvalidValue;
    if (!n) return cudaSuccess;
    size_t head = (16 - reinterpret_cast<uintptr_t>(in) % 16) % 16 / sizeof(float);
    if (head > n) head = n;
    if (head) {
        unsigned h = (unsigned)head;
        void* args[] = {&in, &out, &h};
        // the launch's own error (an error the caller left pending stays theirs)
        cudaError_t e = cudaLaunchKernel((const void*)head_kernel, dim3(1), dim3(32), args, 0, stream);
        if (e != cudaSuccess) return e;
    }
    return launch_kernel(in + head, out + head, n - head, stream);
}
