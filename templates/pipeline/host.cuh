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

inline cudaError_t run(const float* in, float* out, size_t n, cudaStream_t stream) {
    size_t head = (16 - reinterpret_cast<uintptr_t>(in) % 16) % 16 / sizeof(float);
    if (head > n) head = n;
    if (head) {
        head_kernel<<<1, 32, 0, stream>>>(in, out, (unsigned)head);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
    }
    return launch_kernel(in + head, out + head, n - head, stream);
}
