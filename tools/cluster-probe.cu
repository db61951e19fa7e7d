// How many thread-block clusters of a size run at once on this GPU, one CTA
// per SM (tools/gpu-trust.sh's cluster-probe phase; issue 25's tall-K shape):
// split-K over a cluster of 16 CTAs would put 256 x 256 x 16384's 8 tiles of
// 64 x 128 on 128 SMs, where clusters of 8 leave half the GPU idle, but only
// if 8 clusters of 16 fit at once (a cluster lives in one GPC, and the
// H200's GPCs need not all have 16 SMs free).
// For each size it prints what cudaOccupancyMaxActiveClusters says, then
// launches as many clusters as the GPU has SMs / size and measures which ran
// at the same time: each CTA spins SPIN_US on the global timer and records
// its start and end; clusters whose start comes after the first end ran in
// a later wave.
// Usage: cluster-probe [SMEM_KB (default 120: one CTA per SM)] [SPIN_US (200)]
#include "probe.cuh"

__device__ __forceinline__ unsigned sm_id() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

// One CTA: its start, end and SM; the dynamic shared memory only keeps other
// CTAs off its SM.
__global__ void spin(unsigned long long *start, unsigned long long *end, unsigned *sm,
                     unsigned long long spin_ns) {
    extern __shared__ unsigned char keep[];
    if (threadIdx.x != 0) return;
    const unsigned long long t0 = global_ns();
    keep[0] = 1;
    while (global_ns() - t0 < spin_ns) {
    }
    start[blockIdx.x] = t0;
    end[blockIdx.x] = global_ns();
    sm[blockIdx.x] = sm_id();
}

// A call checked inside probe(): that size fails and the next is tried
// (probe.cuh's CHECK would end the program).
#define TRY(x)                                                                                     \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "cluster-probe: %s: %s\n", #x, cudaGetErrorString(e_));                \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

// One cluster size: the occupancy API's answer, then a launch of sms / size
// clusters and how many of them started before any CTA ended.
static bool probe(int size, int sms, size_t smem, unsigned long long spin_ns) {
    const int clusters = sms / size, ctas = clusters * size;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)size;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)ctas);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int fit = 0;
    TRY(cudaOccupancyMaxActiveClusters(&fit, spin, &cfg));
    unsigned long long *start, *end;
    unsigned *sm;
    TRY(cudaMalloc(&start, ctas * sizeof *start));
    TRY(cudaMalloc(&end, ctas * sizeof *end));
    TRY(cudaMalloc(&sm, ctas * sizeof *sm));
    TRY(cudaLaunchKernelEx(&cfg, spin, start, end, sm, spin_ns));
    TRY(cudaDeviceSynchronize());
    unsigned long long *s = (unsigned long long *)malloc(ctas * sizeof *s),
                       *e = (unsigned long long *)malloc(ctas * sizeof *e);
    unsigned *where = (unsigned *)malloc(ctas * sizeof *where);
    TRY(cudaMemcpy(s, start, ctas * sizeof *s, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(e, end, ctas * sizeof *e, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(where, sm, ctas * sizeof *where, cudaMemcpyDeviceToHost));
    unsigned long long first_end = ~0ull;
    for (int i = 0; i < ctas; i++)
        if (e[i] < first_end) first_end = e[i];
    int together = 0, distinct = 0;
    for (int c = 0; c < clusters; c++) {
        bool all = true;
        for (int i = c * size; i < (c + 1) * size; i++)
            all = all && s[i] < first_end;
        together += all;
    }
    static bool seen[1024];
    for (int i = 0; i < 1024; i++)
        seen[i] = false;
    for (int i = 0; i < ctas; i++)
        if (where[i] < 1024 && !seen[where[i]]) seen[where[i]] = true, distinct++;
    printf("cluster %2d: occupancy API %3d clusters at once; launched %3d (%3d CTAs): %3d ran "
           "together, "
           "on %3d distinct SMs\n",
           size, fit, clusters, ctas, together, distinct);
    free(s), free(e), free(where);
    cudaFree(start), cudaFree(end), cudaFree(sm);
    return true;
}

int main(int argc, char **argv) {
    const size_t smem = (size_t)(argc > 1 ? atoi(argv[1]) : 120) * 1024;
    const unsigned long long spin_ns = (unsigned long long)(argc > 2 ? atoi(argv[2]) : 200) * 1000;
    int sms = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        fprintf(stderr, "cluster-probe: no GPU the CUDA runtime can open\n");
        return 77;
    }
    if (prop.major < 9) {
        fprintf(stderr,
                "cluster-probe: %s is compute capability %d.%d; clusters need 9.0 or later\n",
                prop.name, prop.major, prop.minor);
        return 77;
    }
    sms = prop.multiProcessorCount;
    if (cudaFuncSetAttribute(spin, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess ||
        cudaFuncSetAttribute(spin, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
            cudaSuccess) {
        fprintf(stderr,
                "cluster-probe: %zu bytes of shared memory or non-portable clusters refused\n",
                smem);
        return 1;
    }
    printf("%s: %d SMs, %zu KB of shared memory a CTA, %llu us a CTA\n", prop.name, sms,
           smem / 1024, spin_ns / 1000);
    bool ok = true;
    for (int size : {1, 2, 4, 8, 12, 16})
        ok = probe(size, sms, smem, spin_ns) && ok;
    return ok ? 0 : 1;
}
