// Host side of an emitted variant: whether it can run here, and its launch.
constexpr int kBlocksPerSm = $(blocks_per_sm);
constexpr int kAlignBytes = $(align_bytes);

inline bool usable(const float* in, const float* out) {
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    // ptxVersion: the virtual architecture the kernel was compiled for; below
    // kMinArch its body was compiled out.
    return a.ptxVersion >= kMinArch && reinterpret_cast<uintptr_t>(in) % kAlignBytes == 0 &&
           reinterpret_cast<uintptr_t>(out) % kAlignBytes == 0;
}

inline cudaError_t launch(const float* in, float* out, size_t n, cudaStream_t stream) {
    if (n == 0) return cudaSuccess;
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    if (e != cudaSuccess) return e;
    const unsigned long long ntiles = (n + kTile - 1) / kTile;
    unsigned long long grid = (unsigned long long)kBlocksPerSm * (unsigned long long)sms;
    if (grid > ntiles) grid = ntiles;
    kernel<<<(unsigned)grid, kThreads, kSmemBytes, stream>>>(in, out, (unsigned long long)n);
    return cudaGetLastError();
}
