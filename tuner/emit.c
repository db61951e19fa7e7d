/* Best-kernel headers. kernels/<device>/<space>.cuh holds, for one device,
 * the best verified variant at each tuned size tuple (distinct ones once);
 * kernels/portable/<space>.cuh a variant for GPUs with no tuned result;
 * kernels/<space>.cuh the host function of the problem's signature, which
 * picks at run time the variant of the current device tuned at the size
 * nearest to the call's. Every kernel is `static` and every host function
 * `inline`, so any number of translation units may include the header. */
#include "emit.h"
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "record.h"
#include "results.h"
#include "session.h"
#include "util.h"

enum { MAX_EMITTED = 256 };

/* One emitted variant, as the dispatcher needs it. */
typedef struct {
    char key[160];  /* device folder; "portable" */
    int sms;        /* the tuned device's SMs (nearest-device matching) */
    char name[128]; /* device name */
    int major, minor;
    char ns[240];
    char *summary; /* config and launch values */
    json_t *sizes; /* the size tuple it was tuned at (NULL: portable) */
} emitted;

/* The space's file as a header names it: as given when relative to where
 * bartune ran (gen/pipeline.lua), the file name alone when absolute (a
 * header committed elsewhere should not carry /home/someone/...). */
static char *comment_text(const char *text);
static const char *shown_file(space *s) {
    static char *shown;
    const char *f = space_file(s), *slash = strrchr(f, '/');
    free(shown);
    shown = comment_text(f[0] == '/' && slash ? slash + 1 : f); /* a path may hold a newline */
    return shown;
}

static void identifier_of(const char *text, char *out, size_t size) {
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < size; p++)
        out[o++] = isalnum((unsigned char)*p) ? *p : '_';
    out[o] = '\0';
}

/* `text` as a C string literal's contents: nothing a record holds can end
 * the literal or start code. */
static void sb_c_string(strbuf *b, const char *text) {
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if (*p < 32 || *p >= 127 || *p == '?')
            sb_printf(b, "\\%03o", *p);
        else
            sb_printf(b, "%c", *p);
    }
}

/* Text for a // comment: printable, no backslash (which would splice the
 * next line into the comment), no '?' (trigraphs: ??/ is a backslash). */
static char *comment_text(const char *text) {
    char *out = xstrdup(text ? text : "");
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 32 || (unsigned char)*p >= 127 || *p == '\\' || *p == '?') *p = '_';
    return out;
}

/* The C type of a signature entry: a buffer as a pointer, a size or scalar
 * as its declared type. */
static char *param_decl(json_t *problem, const char *name) {
    const char *lists[] = {"buffers", "sizes", "scalars"};
    for (int l = 0; l < 3; l++) {
        json_t *e;
        size_t i;
        json_array_foreach(json_object_get(problem, lists[l]), i, e) {
            if (strcmp(json_string_value(json_object_get(e, "name")), name) != 0) continue;
            const char *type = json_string_value(json_object_get(e, "type"));
            if (l > 0) return xasprintf("%s %s", type, name);
            const char *role = json_string_value(json_object_get(e, "role"));
            return xasprintf("%s%s *%s", strcmp(role, "in") ? "" : "const ", type, name);
        }
    }
    return xasprintf("int %s", name); /* unreachable: the Lua side checked the names */
}

/* "const float *in, float *out, size_t n" (decl) or "in, out, n" (names). */
static char *signature(json_t *problem, bool decl) {
    strbuf b = {0};
    json_t *name;
    size_t i;
    json_array_foreach(json_object_get(problem, "signature"), i, name) {
        char *d =
            decl ? param_decl(problem, json_string_value(name)) : xstrdup(json_string_value(name));
        sb_printf(&b, "%s%s", i ? ", " : "", d);
        free(d);
    }
    return sb_take(&b);
}

static void sb_expr(strbuf *b, json_t *v) {
    if (json_is_integer(v))
        sb_printf(b, "%lldLL", (long long)json_integer_value(v));
    else
        sb_printf(b, "(%s)", json_string_value(v));
}

/* The copy engine's name of a buffer's element type. */
static const char *map_type(json_t *problem, const char *buffer) {
    static const char *const T[][2] = {{"float", "FLOAT32"},
                                       {"double", "FLOAT64"},
                                       {"__nv_bfloat16", "BFLOAT16"},
                                       {"int", "INT32"},
                                       {"unsigned", "UINT32"},
                                       {"long long", "INT64"},
                                       {"unsigned long long", "UINT64"},
                                       {"size_t", "UINT64"}};
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(problem, "buffers"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "name")), buffer) != 0) continue;
        const char *type = json_string_value(json_object_get(e, "type"));
        for (size_t k = 0; k < sizeof T / sizeof T[0]; k++)
            if (!strcmp(T[k][0], type)) return T[k][1];
    }
    return NULL;
}

/* The helper that encodes a tensor map through the runtime's driver entry
 * point (no libcuda link in the user's program), as the runner does. */
static const char MAP_ENCODER[] =
    "inline cudaError_t bt_encode_map(CUtensorMap *m, CUtensorMapDataType type, const void *ptr,\n"
    "                                 unsigned rank, const cuuint64_t *dims, const cuuint64_t "
    "*strides,\n"
    "                                 const cuuint32_t *box, int swizzle) {\n"
    "    typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,\n"
    "                                  const cuuint64_t *, const cuuint64_t *, const cuuint32_t "
    "*,\n"
    "                                  const cuuint32_t *, CUtensorMapInterleave, "
    "CUtensorMapSwizzle,\n"
    "                                  CUtensorMapL2promotion, CUtensorMapFloatOOBfill);\n"
    "    static encode_fn encode = nullptr;\n"
    "    if (!encode) {\n"
    "        void *fn = nullptr;\n"
    "        cudaDriverEntryPointQueryResult q;\n"
    "        if (cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", &fn, 12000,\n"
    "                                             cudaEnableDefault, &q) != cudaSuccess ||\n"
    "            q != cudaDriverEntryPointSuccess || !fn)\n"
    "            return cudaErrorNotSupported;\n"
    "        encode = (encode_fn)fn;\n"
    "    }\n"
    "    const cuuint32_t ones[5] = {1, 1, 1, 1, 1};\n"
    "    const CUtensorMapSwizzle sw = swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B\n"
    "                                  : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B\n"
    "                                  : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B\n"
    "                                                  : CU_TENSOR_MAP_SWIZZLE_NONE;\n"
    "    return encode(m, type, rank, const_cast<void *>(ptr), dims, strides, box, ones,\n"
    "                  CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,\n"
    "                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS\n"
    "               ? cudaSuccess\n"
    "               : cudaErrorInvalidValue;\n"
    "}\n\n";

/* The tensor maps of launch(), encoded from the call's sizes: bt_map0... */
static void sb_maps(strbuf *b, json_t *problem, json_t *maps) {
    json_t *m;
    size_t i;
    json_array_foreach(maps, i, m) {
        const char *buf = json_string_value(json_object_get(m, "buffer"));
        const char *type = map_type(problem, buf);
        const char *keys[] = {"dims", "strides", "box"}; /* bt_<key>: locals */
        const char *ctype[] = {"cuuint64_t", "cuuint64_t", "cuuint32_t"};
        sb_printf(b, "    CUtensorMap bt_map%zu;\n    {\n", i);
        for (int k = 0; k < 3; k++) {
            json_t *list = json_object_get(m, keys[k]), *v;
            size_t j;
            sb_printf(b, "        const %s bt_%s[] = {", ctype[k], keys[k]);
            json_array_foreach(list, j, v) {
                sb_printf(b, "%s(%s)", j ? ", " : "", ctype[k]);
                sb_expr(b, v);
            }
            sb_printf(b, "%s};\n", json_array_size(list) ? "" : "0");
        }
        sb_printf(b,
                  "        bt_e = bt_encode_map(&bt_map%zu, CU_TENSOR_MAP_DATA_TYPE_%s, %s, %zuu, "
                  "bt_dims, "
                  "bt_strides, bt_box, %d);\n"
                  "        if (bt_e != cudaSuccess) return bt_e;\n    }\n",
                  i, type ? type : "UINT8", buf, json_array_size(json_object_get(m, "dims")),
                  (int)json_integer_value(json_object_get(m, "swizzle")));
    }
}

/* What every variant's launcher uses, written once at the top of each
 * emitted file (emit_common): the geometry helpers, the probe of which code
 * the binary holds, the check that uses it, and the tensor-map encoder.
 * Guarded, so a program may include several bartune headers. */
static const char COMMON_HEAD[] =
    "#include <atomic>\n#include <cuda.h>\n#include <cuda_runtime.h>\n\n"
    "#ifndef BARTUNE_COMMON_4\n#define BARTUNE_COMMON_4\n"
    "// What every bartune variant's launcher uses, written once.\n"
    "namespace bartune_common {\n"
    "inline long long bt_min(long long a, long long b) { return a < b ? a : b; }\n"
    "inline long long bt_max(long long a, long long b) { return a > b ? a : b; }\n"
    "inline long long bt_ceil_div(long long a, long long b) { return (a + b - 1) / b; }\n\n"
    "// Two probes of the code this binary holds for the current device: built\n"
    "// for the architecture's own features (sm_90a), bt_probe's static shared\n"
    "// memory is 32 KiB larger than bt_probe_base's, elsewhere the same; the\n"
    "// difference reads which code the runtime picked for this device (an\n"
    "// sm_90a build reports sizes in whole KiB: 16 bytes show as 1024 there).\n"
    "#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__) || \\\n"
    "    defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
    "#define BT_PROBE_INTS (4 + 8192)\n"
    "#else\n"
    "#define BT_PROBE_INTS 4\n"
    "#endif\n"
    "static __global__ void bt_probe(int *bt_out) {\n"
    "    __shared__ volatile int bt_s[BT_PROBE_INTS];\n"
    "    bt_s[threadIdx.x % BT_PROBE_INTS] = 1;\n"
    "    if (bt_out) *bt_out = bt_s[0];\n"
    "}\n"
    "static __global__ void bt_probe_base(int *bt_out) {\n"
    "    __shared__ volatile int bt_s[4];\n"
    "    bt_s[threadIdx.x % 4] = 1;\n"
    "    if (bt_out) *bt_out = bt_s[0];\n"
    "}\n\n"
    "// Whether this binary holds `kernel` for the current device, built for\n"
    "// compute capability min_cc and up (and, with `specific`, for the\n"
    "// architecture's own features): from the kernels' attributes alone, so a\n"
    "// first call under graph capture decides as any other; thread-safe (the\n"
    "// caller's per-device cache). A check that failed for a reason a later\n"
    "// call could pass is not cached; an error of its own is cleared only where\n"
    "// the caller left none pending (the caller's is never touched).\n"
    "inline bool usable_code(const void *kernel, int min_cc, bool specific,\n"
    "                        std::atomic<signed char> *cache) {\n"
    "    const bool pending = cudaPeekAtLastError() != cudaSuccess;\n"
    "    int dev = 0;\n"
    "    if (cudaGetDevice(&dev) != cudaSuccess) {\n"
    "        if (!pending) (void)cudaGetLastError();  // ours\n"
    "        return false;\n"
    "    }\n"
    "    if (dev < 0 || dev >= 64) return false;\n"
    "    signed char c = cache[dev].load(std::memory_order_acquire);  // 0 unknown, 1 no, 2 yes\n"
    "    if (c == 0) {\n"
    "        cudaFuncAttributes a, p, q;\n"
    "        cudaError_t e = cudaFuncGetAttributes(&a, kernel);\n"
    "        if (e == cudaSuccess) e = cudaFuncGetAttributes(&p, (const void *)bt_probe);\n"
    "        if (e == cudaSuccess) e = cudaFuncGetAttributes(&q, (const void *)bt_probe_base);\n"
    "        if (e == cudaSuccess) {\n"
    "            const bool own = p.sharedSizeBytes >= q.sharedSizeBytes + 16384;  // sm_90a code\n"
    "            c = a.ptxVersion >= min_cc && (!specific || own) ? 2 : 1;\n"
    "        } else if (e == cudaErrorInvalidDeviceFunction || e == "
    "cudaErrorNoKernelImageForDevice)\n"
    "            c = 1;  // no code for this device: final\n"
    "        if (e != cudaSuccess && !pending) (void)cudaGetLastError();  // ours\n"
    "        if (c == 0) return false;  // not cached: a later call asks again\n"
    "        cache[dev].store(c, std::memory_order_release);\n"
    "    }\n"
    "    return c == 2;\n"
    "}\n\n";
static const char COMMON_TAIL[] = "}  // namespace bartune_common\n#endif\n\n";

/* A launch's scratch memory (launch().scratch) in the header: per call, in
 * the call's stream order, its zero prefix (launch().scratch_zero) cleared.
 * Guarded on its own, so headers emitted before it existed still go with it
 * in one program; the zero prefix (BARTUNE_SCRATCH_2) came later, in a guard
 * of its own for the same reason. */
static const char SCRATCH[] =
    "#ifndef BARTUNE_SCRATCH_1\n#define BARTUNE_SCRATCH_1\n#include <mutex>\n"
    "// Scratch memory of one call (a variant's launch().scratch), cleared and\n"
    "// freed in the call's stream order: concurrent calls in other streams each\n"
    "// have their own, and a graph captured around a call records the\n"
    "// allocation, the clearing and the free. Outside capture it comes from a\n"
    "// pool of bartune's own per device that keeps its memory between calls\n"
    "// (the device's default pool returns it at every synchronisation).\n"
    "namespace bartune_scratch {\n"
    "inline cudaMemPool_t bt_pool(int dev) {\n"
    "    static std::atomic<cudaMemPool_t> bt_pools[64];\n"
    "    static std::mutex bt_fill;\n"
    "    if (dev < 0 || dev >= 64) return nullptr;\n"
    "    cudaMemPool_t pool = bt_pools[dev].load(std::memory_order_acquire);\n"
    "    if (pool) return pool;\n"
    "    std::lock_guard<std::mutex> bt_lock(bt_fill);\n"
    "    if ((pool = bt_pools[dev].load())) return pool;\n"
    "    cudaMemPoolProps props = {};\n"
    "    props.allocType = cudaMemAllocationTypePinned;\n"
    "    props.location.type = cudaMemLocationTypeDevice;\n"
    "    props.location.id = dev;\n"
    "    unsigned long long keep = ~0ull;\n"
    "    if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) return nullptr;\n"
    "    if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) "
    "{\n"
    "        (void)cudaMemPoolDestroy(pool);\n"
    "        return nullptr;\n"
    "    }\n"
    "    bt_pools[dev].store(pool, std::memory_order_release);\n"
    "    return pool;\n"
    "}\n\n"
    "inline cudaError_t alloc_zeroed(void **p, size_t bytes, size_t zero, int dev,\n"
    "                                cudaStream_t stream);\n"
    "// *p: `bytes` of zeros for a launch in `stream` (nullptr for none)\n"
    "inline cudaError_t alloc(void **p, size_t bytes, int dev, cudaStream_t stream) {\n"
    "    return alloc_zeroed(p, bytes, bytes, dev, stream);\n"
    "}\n"
    "}  // namespace bartune_scratch\n#endif\n\n"
    "// Headers of older bartune define BARTUNE_SCRATCH_1 alone: this part comes\n"
    "// in its own guard, so an older header and a newer one go in one program.\n"
    "#ifndef BARTUNE_SCRATCH_2\n#define BARTUNE_SCRATCH_2\n"
    "namespace bartune_scratch {\n"
    "// *p: `bytes` for a launch in `stream` (nullptr for none), the first `zero`\n"
    "// of them zeroed (the rest holds anything); an error of the pool's own is\n"
    "// cleared where the caller left none pending.\n"
    "inline cudaError_t alloc_zeroed(void **p, size_t bytes, size_t zero, int dev,\n"
    "                                cudaStream_t stream) {\n"
    "    *p = nullptr;\n"
    "    if (bytes == 0) return cudaSuccess;\n"
    "    const bool pending = cudaPeekAtLastError() != cudaSuccess;\n"
    "    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;\n"
    "    cudaError_t e = cudaStreamIsCapturing(stream, &capture);\n"
    "    if (e != cudaSuccess) return e;\n"
    "    // under capture the graph owns the allocation, whatever the pool\n"
    "    cudaMemPool_t pool = capture == cudaStreamCaptureStatusNone ? bt_pool(dev) : nullptr;\n"
    "    if (!pool && capture == cudaStreamCaptureStatusNone && !pending) "
    "(void)cudaGetLastError();\n"
    "    e = pool ? cudaMallocFromPoolAsync(p, bytes, pool, stream) : cudaMallocAsync(p, bytes, "
    "stream);\n"
    "    if (e == cudaSuccess && zero) e = cudaMemsetAsync(*p, 0, zero < bytes ? zero : bytes, "
    "stream);\n"
    "    if (e != cudaSuccess && *p) {\n"
    "        (void)cudaFreeAsync(*p, stream);\n"
    "        *p = nullptr;\n"
    "    }\n"
    "    return e;\n"
    "}\n"
    "}  // namespace bartune_scratch\n#endif\n\n";

const char *emit_common(void) {
    static char *text;
    if (!text) text = xasprintf("%s%s%s%s", COMMON_HEAD, MAP_ENCODER, COMMON_TAIL, SCRATCH);
    return text;
}

/* launch().persistent: grid x lowered to the clusters of the kernel that
 * run at once (or its blocks, without a cluster), as the runner does;
 * counted on a device's first call (per shared memory size) and kept. */
static void sb_cap_persistent(strbuf *b) {
    sb_printf(
        b,
        "    // launch().persistent: at most the clusters (blocks) of the kernel that run at once\n"
        "    // (one word: shared memory << 32 | the count, so a call never reads one\n"
        "    // size's count under another's, whatever threads store at once)\n"
        "    static std::atomic<unsigned long long> bt_most_of[64];\n"
        "    const unsigned long long bt_most_w = bt_known ? bt_most_of[bt_dev].load() : 0;\n"
        "    long long bt_most = (long long)(bt_most_w >> 32) == bt_smem\n"
        "        ? (long long)(bt_most_w & 0xffffffffull) : 0;\n"
        "    if (bt_most <= 0) {\n"
        "        cudaFuncAttributes bt_fc;\n"
        "        int bt_n = 0;\n"
        "        bt_e = cudaFuncGetAttributes(&bt_fc, (const void *)bt_kernel);\n"
        "        if (bt_e == cudaSuccess && bt_fc.requiredClusterWidth > 0) {\n"
        "            cudaLaunchConfig_t bt_cfg = {};\n"
        "            bt_cfg.gridDim = dim3((unsigned)bt_grid_x, 1, 1);\n"
        "            bt_cfg.blockDim = dim3((unsigned)bt_block_x, (unsigned)bt_block_y, "
        "(unsigned)bt_block_z);\n"
        "            bt_cfg.dynamicSmemBytes = (size_t)bt_smem;\n"
        "            bt_e = cudaOccupancyMaxActiveClusters(&bt_n, (const void *)bt_kernel, "
        "&bt_cfg);\n"
        "            bt_most = (long long)bt_n * bt_fc.requiredClusterWidth;\n"
        "        } else if (bt_e == cudaSuccess) {\n"
        "            bt_e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bt_n, (const void "
        "*)bt_kernel,\n"
        "                (int)(bt_block_x * bt_block_y * bt_block_z), (size_t)bt_smem);\n"
        "            bt_most = (long long)bt_n * bt_sms;\n"
        "        }\n"
        "        if (bt_e != cudaSuccess) return bt_e;\n"
        "        if (bt_most <= 0) return cudaErrorInvalidConfiguration;  // none fits at once\n"
        "        if (bt_known && bt_smem < (1ll << 32) && bt_most < (1ll << 32))\n"
        "            bt_most_of[bt_dev].store((unsigned long long)bt_smem << 32 |\n"
        "                                     (unsigned long long)bt_most);\n"
        "    }\n"
        "    const long long bt_run_x = bt_grid_x < bt_most ? bt_grid_x : bt_most;\n");
}

/* The launcher generated from the space's launch() run over symbols: the
 * same geometry the runner launched, computed from the call's sizes. */
static void sb_launcher(strbuf *b, json_t *problem, json_t *geo, int min_cc, bool arch_specific) {
    char *decl = signature(problem, true);
    sb_printf(
        b,
        "using namespace bartune_common;  // the helpers, probe and encoder (written once)\n\n"
        "// Whether this binary holds the kernel for the current device (see usable_code).\n"
        "inline bool usable() {\n"
        "    static std::atomic<signed char> bt_cache[64];\n"
        "    return usable_code((const void *)bt_kernel, %d, %s, bt_cache);\n"
        "}\n\n"
        "// Launch geometry from the space's launch(), as measured.\n"
        "inline cudaError_t launch_kernel(%s, cudaStream_t stream) {\n",
        min_cc, arch_specific ? "true" : "false", decl);
    free(decl);
    json_t *z;
    size_t i;
    json_array_foreach(json_object_get(problem, "sizes"), i, z) {
        const char *n = json_string_value(json_object_get(z, "name"));
        sb_printf(b, "    const long long bt_s_%s = (long long)%s;\n    (void)bt_s_%s;\n", n, n, n);
    }
    sb_printf(b, "    int bt_dev = 0, bt_sms = 0;\n"
                 "    cudaError_t bt_e = cudaGetDevice(&bt_dev);\n"
                 "    if (bt_e == cudaSuccess) bt_e = cudaDeviceGetAttribute(&bt_sms, "
                 "cudaDevAttrMultiProcessorCount, bt_dev);\n"
                 "    if (bt_e != cudaSuccess) return bt_e;\n");
    const char *dims[] = {"grid", "block"};
    for (int d = 0; d < 2; d++)
        for (size_t k = 0; k < 3; k++) {
            sb_printf(b, "    const long long bt_%s_%c = ", dims[d], "xyz"[k]);
            sb_expr(b, json_array_get(json_object_get(geo, dims[d]), k));
            sb_printf(b, ";\n");
        }
    sb_printf(b, "    const long long bt_smem = ");
    sb_expr(b, json_object_get(geo, "smem"));
    sb_printf(b,
              ";\n"
              "    if (bt_grid_x <= 0 || bt_grid_y <= 0 || bt_grid_z <= 0) return cudaSuccess;  // "
              "nothing to do\n");
    json_t *maps = json_object_get(geo, "tensor_maps"), *scratch = json_object_get(geo, "scratch");
    if (scratch) {
        json_t *zero = json_object_get(geo, "scratch_zero");
        sb_printf(b, "    const long long bt_scratch = ");
        sb_expr(b, scratch);
        sb_printf(b, ";\n    const long long bt_scratch_zero = ");
        if (zero)
            sb_expr(b, zero);
        else
            sb_printf(b, "bt_scratch");
        sb_printf(b, ";  // its bytes zero at the launch (launch().scratch_zero)\n");
    }
    sb_maps(b, problem, maps);
    /* launch().cluster over 8: the kernel asks for a non-portable cluster size
     * (on the first call of a device, with its shared memory) */
    json_t *cluster = json_object_get(geo, "cluster");
    const char *nonportable =
        json_integer_value(cluster) > 8
            ? "        if (bt_e == cudaSuccess && !bt_fa.nonPortableClusterSizeAllowed)  // "
              "launch().cluster > 8\n"
              "            bt_e = cudaFuncSetAttribute(bt_kernel, "
              "cudaFuncAttributeNonPortableClusterSizeAllowed, 1);\n"
            : "";
    sb_printf(
        b,
        "    // cudaFuncSetAttribute clears an error the caller left pending (seen with\n"
        "    // CUDA 13.0): the kernel's limit is read, and raised, only while it is\n"
        "    // below what a call needs (kept per device), so only a process's first\n"
        "    // call of a variant can clear one, and later calls pay no query\n"
        "    static std::atomic<long long> bt_limit[64];\n"
        "    const bool bt_known = bt_dev >= 0 && bt_dev < 64;\n"
        "    if (!bt_known || bt_limit[bt_dev].load(std::memory_order_acquire) < bt_smem) {\n"
        "        cudaFuncAttributes bt_fa;\n"
        "        bt_e = cudaFuncGetAttributes(&bt_fa, (const void *)bt_kernel);\n"
        "        if (bt_e == cudaSuccess && bt_fa.maxDynamicSharedSizeBytes < (int)bt_smem)\n"
        "            bt_e = cudaFuncSetAttribute(bt_kernel, "
        "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bt_smem);\n"
        "%s"
        "        if (bt_e != cudaSuccess) return bt_e;\n"
        "        long long bt_seen = bt_known ? bt_limit[bt_dev].load() : bt_smem;\n"
        "        while (bt_seen < bt_smem && !bt_limit[bt_dev].compare_exchange_weak(bt_seen, "
        "bt_smem)) {\n"
        "        }\n"
        "    }\n"
        "    // the launch's own error, returned (no cudaGetLastError: an error the\n"
        "    // caller left pending stays the caller's)\n",
        nonportable);
    bool persistent = json_is_true(json_object_get(geo, "persistent"));
    if (persistent) sb_cap_persistent(b);
    if (scratch)
        sb_printf(b, "    void *bt_ws = nullptr;  // this call's own (launch().scratch)\n"
                     "    bt_e = bartune_scratch::alloc_zeroed(&bt_ws, (size_t)bt_scratch, "
                     "(size_t)bt_scratch_zero, bt_dev,\n"
                     "                                          stream);\n"
                     "    if (bt_e != cudaSuccess) return bt_e;\n");
    sb_printf(b, "    void *bt_args[] = {");
    json_t *a;
    json_array_foreach(json_object_get(problem, "args"), i, a)
        sb_printf(b, "%s(void *)&%s", i ? ", " : "", json_string_value(a));
    for (size_t m = 0; m < json_array_size(maps); m++)
        sb_printf(b, ", (void *)&bt_map%zu", m);
    if (scratch) sb_printf(b, ", (void *)&bt_ws");
    sb_printf(b,
              "};\n"
              "    %s cudaLaunchKernel((const void *)bt_kernel,\n"
              "        dim3((unsigned)%s, (unsigned)bt_grid_y, (unsigned)bt_grid_z),\n"
              "        dim3((unsigned)bt_block_x, (unsigned)bt_block_y, (unsigned)bt_block_z), "
              "bt_args, (size_t)bt_smem, stream);\n",
              scratch ? "bt_e =" : "return", persistent ? "bt_run_x" : "bt_grid_x");
    if (scratch)
        sb_printf(b, "    if (bt_ws) {  // freed after the kernel, in its stream\n"
                     "        const cudaError_t bt_f = cudaFreeAsync(bt_ws, stream);\n"
                     "        if (bt_e == cudaSuccess) bt_e = bt_f;\n"
                     "    }\n"
                     "    return bt_e;\n");
    sb_printf(b, "}\n");
}

/* Whether geometry text is only what problem.lua's symbols make: integer
 * literals (LL), bt_s_<size>, bt_sms, bt_min/bt_max/bt_ceil_div calls,
 * parentheses, commas and + - * / %. Anything else would be C++ of
 * launch()'s own reaching the header. */
static bool code_ok(const char *c, json_t *problem) {
    while (*c) {
        if (strchr(" ()+-*/%,", *c)) {
            c++;
        } else if (*c >= '0' && *c <= '9') {
            while (*c >= '0' && *c <= '9')
                c++;
            if (strncmp(c, "LL", 2) != 0) return false;
            c += 2;
        } else {
            size_t n = strspn(c, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
            bool known = (n == 6 && !strncmp(c, "bt_sms", 6)) ||
                         (c[n] == '(' &&
                          ((n == 6 && (!strncmp(c, "bt_min", 6) || !strncmp(c, "bt_max", 6))) ||
                           (n == 11 && !strncmp(c, "bt_ceil_div", 11))));
            json_t *z;
            size_t i;
            json_array_foreach(json_object_get(problem, "sizes"), i, z) {
                const char *name = json_string_value(json_object_get(z, "name"));
                known = known || (n == 5 + strlen(name) && !strncmp(c, "bt_s_", 5) &&
                                  !strncmp(c + 5, name, n - 5));
            }
            if (!n || !known) return false;
            c += n;
        }
    }
    return true;
}

/* Every text of a list passes code_ok. */
static bool list_ok(json_t *list, json_t *problem) {
    json_t *v;
    size_t i;
    json_array_foreach(list, i, v) if (json_is_string(v) &&
                                       !code_ok(json_string_value(v), problem)) return false;
    return true;
}

/* Every text of a geometry passes code_ok. */
static bool geometry_ok(json_t *geo, json_t *problem) {
    json_t *m, *smem = json_object_get(geo, "smem"), *scratch = json_object_get(geo, "scratch");
    json_t *zero = json_object_get(geo, "scratch_zero");
    size_t i;
    bool ok = list_ok(json_object_get(geo, "grid"), problem) &&
              list_ok(json_object_get(geo, "block"), problem) &&
              (!json_is_string(smem) || code_ok(json_string_value(smem), problem)) &&
              (!json_is_string(scratch) || code_ok(json_string_value(scratch), problem)) &&
              (!json_is_string(zero) || code_ok(json_string_value(zero), problem));
    json_array_foreach(json_object_get(geo, "tensor_maps"), i, m) ok =
        ok && list_ok(json_object_get(m, "dims"), problem) &&
        list_ok(json_object_get(m, "strides"), problem);
    return ok;
}

char *emit_variant(space *s, const device_info *d, const config *params, const config *launch,
                   json_t *measured_at, const char *ns) {
    config extra = {0}, values;
    config_merge(&values, params, launch);
    char *desc = config_describe(&values), *err = NULL;
    config_set(&extra, "ns", ns);
    config_set(&extra, "kernel_name", "bt_kernel");
    config_set(&extra, "kernel_linkage", "static");
    config_set(&extra, "emit", "true");
    config_set(&extra, "describe", desc);
    char *kernel = space_render(s, d, params, &extra, false, &err);
    char *host = kernel ? space_render(s, d, params, &extra, true, &err) : NULL;
    json_t *geo = host ? space_geometry(s, d, &values, NULL, measured_at, &err) : NULL;
    /* The portable variant was measured at no one tuple: its header's
     * geometry must be launch()'s at every tuned tuple (the sizes run
     * measures it at), or the header would launch what was never measured. */
    json_t *tune = json_object_get(space_problem(s), "tune"), *at;
    size_t ti;
    json_array_foreach(tune, ti, at) {
        if (!geo || measured_at) break;
        json_t *again = space_geometry(s, d, &values, NULL, at, &err);
        if (!again) {
            json_decref(geo);
            geo = NULL;
        }
        json_decref(again);
    }
    if (geo && !geometry_ok(geo, space_problem(s))) {
        err = xstrdup("launch() gave the header geometry text that is not sizes, dev.sms, integers "
                      "and + - * // % min max ceil_div: refused (only those reach a header)");
        json_decref(geo);
        geo = NULL;
    }
    char *out = NULL;
    if (geo) {
        strbuf b = {0};
        sb_printf(&b, "%s\nnamespace %s {\n", kernel, ns);
        sb_launcher(&b, space_problem(s), geo,
                    (int)json_integer_value(json_object_get(geo, "min_cc")),
                    json_is_true(json_object_get(space_problem(s), "arch_specific")));
        if (*host) {
            sb_printf(&b, "\n%s", host);
        } else {
            char *decl = signature(space_problem(s), true),
                 *names = signature(space_problem(s), false);
            sb_printf(&b,
                      "\ninline cudaError_t run(%s, cudaStream_t stream) {\n"
                      "    return launch_kernel(%s, stream);\n}\n"
                      "// Why run() would not take the tuned kernel for this call: never.\n"
                      "inline const char *fallback_reason(%s) {\n",
                      decl, names, decl);
            json_t *nm;
            size_t k;
            json_array_foreach(json_object_get(space_problem(s), "signature"), k, nm)
                sb_printf(&b, "    (void)%s;\n", json_string_value(nm));
            sb_printf(&b, "    return nullptr;\n}\n");
            free(decl);
            free(names);
        }
        sb_printf(&b, "}  // namespace %s\n", ns);
        out = sb_take(&b);
    } else {
        msg_error("emitting %s (%s): %s", space_name(s), desc, err);
    }
    free(err);
    free(desc);
    free(kernel);
    free(host);
    json_decref(geo);
    config_free(&extra);
    config_free(&values);
    return out;
}

/* A template's shared() pieces (gen/lib/template.lua) stand between
 * "// bartune-shared GUARD begin" and "... end" lines: a file keeps the
 * first copy of each and drops the others (the guards would skip them). */
static void drop_repeated_shared(strbuf *b) {
    static const char BEGIN[] = "// bartune-shared ";
    strbuf out = {0};
    char *seen = xstrdup("\n");
    const char *p = b->data ? b->data : "";
    for (const char *at; (at = strstr(p, BEGIN));) {
        const char *name = at + sizeof BEGIN - 1, *sp = strchr(name, ' ');
        if (!sp || strncmp(sp, " begin\n", 7)) { /* not a marker: copy past it */
            sb_printf(&out, "%.*s", (int)(name - p), p);
            p = name;
            continue;
        }
        char *key = xasprintf("\n%.*s\n", (int)(sp - name), name);
        char *end_line = xasprintf("%s%.*s end\n", BEGIN, (int)(sp - name), name);
        const char *end = strstr(sp, end_line);
        bool again = strstr(seen, key) != NULL;
        if (again && end) {
            sb_printf(&out, "%.*s", (int)(at - p), p); /* up to the repeat, which goes */
            p = end + strlen(end_line);
        } else {
            char *more = xasprintf("%s%.*s\n", seen, (int)(sp - name), name);
            free(seen);
            seen = more;
            sb_printf(&out, "%.*s", (int)(sp - p), p);
            p = sp;
        }
        free(key);
        free(end_line);
    }
    sb_printf(&out, "%s", p);
    free(seen);
    free(b->data);
    *b = out;
}

/* Does the problem declare values for size `name` (a layout, a mode)? */
static bool is_choice(json_t *problem, const char *name) {
    json_t *z;
    size_t i;
    json_array_foreach(json_object_get(problem, "sizes"), i, z) {
        if (!strcmp(json_string_value(json_object_get(z, "name")), name))
            return json_object_get(z, "values") != NULL;
    }
    return false;
}

/* A tuned tuple serves only calls of its sizes of declared values:
 * " && transb == 1" for each. */
static void sb_guard(strbuf *b, json_t *problem, json_t *sizes) {
    const char *k;
    json_t *v;
    json_object_foreach(sizes, k, v) {
        if (is_choice(problem, k))
            sb_printf(b, " && %s == %lld", k, (long long)json_integer_value(v));
    }
}

/* The sizes of declared values, "transa, transb", or NULL where none. */
static char *choice_names(json_t *problem) {
    strbuf names = {0};
    json_t *z;
    size_t i;
    json_array_foreach(json_object_get(problem, "sizes"), i, z) {
        const char *nm = json_string_value(json_object_get(z, "name"));
        if (is_choice(problem, nm)) sb_printf(&names, "%s%s", names.len ? ", " : "", nm);
    }
    return names.data;
}

/* Do two tuned tuples agree on the sizes of declared values (so one copy
 * of a variant, whose launch geometry branches on them, serves both)? */
static bool same_choices(json_t *problem, json_t *a, json_t *b) {
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) {
        if (is_choice(problem, k) && !json_equal(v, json_object_get(b, k))) return false;
    }
    return true;
}

/* One device's header: the best at each size tuple. Appends to devs. */
static bool emit_device(space *s, const char *records_path, const char *want_key,
                        const char *kernels_dir, emitted *devs, int *n) {
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(records_path, want_key, &dropped, &err);
    if (!recs) {
        msg_error("%s", err);
        free(err);
        return false;
    }
    json_t *rec0 = json_array_get(recs, 0);
    const char *sp = rec0 ? json_string_value(json_object_get(rec0, "space")) : NULL;
    if (sp && strcmp(sp, space_name(s)) != 0) {
        msg_error("%s holds results of space '%s', not '%s'", records_path, sp, space_name(s));
        json_decref(recs);
        return false;
    }
    json_t *all_sizes = results_sizes(recs), *sizes;
    strbuf body = {0};
    char key[160] = "";
    int first = *n;
    bool ok = true;
    size_t zi;
    json_array_foreach(all_sizes, zi, sizes) {
        if (proc_interrupted) {
            ok = false;
            break;
        }
        passed_over po;
        json_t *best = best_current(s, recs, sizes, NULL, &po);
        passed_over_warn(records_path, s, &po);
        if (!best || *n >= MAX_EMITTED) continue;
        device_info d;
        record_device(best, &d);
        device_key(&d, key);
        config params, launch;
        session_split(s, json_object_get(best, "config"), &params, &launch);
        char *summary = config_describe(&launch), *pd = config_describe(&params);
        char *full = xasprintf("%s %s", pd, summary);
        int same = -1;
        for (int k = first; k < *n; k++)
            if (!strcmp(devs[k].summary, full) &&
                same_choices(space_problem(s), devs[k].sizes, sizes))
                same = k;
        emitted *e = &devs[(*n)++];
        memset(e, 0, sizeof *e);
        snprintf(e->key, sizeof e->key, "%s", key);
        snprintf(e->name, sizeof e->name, "%s", d.name);
        e->major = d.cc_major;
        e->minor = d.cc_minor;
        e->sms = d.sms;
        e->summary = full;
        e->sizes = json_incref(sizes);
        char id[160];
        identifier_of(key, id, sizeof id);
        if (same >= 0) {
            memcpy(e->ns, devs[same].ns, sizeof e->ns); /* one copy of a variant */
        } else {
            snprintf(e->ns, sizeof e->ns, "bartune_%s_%s_v%d", space_name(s), id, *n - first);
            char *src = emit_variant(s, &d, &params, &launch, sizes, e->ns);
            char *at = sizes_describe(sizes);
            if (src) {
                char *date = comment_text(json_string_value(json_object_get(best, "date")));
                char *nvcc = comment_text(json_string_value(json_object_get(best, "nvcc")));
                sb_printf(&body,
                          "// Best verified variant at %s: median %.4f ms (min %.4f, max %.4f),\n"
                          "// measured %s with nvcc %s.\n// config: ",
                          at, json_number_value(json_object_get(best, "median_ms")),
                          json_number_value(json_object_get(best, "min_ms")),
                          json_number_value(json_object_get(best, "max_ms")), date, nvcc);
                free(date);
                free(nvcc);
                sb_printf(&body, "%s\n%s\n", full, src);
            }
            ok = ok && src;
            free(src);
            free(at);
        }
        free(summary);
        free(pd);
        config_free(&params);
        config_free(&launch);
    }
    ok = ok && !space_template_failing(s); /* said: no header of fewer variants over a good one */
    if (ok && *n > first) {
        drop_repeated_shared(&body);
        char *dir = path_join(kernels_dir, key);
        char *file = xasprintf("%s/%s.cuh", dir, space_name(s));
        strbuf b = {0};
        sb_printf(&b,
                  "// Generated by bartune from %s; do not edit (run bartune emit).\n"
                  "// Tuned variants of '%s' on ",
                  shown_file(s), space_name(s));
        sb_c_string(&b, devs[first].name);
        sb_printf(&b, " (compute capability %d.%d).\n#pragma once\n%s%s", devs[first].major,
                  devs[first].minor, emit_common(), body.data);
        ok = mkdir_p(dir) && write_file_atomic(file, b.data, b.len);
        if (!ok)
            msg_error("cannot write %s: %s", file, strerror(errno));
        else
            fprintf(stderr, "bartune: wrote %s (%d variant%s)\n", file, *n - first,
                    *n - first == 1 ? "" : "s");
        free(b.data);
        free(dir);
        free(file);
    } else if (ok) {
        msg_warn("%s has no verified result for the space as it is now", records_path);
    }
    free(body.data);
    json_decref(all_sizes);
    json_decref(recs);
    return ok;
}

static bool emit_portable(space *s, const char *kernels_dir, emitted *e) {
    int count;
    const named_config *named = space_named(s, &count);
    const named_config *p = NULL;
    for (int i = 0; i < count; i++)
        if (named[i].portable) p = &named[i];
    if (!p) {
        msg_error("%s declares no portable{} config: the header needs a variant for GPUs "
                  "without tuned results",
                  space_file(s));
        return false;
    }
    device_info d;
    device_for_arch("sm_70", &d);
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "portable");
    snprintf(e->ns, sizeof e->ns, "bartune_%s_portable", space_name(s));
    config params, launch;
    json_t *cfg = config_json(&p->cfg);
    session_split(s, cfg, &params, &launch);
    json_decref(cfg);
    e->summary = config_describe(&p->cfg);
    char *src = emit_variant(s, &d, &params, &launch, NULL, e->ns);
    bool ok = src != NULL;
    if (ok) {
        char *dir = path_join(kernels_dir, "portable");
        char *file = xasprintf("%s/%s.cuh", dir, space_name(s)), *label = comment_text(p->label);
        char *text = xasprintf("// Generated by bartune from %s; do not edit (run bartune emit).\n"
                               "// Portable variant '%s' (untuned; any GPU of compute capability "
                               "7.5+): %s\n#pragma once\n%s%s",
                               shown_file(s), label, e->summary, emit_common(), src);
        ok = mkdir_p(dir) && write_file_atomic(file, text, strlen(text));
        if (!ok) msg_error("cannot write %s: %s", file, strerror(errno));
        free(label);
        free(text);
        free(dir);
        free(file);
    }
    free(src);
    config_free(&params);
    config_free(&launch);
    if (!ok) {
        free(e->summary);
        e->summary = NULL;
    }
    return ok;
}

/* The line that answers `ret` where a call gives a size of declared values
 * none of them ("" where the problem declares none): owned text. */
static char *choices_check(json_t *problem, const char *ret) {
    strbuf b = {0};
    json_t *z, *v;
    size_t i, j;
    json_array_foreach(json_object_get(problem, "sizes"), i, z) {
        json_t *vals = json_object_get(z, "values");
        if (!vals) continue;
        sb_printf(&b, "%s!(", b.len ? " || " : "");
        json_array_foreach(vals, j, v) sb_printf(&b, "%s%s == %lld", j ? " || " : "",
                                                 json_string_value(json_object_get(z, "name")),
                                                 (long long)json_integer_value(v));
        sb_printf(&b, ")");
    }
    char *cond = sb_take(&b);
    char *line = cond && *cond ? xasprintf("    if (%s) return %s;\n", cond, ret) : xstrdup("");
    free(cond);
    return line;
}

/* The size distance of a call to a tuned tuple: sum of |log2| ratios over
 * the sizes that measure (those of declared values must match: sb_guard). */
static void sb_distance(strbuf *b, json_t *problem, json_t *sizes) {
    const char *k;
    json_t *v;
    sb_printf(b, "0.0");
    json_object_foreach(sizes, k, v) {
        if (!is_choice(problem, k))
            sb_printf(b, " + bt_dist(%s, %lld.0)", k, (long long)json_integer_value(v));
    }
}

/* NAME as an upper-case macro part: gemm_bf16 -> GEMM_BF16. */
static void upper_ident(const char *name, char *out, size_t cap) {
    size_t i = 0;
    for (; name[i] && i + 1 < cap; i++)
        out[i] = (char)toupper((unsigned char)name[i]);
    out[i] = '\0';
}

/* The compiled-once form beside kernels/<space>.cuh: <space>.h (the entry
 * points' declarations: what a program's units include), <space>.cu (the
 * one unit that compiles the kernels) and <space>.cmake (a library target
 * of it for a CMake project). */
static bool write_compiled_once(space *s, const char *kernels_dir, const emitted *devs, int n,
                                const char *up, const char *decl) {
    const char *sp = space_name(s);
    bool specific = json_is_true(json_object_get(space_problem(s), "arch_specific"));
    strbuf h = {0}, cu = {0}, cm = {0};
    sb_printf(&h,
              "// Generated by bartune from %s; do not edit (run bartune emit).\n"
              "// The entry points of %s.cuh, declared only: include this from any number of\n"
              "// units (plain C++ too) and compile %s.cu once (or link the CMake target of\n"
              "// %s.cmake); see %s.cuh for what they do.\n"
              "#pragma once\n#include <cuda_runtime.h>\n%s\n"
              "#ifndef BARTUNE_%s_PATH_T\n#define BARTUNE_%s_PATH_T\n"
              "struct bartune_%s_path_t {\n    int variant;\n    const char *name, *why;\n};\n"
              "#endif\n"
              "cudaError_t bartune_%s(%s, cudaStream_t stream = 0);\n"
              "bartune_%s_path_t bartune_%s_path(%s);\n"
              "const char *bartune_%s_variant(%s);\n",
              shown_file(s), sp, sp, sp, sp,
              strstr(decl, "__nv_bfloat16") ? "#include <cuda_bf16.h>\n" : "", up, up, sp, sp, decl,
              sp, sp, decl, sp, decl);
    sb_printf(&cu,
              "// Generated by bartune from %s; do not edit (run bartune emit).\n"
              "// The one unit that compiles the %s kernels (the compiled-once form).\n"
              "#define BARTUNE_%s_COMPILED_ONCE\n#include \"%s.cuh\"\n",
              shown_file(s), sp, up, sp);
    strbuf archs = {0};
    for (int i = 0; i < n; i++) {
        char one[16];
        snprintf(one, sizeof one, "%d%d%s", devs[i].major, devs[i].minor,
                 specific && devs[i].major >= 9 ? "a" : "");
        if (!strstr(archs.data ? archs.data : "", one)) sb_printf(&archs, "%s;", one);
    }
    sb_printf(&archs, "75-virtual"); /* PTX for the portable variant elsewhere (nvcc 13: 7.5+) */
    sb_printf(
        &cm,
        "# Generated by bartune from %s; do not edit (run bartune emit).\n"
        "# The %s kernels compiled once, as a library: include(<this file>) and\n"
        "# target_link_libraries(your_program PRIVATE bartune_%s); your units include\n"
        "# %s.h. BARTUNE_%s_ARCHITECTURES sets what it is built for.\n"
        "if(NOT TARGET bartune_%s)\n"
        "  enable_language(CUDA)\n"
        "  find_package(CUDAToolkit REQUIRED)\n"
        "  set(BARTUNE_%s_ARCHITECTURES \"%s\" CACHE STRING \"what bartune_%s is built for\")\n"
        "  add_library(bartune_%s STATIC \"${CMAKE_CURRENT_LIST_DIR}/%s.cu\")\n"
        "  target_include_directories(bartune_%s PUBLIC \"${CMAKE_CURRENT_LIST_DIR}\")\n"
        "  target_link_libraries(bartune_%s PUBLIC CUDA::cudart)\n"
        "  set_target_properties(bartune_%s PROPERTIES CUDA_STANDARD 17\n"
        "    CUDA_ARCHITECTURES \"${BARTUNE_%s_ARCHITECTURES}\")\n"
        "endif()\n",
        shown_file(s), sp, sp, sp, up, sp, up, archs.data, sp, sp, sp, sp, sp, sp, up);
    free(archs.data);
    const char *ext[] = {"h", "cu", "cmake"};
    strbuf *text[] = {&h, &cu, &cm};
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        char *file = xasprintf("%s/%s.%s", kernels_dir, sp, ext[i]);
        ok = write_file_atomic(file, text[i]->data, text[i]->len);
        if (!ok) msg_error("cannot write %s: %s", file, strerror(errno));
        free(file);
    }
    if (ok)
        fprintf(stderr, "bartune: wrote %s/%s.h, .cu and .cmake (the compiled-once form)\n",
                kernels_dir, sp);
    free(h.data);
    free(cu.data);
    free(cm.data);
    return ok;
}

/* The nvcc flags that build the tuned code of a device of compute
 * capability major.minor: "-gencode=arch=compute_90a,code=sm_90a" for a
 * space built for an architecture's own features. */
static void build_flags(bool specific, int major, int minor, char out[96]) {
    const char *a = specific && major >= 9 ? "a" : "";
    snprintf(out, 96, "-gencode=arch=compute_%d%d%s,code=sm_%d%d%s", major, minor, a, major, minor,
             a);
}

/* The dispatcher's device table: each tuned device once; *of[i] the entry of
 * variant i. */
static int device_table(strbuf *b, const emitted *devs, int n, bool specific, int *of) {
    int count = 0;
    sb_printf(b, "// The devices the variants were tuned on: name, compute capability, SMs, and\n"
                 "// the flags that build their code.\n"
                 "struct bt_tuned {\n    const char *key, *name;\n    int major, minor, sms;\n"
                 "    const char *flags;\n};\n"
                 "static const bt_tuned bt_tuned_on[] = {\n");
    for (int i = 0; i < n; i++) {
        int k = -1;
        for (int j = 0; j < i && k < 0; j++)
            if (!strcmp(devs[j].key, devs[i].key)) k = of[j];
        if (k >= 0) {
            of[i] = k;
            continue;
        }
        of[i] = count++;
        char flags[96];
        build_flags(specific, devs[i].major, devs[i].minor, flags);
        sb_printf(b, "    {\"");
        sb_c_string(b, devs[i].key);
        sb_printf(b, "\", \"");
        sb_c_string(b, devs[i].name);
        sb_printf(b, "\", %d, %d, %d, \"%s\"},\n", devs[i].major, devs[i].minor, devs[i].sms,
                  flags);
    }
    if (!count)
        sb_printf(b, "    {\"\", \"\", 0, 0, 0, \"\"},  // none: the portable variant only\n");
    sb_printf(b, "};\nconstexpr int bt_n_tuned = %d;\n\n", count);
    return count;
}

/* What every dispatcher holds whatever was tuned: the current device, read
 * once per device (thread-safe, a failure not kept), with how far each
 * tuned device is from it. */
static const char DISPATCH_COMMON[] =
    "inline double bt_dist(double call, double tuned) { return fabs(log2((call + 1) / (tuned + "
    "1))); "
    "}\n\n"
    "// How far tuned device i is from the current one, in the units of a size\n"
    "// distance: -1 for another compute capability (other instructions), 0 for the\n"
    "// same name, else 1 + |log2| of the SM counts' ratio. A call takes the variant\n"
    "// of least device + size distance, so a device tuned at a few sizes runs its\n"
    "// own variants near them and a like device's elsewhere.\n"
    "inline double bt_far(const cudaDeviceProp &p, int i) {\n"
    "    const bt_tuned &t = bt_tuned_on[i];\n"
    "    if (t.major != p.major || t.minor != p.minor) return -1;\n"
    "    return strcmp(t.name, p.name) == 0 ? 0 : 1 + fabs(log2((double)p.multiProcessorCount / "
    "t.sms));\n"
    "}\n\n"
    "// The current device: how far each tuned device is from it (like: any is of its\n"
    "// compute capability), read once per device.\n"
    "struct bt_here {\n    double far[bt_n_tuned + 1];\n    bool like;\n};\n"
    "inline const bt_here *here() {\n"
    "    static bt_here bt_devs[64];\n"
    "    static std::atomic<bool> bt_ready[64];\n"
    "    static std::mutex bt_fill;\n"
    "    const bool bt_pending = cudaPeekAtLastError() != cudaSuccess;\n"
    "    int bt_dev = 0;\n"
    "    if (cudaGetDevice(&bt_dev) != cudaSuccess) {\n"
    "        if (!bt_pending) (void)cudaGetLastError();  // ours; the caller's is left\n"
    "        return nullptr;\n"
    "    }\n"
    "    if (bt_dev < 0 || bt_dev >= 64) return nullptr;\n"
    "    if (!bt_ready[bt_dev].load(std::memory_order_acquire)) {\n"
    "        std::lock_guard<std::mutex> bt_lock(bt_fill);\n"
    "        if (!bt_ready[bt_dev].load(std::memory_order_relaxed)) {\n"
    "            cudaDeviceProp bt_p;\n"
    "            if (cudaGetDeviceProperties(&bt_p, bt_dev) != cudaSuccess) {\n"
    "                if (!bt_pending) (void)cudaGetLastError();\n"
    "                return nullptr;  // not kept: a later call reads it again\n"
    "            }\n"
    "            bt_here &bt_h = bt_devs[bt_dev];\n"
    "            bt_h.like = false;\n"
    "            for (int i = 0; i < bt_n_tuned; i++) {\n"
    "                bt_h.far[i] = bt_far(bt_p, i);\n"
    "                bt_h.like = bt_h.like || bt_h.far[i] >= 0;\n"
    "            }\n"
    "            bt_ready[bt_dev].store(true, std::memory_order_release);\n"
    "        }\n"
    "    }\n"
    "    return &bt_devs[bt_dev];\n"
    "}\n\n"
    "// Which variant a call takes (-1: the portable one) and why it is not the tuned\n"
    "// kernel (nullptr: it is).\n"
    "struct bt_path {\n    int variant;\n    const char *why;\n};\n\n";

static bool write_dispatcher(space *s, const char *kernels_dir, emitted *devs, int n,
                             const emitted *portable) {
    const char *sp = space_name(s);
    json_t *problem = space_problem(s);
    bool specific = json_is_true(json_object_get(problem, "arch_specific"));
    char *decl = signature(problem, true), *names = signature(problem, false);
    char flags[96] = "-arch=native"; /* the first device's flags, as the comment's example */
    if (n) build_flags(specific, devs[0].major, devs[0].minor, flags);
    strbuf b = {0};
    sb_printf(
        &b,
        "// Generated by bartune from %s; do not edit (run bartune emit).\n"
        "// cudaError_t bartune_%s(%s, cudaStream_t stream = 0)\n"
        "// runs, on a device of a compute capability that variants were tuned on, the\n"
        "// variant nearest to the call: least size distance (sum over sizes of\n"
        "// |log2(call / tuned)|; sizes of declared values, a layout say, must be\n"
        "// equal) plus device distance (0 for the device it was tuned on, else 1 +\n"
        "// |log2| of the SM counts' ratio), where the binary holds their code (build with the\n"
        "// flags bt_tuned_on names, e.g. %s); else a portable variant.\n"
        "// bartune_%s_path(...) says which variant a call takes and why not the tuned\n"
        "// kernel; bartune_%s_variant(...) names it. Thread-safe, capture-safe (no\n"
        "// synchronous call decides the path), and it leaves an error the caller left\n"
        "// pending alone. Includable from any number of translation units.\n"
        "#pragma once\n#include <cuda_runtime.h>\n#include <math.h>\n#include <stdio.h>\n"
        "#include <string.h>\n\n#include <atomic>\n#include <mutex>\n\n"
        "#include \"portable/%s.cuh\"\n",
        shown_file(s), sp, decl, flags, sp, sp, sp);
    for (int i = 0; i < n; i++) {
        bool again = false;
        for (int k = 0; k < i; k++)
            again = again || !strcmp(devs[k].key, devs[i].key);
        if (!again) sb_printf(&b, "#include \"%s/%s.cuh\"\n", devs[i].key, sp);
    }
    char up[160];
    char *refuse_path = choices_check(problem, "{-1, \"a size outside the values the problem "
                                               "declares for it: cudaErrorInvalidValue\"}");
    char *refuse_call = choices_check(problem, "cudaErrorInvalidValue");
    upper_ident(sp, up, sizeof up);
    sb_printf(&b,
              "\n// The entry points: inline, or defined once where %s.cu (the compiled-once\n"
              "// form; other units include %s.h) defines BARTUNE_%s_COMPILED_ONCE.\n"
              "#ifdef BARTUNE_%s_COMPILED_ONCE\n#define BARTUNE_%s_ENTRY\n#else\n"
              "#define BARTUNE_%s_ENTRY inline\n#endif\n",
              sp, sp, up, up, up, up);
    sb_printf(&b, "\nnamespace bartune_%s_dispatch {\n", sp);
    int of[MAX_EMITTED];
    device_table(&b, devs, n, specific, of);
    sb_printf(&b, "%s", DISPATCH_COMMON);
    strbuf voids = {0}; /* a call's values that no size distance reads */
    json_t *nm;
    size_t ni;
    json_array_foreach(json_object_get(problem, "signature"), ni, nm)
        sb_printf(&voids, "    (void)%s;\n", json_string_value(nm));
    char *unused = sb_take(&voids);
    sb_printf(&b,
              "inline bt_path choose(%s) {\n"
              "%s"
              "    const bt_here *h = here();\n"
              "    if (!h) return {-1, \"the current device could not be read\"};\n"
              "    if (!h->like) return {-1, \"no variant was tuned on a device of this compute "
              "capability\"};\n"
              "%s"
              "    int bt_pick = -1;\n%s",
              decl, unused, refuse_path, n ? "    double bt_best = 1e300, bt_d;\n" : "");
    free(unused);
    /* with sizes of declared values (a layout), whether a variant was tuned
     * at the call's: if none, the fallback says so, not "no code" */
    char *choices = n ? choice_names(problem) : NULL;
    if (choices) sb_printf(&b, "    bool bt_tuned_for = false;\n");
    for (int i = 0; i < n; i++) {
        sb_printf(&b, "    if (h->far[%d] >= 0", of[i]);
        sb_guard(&b, problem, devs[i].sizes);
        if (choices)
            sb_printf(&b, ") {\n        bt_tuned_for = true;\n        if (%s::usable() && (bt_d = ",
                      devs[i].ns);
        else
            sb_printf(&b, " && %s::usable() && (bt_d = ", devs[i].ns);
        sb_printf(&b, "h->far[%d] + ", of[i]);
        sb_distance(&b, problem, devs[i].sizes);
        sb_printf(&b, ") < bt_best) bt_best = bt_d, bt_pick = %d;\n%s", i,
                  choices ? "    }\n" : "");
    }
    if (n) sb_printf(&b, "    (void)bt_d;\n    (void)bt_best;\n");
    sb_printf(&b, "    switch (bt_pick) {\n");
    for (int k = 0; k < n; k++)
        sb_printf(&b, "    case %d: return {%d, %s::fallback_reason(%s)};\n", k, k, devs[k].ns,
                  names);
    sb_printf(&b, "    default:\n");
    if (choices)
        sb_printf(&b,
                  "        if (!bt_tuned_for)\n"
                  "            return {-1, \"no variant was tuned on a device of this compute "
                  "capability at the call's %s "
                  "(add a size tuple with them to the problem's tune list)\"};\n",
                  choices);
    free(choices);
    sb_printf(&b, "        return {-1, \"the binary holds no code of the tuned variants for this "
                  "device: build with the flags bt_tuned_on names\"};\n"
                  "    }\n}\n");
    sb_printf(&b,
              "\n// The variants' names, as bartune_%s_variant gives them.\n"
              "static const char *const bt_names[] = {\n",
              sp);
    for (int k = 0; k < n; k++) {
        char *at = sizes_describe(devs[k].sizes);
        sb_printf(&b, "    \"");
        sb_c_string(&b, devs[k].key);
        sb_printf(&b, " at ");
        sb_c_string(&b, at);
        sb_printf(&b, ": ");
        sb_c_string(&b, devs[k].summary);
        sb_printf(&b, "\",\n");
        free(at);
    }
    sb_printf(&b, "    \"portable\"};\n}  // namespace bartune_%s_dispatch\n\n", sp);
    sb_printf(
        &b,
        "// Which variant bartune_%s takes for this call on the current device (variant\n"
        "// -1: the portable one), its name, and why it is not the tuned kernel\n"
        "// (why = nullptr: it is).\n"
        "#ifndef BARTUNE_%s_PATH_T\n#define BARTUNE_%s_PATH_T\n"
        "struct bartune_%s_path_t {\n    int variant;\n    const char *name, *why;\n};\n"
        "#endif\n"
        "BARTUNE_%s_ENTRY bartune_%s_path_t bartune_%s_path(%s) {\n"
        "    const bartune_%s_dispatch::bt_path p = bartune_%s_dispatch::choose(%s);\n"
        "    return {p.variant, bartune_%s_dispatch::bt_names[p.variant < 0 ? %d : "
        "p.variant], p.why};\n}\n\n"
        "// The variant bartune_%s runs for this call on the current device, and why\n"
        "// not the tuned kernel where it is not (a thread's own text, until its next call).\n"
        "BARTUNE_%s_ENTRY const char *bartune_%s_variant(%s) {\n"
        "    const bartune_%s_path_t p = bartune_%s_path(%s);\n"
        "    if (!p.why) return p.name;\n"
        "    static thread_local char bt_text[1024];\n"
        "    snprintf(bt_text, sizeof bt_text, \"%%s (%%s)\", p.name, p.why);\n"
        "    return bt_text;\n}\n\n",
        sp, up, up, sp, up, sp, sp, decl, sp, sp, names, sp, n, sp, up, sp, decl, sp, sp, names);
    sb_printf(&b,
              "BARTUNE_%s_ENTRY cudaError_t bartune_%s(%s, cudaStream_t stream = 0) {\n"
              "%s"
              "    switch (bartune_%s_dispatch::choose(%s).variant) {\n",
              up, sp, decl, refuse_call, sp, names);
    for (int k = 0; k < n; k++)
        sb_printf(&b, "    case %d: return %s::run(%s, stream);\n", k, devs[k].ns, names);
    sb_printf(&b, "    default: return %s::run(%s, stream);\n    }\n}\n", portable->ns, names);
    char *file = xasprintf("%s/%s.cuh", kernels_dir, sp);
    bool ok = write_file_atomic(file, b.data, b.len);
    if (!ok)
        msg_error("cannot write %s: %s", file, strerror(errno));
    else
        fprintf(stderr, "bartune: wrote %s (%d tuned variant%s + portable)\n", file, n,
                n == 1 ? "" : "s");
    ok = ok && write_compiled_once(s, kernels_dir, devs, n, up, decl);
    free(file);
    free(b.data);
    free(decl);
    free(names);
    free(refuse_path);
    free(refuse_call);
    return ok;
}

struct emit_walk {
    space *s;
    const char *kernels_dir;
    emitted *devs;
    int *n;
};

static bool emit_each(void *ctx, const char *key, const char *path) {
    struct emit_walk *w = ctx;
    return emit_device(w->s, path, key, w->kernels_dir, w->devs, w->n);
}

/* Whether a file is a header of this space that bartune wrote (its first
 * line says so): only such a file is ever removed. */
static bool ours(space *s, const char *path) {
    FILE *f = fopen(path, "r");
    char line[512] = "";
    if (!f) return false;
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char *want = xasprintf("// Generated by bartune from %s;", shown_file(s));
    bool yes = got && !strncmp(line, want, strlen(want));
    free(want);
    return yes;
}

/* A device's header from an earlier emit that the dispatcher no longer
 * includes (the device has no variant verified under the current checks
 * now): removed, so that no stale kernel is left for a program to include
 * by hand. The records stay; an emit after they are measured again writes
 * it again. */
static void remove_orphans(space *s, const char *kernels_dir, const emitted *devs, int n) {
    DIR *d = opendir(kernels_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        bool kept = e->d_name[0] == '.' || !strcmp(e->d_name, "portable");
        for (int i = 0; i < n && !kept; i++)
            kept = !strcmp(devs[i].key, e->d_name);
        if (kept) continue;
        char *path = xasprintf("%s/%s/%s.cuh", kernels_dir, e->d_name, space_name(s));
        if (file_exists(path) && ours(s, path)) {
            if (remove(path) == 0)
                fprintf(stderr,
                        "bartune: removed %s (%s has no variant verified under the "
                        "current checks; the header no longer includes it)\n",
                        path, e->d_name);
            else
                msg_warn("cannot remove %s, which the header no longer includes: %s", path,
                         strerror(errno));
        }
        free(path);
    }
    if (d) closedir(d);
}

bool emit_headers(space *s, const char *results_dir, const char *records, const char *kernels_dir) {
    if (records) { /* a wrong file is refused before anything is written */
        int dropped;
        char *err = NULL;
        json_t *recs = results_load(records, NULL, &dropped, &err);
        if (!recs) {
            msg_error("%s", err);
            free(err);
            return false;
        }
        json_decref(recs);
    }
    if (!mkdir_p(kernels_dir)) {
        msg_error("cannot create %s: %s", kernels_dir, strerror(errno));
        return false;
    }
    emitted portable;
    if (!emit_portable(s, kernels_dir, &portable)) return false;
    emitted *devs = calloc(MAX_EMITTED, sizeof *devs);
    int n = 0;
    bool ok = true;
    /* Every device with results, so the dispatcher knows them all; with
     * --records, that file's device alone. */
    if (records) ok = emit_device(s, records, NULL, kernels_dir, devs, &n);
    struct emit_walk w = {s, kernels_dir, devs, &n};
    if (!records) results_each_device(results_dir, space_name(s), false, emit_each, &w, &ok);
    ok = ok && !space_template_failing(s);
    if (ok) ok = write_dispatcher(s, kernels_dir, devs, n, &portable);
    if (ok && !records) remove_orphans(s, kernels_dir, devs, n); /* --records: one device alone */
    for (int i = 0; i < n; i++) {
        free(devs[i].summary);
        json_decref(devs[i].sizes);
    }
    free(devs);
    free(portable.summary);
    return ok;
}

int cmd_emit(const options *o) {
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    bool ok = emit_headers(s, o->results, o->records, o->kernels);
    space_close(s);
    return ok ? EXIT_OK : EXIT_INPUT;
}
