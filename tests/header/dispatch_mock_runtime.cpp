// The device dispatch_mock.cu pretends to run on: the CUDA runtime calls a
// header's dispatcher makes to read the device, answered from the globals
// (plain host C++: nvcc's device runtime declares these functions too).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

const char *mock_name = "";
int mock_major, mock_minor, mock_sms;

extern "C" {
cudaError_t CUDARTAPI cudaGetDevice(int *device) {
    *device = 0;
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaGetLastError(void) {
    return cudaSuccess;
}
cudaError_t CUDARTAPI cudaGetDeviceProperties(cudaDeviceProp *p, int) {
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", mock_name);
    p->major = mock_major;
    p->minor = mock_minor;
    p->multiProcessorCount = mock_sms;
    return cudaSuccess;
}
// every kernel has code for the device (the binary is built for it)
cudaError_t CUDARTAPI cudaFuncGetAttributes(cudaFuncAttributes *a, const void *) {
    memset(a, 0, sizeof *a);
    a->ptxVersion = a->binaryVersion = mock_major * 10 + mock_minor;
    return cudaSuccess;
}
}
