// Which CUDA runtime calls clear an error the caller left pending? For each
// call the headers make, a launch the program did not check (4096 threads
// per block) leaves an error pending, the call runs (and succeeds), and
// cudaPeekAtLastError says whether the error is still there.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void nop() {}

static void try_call(const char* name, cudaError_t (*call)()) {
    nop<<<1, 4096>>>();
    const cudaError_t made = cudaPeekAtLastError();
    const cudaError_t own = call();
    const cudaError_t after = cudaPeekAtLastError();
    printf("%-28s returned %-26s pending before: %-28s after: %s\n", name, cudaGetErrorName(own),
           cudaGetErrorName(made), cudaGetErrorName(after));
    (void)cudaGetLastError();
}

int main() {
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 77;
    try_call("nothing", [] { return cudaSuccess; });
    try_call("cudaGetDevice", [] { int d; return cudaGetDevice(&d); });
    try_call("cudaDeviceGetAttribute", [] { int v; return cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0); });
    try_call("cudaGetDeviceProperties", [] { cudaDeviceProp p; return cudaGetDeviceProperties(&p, 0); });
    try_call("cudaFuncGetAttributes", [] { cudaFuncAttributes a; return cudaFuncGetAttributes(&a, (const void*)nop); });
    try_call("cudaFuncSetAttribute", [] { return cudaFuncSetAttribute((const void*)nop, cudaFuncAttributeMaxDynamicSharedMemorySize, 8192); });
    try_call("cudaLaunchKernel", [] { return cudaLaunchKernel((const void*)nop, dim3(1), dim3(1), nullptr, 0, 0); });
    try_call("nop<<<1, 1>>>", [] { nop<<<1, 1>>>(); return cudaSuccess; });
    try_call("cudaStreamIsCapturing", [] { cudaStreamCaptureStatus s; return cudaStreamIsCapturing(0, &s); });
    return 0;
}
