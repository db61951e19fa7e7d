/* The CUDA driver API, loaded with dlopen("libcuda.so.1") at run time so that
 * nothing links libcuda: on a machine without a GPU the runner says so
 * instead of failing to start. cuda.h renames some entry points (cuMemAlloc
 * is cuMemAlloc_v2); the table below follows those names. */
#ifndef BARTUNE_DRIVER_H
#define BARTUNE_DRIVER_H

#include <cuda.h>
#include <stdbool.h>

#define DRIVER_FUNCTIONS(X)                                                                        \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)                  \
        X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc)           \
            X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8) X(cuMemsetD8Async)          \
                X(cuMemcpyDtoDAsync) X(cuModuleLoad) X(cuModuleUnload) X(cuModuleGetFunction)      \
                    X(cuFuncSetAttribute) X(cuFuncGetAttribute)                                    \
                        X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxActiveClusters) X(cuLaunchKernel)           \
                            X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)                \
                                X(cuEventElapsedTime) X(cuEventDestroy) X(cuGetErrorName)          \
                                    X(cuGetErrorString) X(cuMemcpyDtoD) X(cuTensorMapEncodeTiled)  \
                                        X(cuDeviceGetPCIBusId) X(cuMemHostAlloc)           \
                                            X(cuMemHostGetDevicePointer)

typedef struct {
    void *lib;
#define DRIVER_FIELD(fn) __typeof__(&fn) fn;
    DRIVER_FUNCTIONS(DRIVER_FIELD)
#undef DRIVER_FIELD
} driver_api;

extern driver_api drv;

/* Loads libcuda.so.1 and every entry point; false with *why set if not. */
bool driver_load(const char **why);
/* "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered" */
const char *driver_error(CUresult r, char *buf, int size);

#endif
