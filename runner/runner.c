/* bartune-runner: one per GPU, driven by the CLI with one JSON object per
 * line each way on file descriptors 3 (requests) and 4 (answers). Its
 * stdout and stderr (where a kernel's printf lands) go to a log, so nothing
 * a kernel prints can pass for an answer.
 *
 *   {"op":"hello","version":V}  -> {"ok":true,"version":V,"device":{...},"devices":N}
 *                                   (N: GPUs the driver sees, for --gpus all)
 *   {"op":"problem",...}         -> {"ok":true,"seconds":S,"cached":B}
 *                                   ("cpu_only":true: the reference alone, also
 *                                   without a GPU; "slot":K, "where":TEXT: a
 *                                   check size's problem, named so in failures)
 *   {"op":"measure",...}         -> {"probe_ms":T,"launches_left":L}, then
 *                                   ("checks":[{slot, grid, block, smem, ...}]:
 *                                   verified there too, after the timing;
 *                                   "sustain_s":S: launches back to back for S
 *                                   seconds, their time and energy per call;
 *                                   "gate":true: each timed launch queued behind
 *                                   a kernel released once it is queued)
 *                                   {"ok":true,"median_ms":..,"checked":N} or
 *                                   {"ok":true,"median_ms":..,"rejected":true}
 *                                   (first timed launch over "reject_ms") or
 *                                   {"ok":false,"status":"...","message":"..."}
 *   {"op":"floor"}               -> {"ok":true,"copy_gbps":..,"dtod_gbps":..,"fma_per_s":..,
 *                                   "mma_per_s":..} (bf16 tensor-core multiply-adds; 0: none)
 *   {"op":"quit"}
 *
 * After an error that poisons the context (illegal address, trap) it answers
 * and exits: the CLI starts a new runner for the next variant. */
#include <dlfcn.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "accuracy_limit.h"
#include "driver.h"
#include "power.h"
#include "problem.h"
#include "runner_client.h" /* RUNNER_SCRATCH_MAX */
#include "util.h"

enum { PROTOCOL_VERSION = RUNNER_PROTOCOL, VERIFY_LAUNCHES = 3, WARMUP = 2, EXIT_STICKY = 3 };
/* Poison bytes of outputs before a launch; alternated so that an output
 * whose expected value happens to equal one pattern is still caught. */
static const unsigned POISON[2] = {0xFF, 0xA5};

/* The problem launches run on now (a slot of R.probs). */
static rproblem *P;

static struct {
    CUdevice dev;
    CUcontext ctx;
    int sms, devices;
    rproblem probs[SLOTS]; /* slot 0: the tuned sizes; 1..: check sizes */
    bool have[SLOTS];
    CUdeviceptr scratch; /* checksums */
    /* A launch's scratch memory (launch().scratch): ws_bytes between two
     * guards of GUARD_BYTES at ws_base, and the guards' checksums */
    CUdeviceptr ws_base;
    size_t ws_bytes;
    size_t ws_zero; /* its first bytes that are zero at each launch; the rest is poisoned */
    unsigned long long ws_guard_sum[2];
    /* launch().scratch_zero_kept: the prefix is zeroed once, and the kernel
     * must leave it zero (ws_zero_sum: its checksum then) */
    bool ws_kept;
    unsigned long long ws_zero_sum;
    unsigned long long key;      /* the checksums' secret, drawn at start */
    double worst_rms, worst_max; /* the accuracy test's worst launch of this measure */
    CUfunction check_exact, check_bound, checksum, seal, copy, fma_peak, fill_padding, gate;
    /* bench --gate: the gate's word in mapped host memory, its device
     * address, the word it sets when it gives up, and the last value written */
    volatile unsigned long long *gate_go;
    CUdeviceptr gate_go_dev, gate_expired;
    unsigned long long gate_seq;
    CUfunction mma_peak; /* NULL where the GPU is not 9.0 (sm_90a code) */
    FILE *out;
} R;

static void send_json(json_t *j) {
    char *line = json_dumps(j, JSON_COMPACT);
    fprintf(R.out, "%s\n", line);
    fflush(R.out);
    free(line);
    json_decref(j);
}

static void fail(const char *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    const char *where = P && P->where ? P->where : "";
    char *full = xasprintf("%s%s", where, msg);
    send_json(json_pack("{s:b, s:s, s:s}", "ok", 0, "status", status, "message", full));
    free(full);
    free(msg);
}

static bool is_sticky(CUresult r) {
    return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
           r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
           r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_INVALID_PC ||
           r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_ASSERT ||
           r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_ECC_UNCORRECTABLE ||
           r == CUDA_ERROR_UNKNOWN;
}

/* Answers a CUDA failure; a sticky error ends the runner. */
static void fail_cuda(const char *status, const char *what, CUresult r) {
    char buf[256];
    fail(status, "%s: %s", what, driver_error(r, buf, sizeof buf));
    if (is_sticky(r)) exit(EXIT_STICKY);
}

static int attr(CUdevice_attribute a) {
    int v = 0;
    drv.cuDeviceGetAttribute(&v, a, R.dev);
    return v;
}

/* The kernel module's version: the first token of /proc/driver/nvidia/version
 * that looks like 580.95.05. */
static void driver_version(char out[64]) {
    snprintf(out, 64, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
            unsigned a, b;
            if (sscanf(tok, "%u.%u", &a, &b) == 2 && strspn(tok, "0123456789.") == strlen(tok)) {
                snprintf(out, 64, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}

static void cmd_hello(json_t *req) {
    json_int_t v = json_integer_value(json_object_get(req, "version"));
    if (v != PROTOCOL_VERSION) {
        fail("bad_request", "protocol version %lld asked; this runner speaks %d (rebuild bartune)",
             (long long)v, PROTOCOL_VERSION);
        return;
    }
    char name[128] = "", drvver[64];
    int cuda = 0;
    drv.cuDeviceGetName(name, sizeof name, R.dev);
    drv.cuDriverGetVersion(&cuda);
    driver_version(drvver);
    json_t *d = json_pack(
        "{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:s}", "name", name,
        "cc_major", attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), "cc_minor",
        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), "sms", R.sms, "max_threads_per_block",
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), "max_threads_per_sm",
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), "max_blocks_per_sm",
        attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), "smem_per_block_optin",
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), "smem_per_sm",
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), "regs_per_sm",
        attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR), "l2_bytes",
        attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), "cuda_version", cuda, "driver", drvver);
    send_json(json_pack("{s:b, s:i, s:o, s:i}", "ok", 1, "version", PROTOCOL_VERSION, "device", d,
                        "devices", R.devices));
}

/* The keyed hash of `bytes` at p, on the GPU (see gpu_kernels.cu). */
static CUresult checksum(CUdeviceptr p, size_t bytes, unsigned long long *out) {
    unsigned long long n = bytes;
    CUresult r = drv.cuMemsetD8(R.scratch, 0, 8);
    void *args[] = {&p, &n, &R.key, &R.scratch};
    if (r == CUDA_SUCCESS)
        r = drv.cuLaunchKernel(R.checksum, (unsigned)R.sms * 4, 1, 1, 256, 1, 1, 0, NULL, args,
                               NULL);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyDtoH(out, R.scratch, 8);
    return r;
}

/* {"op":"problem",...,"cpu_only":true}: the inputs and the CPU reference
 * alone (bartune check, with or without a GPU), nothing uploaded or kept. */
static void cmd_problem_cpu(json_t *req) {
    double t0 = now_seconds();
    rproblem p;
    char *why = NULL;
    bool cached;
    bool ok = problem_setup(&p, req, &cached, &why);
    problem_free(&p);
    if (!ok) {
        fail("setup_error", "%s", why);
        free(why);
        return;
    }
    send_json(
        json_pack("{s:b, s:f, s:b}", "ok", 1, "seconds", now_seconds() - t0, "cached", cached));
}

/* {"op":"problem","slot":K,...}: slot 0 (the default) is the tuned sizes,
 * the others check sizes that measures verify beside them. */
static void cmd_problem(json_t *req) {
    if (json_is_true(json_object_get(req, "cpu_only"))) {
        cmd_problem_cpu(req);
        return;
    }
    double t0 = now_seconds();
    json_int_t slot = json_integer_value(json_object_get(req, "slot"));
    if (slot < 0 || slot >= SLOTS) {
        fail("bad_request", "problem slot %lld is not 0..%d", (long long)slot, SLOTS - 1);
        return;
    }
    rproblem *p = &R.probs[slot];
    if (R.have[slot]) problem_free(p);
    R.have[slot] = false;
    char *why = NULL;
    bool cached;
    if (!problem_setup(p, req, &cached, &why)) {
        fail("setup_error", "%s", why);
        free(why);
        problem_free(p);
        return;
    }
    CUresult r = problem_upload(p, checksum);
    if (r != CUDA_SUCCESS) {
        problem_free(p);
        fail_cuda("setup_error", "allocating and uploading the problem", r);
        return;
    }
    R.have[slot] = true;
    send_json(
        json_pack("{s:b, s:f, s:b}", "ok", 1, "seconds", now_seconds() - t0, "cached", cached));
}

/* Before a launch: outputs hold the poison, inouts the initial values of
 * input set `set`, ins that set's inputs. */
static CUresult prepare(unsigned poison, int set) {
    CUresult r = CUDA_SUCCESS;
    /* scratch past its zero prefix holds anything at a launch: a pattern
     * that changes launch to launch, so no kernel keeps state there or
     * reads what it did not write */
    if (R.ws_base && R.ws_zero < R.ws_bytes)
        r = drv.cuMemsetD8Async(R.ws_base + GUARD_BYTES + R.ws_zero, (unsigned char)poison,
                                R.ws_bytes - R.ws_zero, NULL);
    for (int i = 0; i < P->n_bufs && r == CUDA_SUCCESS; i++) {
        rbuf *b = &P->bufs[i];
        if (b->role == ROLE_OUT) {
            r = drv.cuMemsetD8Async(b->data, (unsigned char)poison, b->length * b->elem, NULL);
            unsigned long long n = b->length, ld = b->ld, cols = b->cols, pat = b->pattern;
            int width = (int)b->elem;
            void *args[] = {&b->data, &n, &width, &ld, &cols, &pat};
            if (r == CUDA_SUCCESS && b->ld)
                r = drv.cuLaunchKernel(R.fill_padding, (unsigned)R.sms * 4, 1, 1, 256, 1, 1, 0,
                                       NULL, args, NULL);
        } else if (b->role == ROLE_INOUT || set != P->cur)
            r = drv.cuMemcpyDtoDAsync(b->data, b->d_src[set], b->length * b->elem, NULL);
    }
    if (r == CUDA_SUCCESS) P->cur = set;
    return r;
}

/* Per launch and output buffer, eight words of check statistics (see
 * gpu_kernels.cu: ST_*); per buffer two guard checksums; then one slot
 * whose first word seals the launch's others (bartune_seal). */
enum { WORDS = 8, W_FIRST = 1, W_PAD = 6, W_PAD_FIRST = 7 };
typedef struct {
    CUdeviceptr dev;
    unsigned long long *host;
    int per_launch; /* slots: 3 per buffer and the seal */
} stats_t;

/* The seal's key for one launch: the runner's secret and the launch, so a
 * sealed block copied over another launch's does not pass either. */
static unsigned long long seal_key(int launch) {
    return R.key ^ bt_mix64((unsigned long long)launch + 1);
}

/* What bartune_seal wrote for these words, recomputed. */
static unsigned long long seal_of(const unsigned long long *block, size_t words, int launch) {
    unsigned long long h = seal_key(launch);
    for (size_t i = 0; i < words; i++)
        h = bt_mix64(h ^ block[i] ^ ((unsigned long long)i << 1));
    return h;
}

static unsigned long long *slot(stats_t *s, int launch, int k) {
    return s->host + ((size_t)launch * (size_t)s->per_launch + (size_t)k) * WORDS;
}

static CUdeviceptr dslot(stats_t *s, int launch, int k) {
    return s->dev + ((size_t)launch * (size_t)s->per_launch + (size_t)k) * WORDS * 8;
}

/* Queues the checks of one launch's outputs (against input set `set`) and
 * every guard. */
static CUresult queue_checks(stats_t *st, int launch, unsigned poison, int set) {
    CUresult r = CUDA_SUCCESS;
    unsigned grid = (unsigned)R.sms * 8;
    for (int i = 0; i < P->n_bufs && r == CUDA_SUCCESS; i++) {
        rbuf *b = &P->bufs[i];
        unsigned long long n = b->length, ld = b->ld, cols = b->cols;
        unsigned long long before = problem_guard_before(b), after = GUARD_BYTES; /* bytes */
        int width = (int)b->elem, fp = b->fp;
        CUdeviceptr s = dslot(st, launch, 3 * i), lo = b->base, hi = b->data + b->length * b->elem;
        if (b->role != ROLE_IN) {
            if (P->bound_rule) {
                void *args[] = {&b->data,
                                &b->d_expect[set],
                                &b->d_bound[set],
                                &b->d_scale[set],
                                &n,
                                &width,
                                &poison,
                                &ld,
                                &cols,
                                &s};
                r = drv.cuLaunchKernel(R.check_bound, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
            } else {
                void *args[] = {&b->data, &b->d_expect[set], &n, &width, &fp, &poison, &ld, &cols,
                                &s};
                r = drv.cuLaunchKernel(R.check_exact, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
            }
        }
        CUdeviceptr s1 = dslot(st, launch, 3 * i + 1), s2 = dslot(st, launch, 3 * i + 2);
        void *a1[] = {&lo, &before, &R.key, &s1}, *a2[] = {&hi, &after, &R.key, &s2};
        if (r == CUDA_SUCCESS)
            r = drv.cuLaunchKernel(R.checksum, 16, 1, 1, 256, 1, 1, 0, NULL, a1, NULL);
        if (r == CUDA_SUCCESS)
            r = drv.cuLaunchKernel(R.checksum, 16, 1, 1, 256, 1, 1, 0, NULL, a2, NULL);
    }
    CUdeviceptr block = dslot(st, launch, 0);
    unsigned long long words = (unsigned long long)(st->per_launch - 1) * WORDS,
                       key = seal_key(launch);
    void *as[] = {&block, &words, &key};
    if (r == CUDA_SUCCESS) r = drv.cuLaunchKernel(R.seal, 1, 1, 1, 1, 1, 1, 0, NULL, as, NULL);
    return r;
}

/* Whether the device array d of `bytes` still hashes to `sum`; if not,
 * restores it from `host` and names it in what. */
static bool kept(CUdeviceptr d, const void *host, size_t bytes, unsigned long long sum,
                 const char *what, const rbuf *b, char out[256]) {
    unsigned long long s;
    if (!d || (checksum(d, bytes, &s) == CUDA_SUCCESS && s == sum)) return true;
    drv.cuMemcpyHtoD(d, host, bytes);
    snprintf(out, 256, "%s '%s'", what, b->name);
    return false;
}

/* Inputs, the runner's saved copies, references, bounds and scales of
 * both input sets as uploaded? Restores what a kernel damaged so that the
 * next variant starts clean. Returns a description of the damage (static),
 * or NULL. */
static const char *damage(void) {
    static char what[256];
    bool found = false;
    for (int i = 0; i < P->n_bufs; i++) {
        rbuf *b = &P->bufs[i];
        size_t bytes = b->length * b->elem, eb = b->length * problem_expect_elem(P, b),
               db = b->length * sizeof(double);
        int c = P->cur;
        if (b->role == ROLE_IN)
            found |= !kept(b->data, b->host[c], bytes, b->sum_src[c], "input", b, what);
        for (int set = 0; set < SETS; set++) {
            found |= !kept(b->d_src[set], b->host[set], bytes, b->sum_src[set],
                           "runner's saved copy of", b, what);
            found |= !kept(b->d_expect[set], b->expect[set], eb, b->sum_expect[set],
                           "reference copy of", b, what);
            found |= !kept(b->d_bound[set], b->bound[set], db, b->sum_bound[set], "error bounds of",
                           b, what);
            found |= !kept(b->d_scale[set], b->scale[set], db, b->sum_scale[set],
                           "expected errors of", b, what);
        }
        drv.cuMemsetD8(b->base, GUARD_BYTE, problem_guard_before(b));
        drv.cuMemsetD8(b->data + bytes, GUARD_BYTE, GUARD_BYTES);
    }
    return found ? what : NULL;
}

/* Whether the guards around the scratch memory are as written (none: true);
 * restores them either way. */
static bool scratch_guards_kept(void) {
    if (!R.ws_base) return true;
    CUdeviceptr at[2] = {R.ws_base, R.ws_base + GUARD_BYTES + R.ws_bytes};
    bool kept = true;
    for (int i = 0; i < 2; i++) {
        unsigned long long s;
        kept &= checksum(at[i], GUARD_BYTES, &s) == CUDA_SUCCESS && s == R.ws_guard_sum[i];
        drv.cuMemsetD8(at[i], GUARD_BYTE, GUARD_BYTES);
    }
    return kept;
}

/* Under launch().scratch_zero_kept, whether the kernel left the zero
 * prefix zero (otherwise: true); *at gets the first nonzero byte's offset
 * among the first MiB (-1: past it). Zeroes the prefix again either way. */
static bool scratch_zero_kept(long long *at) {
    if (!R.ws_base || !R.ws_kept || !R.ws_zero) return true;
    const CUdeviceptr zero = R.ws_base + GUARD_BYTES;
    unsigned long long s;
    if (checksum(zero, R.ws_zero, &s) == CUDA_SUCCESS && s == R.ws_zero_sum) return true;
    *at = -1;
    size_t n = R.ws_zero < (1u << 20) ? R.ws_zero : (1u << 20);
    unsigned char *host = malloc(n);
    if (host && drv.cuMemcpyDtoH(host, zero, n) == CUDA_SUCCESS)
        for (size_t i = 0; i < n && *at < 0; i++)
            if (host[i]) *at = (long long)i;
    free(host);
    drv.cuMemsetD8(zero, 0, R.ws_zero);
    return false;
}

/* Repairs quietly what a kernel damaged (its failure is answered). */
static void repair(void) {
    long long at;
    damage();
    scratch_guards_kept();
    scratch_zero_kept(&at);
}

/* scratch_zero_kept(), answered as wrong_result after `which`: a kernel
 * that leaves its counters counted fails there, before the next launch
 * reads them. True when kept (or not asked). */
static bool zero_prefix_kept(const char *which) {
    long long at = -1;
    if (scratch_zero_kept(&at)) return true;
    char where[64] = "";
    if (at >= 0) snprintf(where, sizeof where, " (byte %lld is not)", at);
    fail("wrong_result",
         "after %s, the kernel left the zero prefix of its scratch memory (its first %zu bytes, "
         "launch().scratch_zero) nonzero%s, though launch().scratch_zero_kept says it leaves it "
         "zero: reset what the kernel counts with before it ends (the last block to count), or "
         "drop scratch_zero_kept so that every call clears it",
         which, R.ws_zero, where);
    return false;
}

/* damage(), answered as input_modified (a write past the scratch memory:
 * out_of_bounds; a zero prefix left nonzero under scratch_zero_kept:
 * wrong_result); true when nothing was damaged. */
static bool intact(void) {
    if (!zero_prefix_kept("its launches")) {
        damage();
        scratch_guards_kept();
        return false;
    }
    if (!scratch_guards_kept()) {
        damage();
        fail("out_of_bounds",
             "the kernel wrote outside its scratch memory (into the %d bytes before or after "
             "its %zu; restored)",
             (int)GUARD_BYTES, R.ws_bytes);
        return false;
    }
    const char *what = damage();
    if (what) fail("input_modified", "the kernel wrote into the %s (restored)", what);
    return what == NULL;
}

/* The accuracy test of one output's check statistics s (input set `set`):
 * NULL, or why the kernel is less accurate than an honest order. Its RMS
 * limit grows for few elements (accuracy_limit.h: gpu_faults' honest
 * gemm_bf16 kernel failed the plain limit on the H200 at M = N = K = 1). */
static char *inaccurate(const rbuf *b, const unsigned long long *s, int set) {
    if (!(P->acc_rms > 0) || !b->scaled[set]) return NULL;
    double z2, zmax;
    memcpy(&z2, &s[4], sizeof z2);
    memcpy(&zmax, &s[5], sizeof zmax);
    double n = (double)b->scaled[set], rms = sqrt(z2 / n);
    double rms_limit = accuracy_rms_limit(P->acc_rms, P->acc_max, n);
    /* the record's error_rms: over outputs held to the problem's RMS limit
     * (of few elements it is no statistic, see accuracy_limit.h) */
    if (rms_limit == P->acc_rms) R.worst_rms = fmax(R.worst_rms, rms);
    R.worst_max = fmax(R.worst_max, zmax);
    if (rms <= rms_limit && zmax <= P->acc_max) return NULL;
    return xasprintf(
        "'%s' is less accurate than an honest evaluation at the problem's "
        "precision: its errors are %.3g times the expected error in RMS and %.3g "
        "at most over %.0f elements (the problem allows %.3g and %g; see its accuracy)",
        b->name, rms, zmax, n, rms_limit, P->acc_max);
}

/* Reads the checks of launch `launch` (input set `set`); on a failure
 * answers it and returns false. `passed` counts earlier launches that
 * verified. */
static bool read_checks(stats_t *st, int launch, const char *which, int passed, int set) {
    size_t words = (size_t)(st->per_launch - 1) * WORDS;
    if (slot(st, launch, st->per_launch - 1)[0] != seal_of(slot(st, launch, 0), words, launch)) {
        fail("tampered",
             "%s: its check statistics were changed after they were written (a kernel writing "
             "into the runner's memory); nothing of this variant is trusted",
             which);
        return false;
    }
    for (int i = 0; i < P->n_bufs; i++) {
        rbuf *b = &P->bufs[i];
        for (int side = 1; side <= 2; side++)
            if (slot(st, launch, 3 * i + side)[0] !=
                (side == 1 ? b->guard_before_sum : b->guard_after_sum)) {
                fail("out_of_bounds", "%s wrote into the guard %s buffer '%s'", which,
                     side == 1 ? "before" : "after", b->name);
                return false;
            }
        unsigned long long *s = slot(st, launch, 3 * i);
        if (b->role == ROLE_IN) continue;
        if (s[W_PAD] && intact()) {
            fail("out_of_bounds",
                 "%s wrote into the padding of '%s': %llu elements outside its %zu columns "
                 "changed, the first at row %llu, column %llu (leading dimension %zu)",
                 which, b->name, s[W_PAD], b->cols, s[W_PAD_FIRST] / b->ld, s[W_PAD_FIRST] % b->ld,
                 b->ld);
            return false;
        }
        if (s[W_PAD]) return false; /* damage, answered */
        char *poor = s[0] ? NULL : inaccurate(b, s, set);
        if (poor) {
            fail("inaccurate", "%s: %s", which, poor);
            free(poor);
            return false;
        }
        if (s[0] == 0) continue;
        /* A wrong output after the kernel damaged its own inputs is that
         * damage, not a race. */
        if (!intact()) return false;
        const char *status = s[2] ? "unwritten" : s[3] ? "nan" : passed ? "race" : "wrong_result";
        char at[64] = "";
        if (b->ld) snprintf(at, sizeof at, " (row %llu, column %llu)", s[1] / b->ld, s[1] % b->ld);
        fail(status,
             "%s: %llu of %zu elements of '%s' wrong (%llu never written, %llu NaN/Inf); first at "
             "index %llu%s%s",
             which, s[0], b->length, b->name, s[2], s[3], s[1], at,
             passed ? " (an earlier launch verified: nondeterministic)" : "");
        return false;
    }
    return true;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* A host baseline's entry (templates/bartune_baseline.h). */
typedef int (*host_fn)(void *const *args, void *stream, char *error, size_t error_len);

enum { MAX_MAPS = 8, CHECK_VERIFY = 2 /* verifying launches at a check size */ };

typedef struct {
    CUfunction fn;
    host_fn host; /* instead of fn: library code on the same arguments */
    unsigned grid[3], block[3], smem;
    /* With tensor maps, per input set: the problem's arguments, then the
     * maps launch() asked for; NULL: the problem's alone. */
    void **args[SETS];
    CUtensorMap maps[MAX_MAPS];
    bool has_scratch; /* the kernel takes scratch memory as its last argument */
    bool gate;        /* bench --gate: each timed launch queued behind bartune_gate */
    CUdeviceptr ws;   /* that memory (R's), its first ws_zero bytes zeroed before each launch
                       * (0 under scratch_zero_kept) */
    size_t ws_zero;
} launch_cfg;

/* One launch on input set `set` (its scalars; the buffers hold its data);
 * scratch memory's zero prefix (all of it unless launch().scratch_zero says
 * less) is zeroed first, in the same stream (inside the timing: the header
 * clears it on every call too), unless the kernel keeps it zero
 * (launch().scratch_zero_kept: neither clears it); prepare() poisoned the
 * rest. */
static CUresult launch(const launch_cfg *l, int set) {
    if (l->host) {
        char why[256] = "";
        if (l->host(P->arg_ptrs[set], NULL, why, sizeof why) == 0) return CUDA_SUCCESS;
        fprintf(stderr, "bartune-runner: host baseline: %s\n", why); /* the runner log */
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    if (l->ws_zero) {
        CUresult r = drv.cuMemsetD8Async(l->ws, 0, l->ws_zero, NULL);
        if (r != CUDA_SUCCESS) return r;
    }
    return drv.cuLaunchKernel(l->fn, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                              l->block[2], l->smem, NULL,
                              l->args[set] ? l->args[set] : P->arg_ptrs[set], NULL);
}

static void free_cfg(launch_cfg *l) {
    for (int set = 0; set < SETS; set++)
        free(l->args[set]);
    memset(l, 0, sizeof *l);
}

/* Early rejection: is the first timed launch (its events, ev[0] and ev[1])
 * slower than reject_ms? Waits for it; *r gets any error. */
static bool first_too_slow(CUevent *ev, double reject_ms, CUresult *r) {
    float ms = 0;
    if ((*r = drv.cuEventSynchronize(ev[1])) != CUDA_SUCCESS ||
        (*r = drv.cuEventElapsedTime(&ms, ev[0], ev[1])) != CUDA_SUCCESS)
        return false;
    return ms > reject_ms;
}

/* Check statistics for `launches` launches, their firsts set to ~0. */
static CUresult stats_alloc(stats_t *st, int launches, size_t *bytes) {
    st->per_launch = 3 * P->n_bufs + 1;
    *bytes = (size_t)launches * (size_t)st->per_launch * WORDS * 8;
    st->host = calloc(1, *bytes);
    CUresult r = drv.cuMemAlloc(&st->dev, *bytes);
    if (r != CUDA_SUCCESS) return r;
    for (size_t i = 0; i < *bytes / 8; i++)
        st->host[i] = i % WORDS == W_FIRST || i % WORDS == W_PAD_FIRST ? ~0ull : 0;
    return drv.cuMemcpyHtoD(st->dev, st->host, *bytes);
}

/* One checked launch on input set `set` (1 or 2: after the timed ones, at
 * the same addresses, stats slot li): a kernel that replays an answer it
 * kept, builds a scalar in, computes in a narrower type or keys a replay
 * on some input values fails here. Inputs are hashed right after it,
 * before set 0 goes back. */
static bool fresh_launch(const launch_cfg *l, stats_t *st, int li, size_t bytes, int set) {
    static const char *const WHICH[SETS] = {
        "",
        "the launch on new input values and scalars (does the kernel replay an answer, "
        "build a scalar in or compute in a narrower type?)",
        "the launch on inputs changed at a few secret positions (does the kernel key a replay on "
        "some of its input values?)"};
    /* where an input is NaN because a scalar is 0 (unset_when_zero), say so */
    const rbuf *unset = problem_unset_in(P, set);
    char *which = unset ? xasprintf("%s; %s holds NaN there, since %s is 0 (a kernel must not read "
                                    "it then)",
                                    WHICH[set], unset->name, unset->unset_when_zero)
                        : xstrdup(WHICH[set]);
    CUresult r = prepare(POISON[0], set);
    if (r == CUDA_SUCCESS) r = launch(l, set);
    if (r == CUDA_SUCCESS) r = queue_checks(st, li, POISON[0], set);
    if (r == CUDA_SUCCESS) r = drv.cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyDtoH(st->host, st->dev, bytes);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", which, r);
        free(which);
        return false;
    }
    bool ok = read_checks(st, li, which, 0, set) && intact();
    free(which);
    if ((r = prepare(POISON[0], 0)) != CUDA_SUCCESS ||
        (r = drv.cuCtxSynchronize()) != CUDA_SUCCESS) {
        if (ok) fail_cuda("runtime_error", "restoring the inputs", r);
        return false;
    }
    return ok;
}

/* The verifying (and warm-up) launches on set 0, one at a time, launches
 * [0, n); the first's time is sent as the probe when `probe`. */
static bool verify_launches(const launch_cfg *l, stats_t *st, size_t bytes, int n, bool probe,
                            int launches) {
    for (int v = 0; v < n; v++) {
        double t0 = now_seconds();
        unsigned poison = POISON[v & 1];
        CUresult r = prepare(poison, 0);
        if (r != CUDA_SUCCESS) {
            fail_cuda("runtime_error", "preparing buffers", r);
            return false;
        }
        if ((r = launch(l, 0)) != CUDA_SUCCESS) {
            fail_cuda("launch_error", "launching", r);
            return false;
        }
        if ((r = queue_checks(st, v, poison, 0)) != CUDA_SUCCESS ||
            (r = drv.cuCtxSynchronize()) != CUDA_SUCCESS ||
            (r = drv.cuMemcpyDtoH(st->host, st->dev, bytes)) != CUDA_SUCCESS) {
            fail_cuda("runtime_error", "running the kernel", r);
            return false;
        }
        if (v == 0 && probe)
            send_json(json_pack("{s:f, s:i}", "probe_ms", (now_seconds() - t0) * 1e3,
                                "launches_left", launches - 1));
        char which[48];
        snprintf(which, sizeof which, "%s launch %d", v < VERIFY_LAUNCHES ? "verifying" : "warm-up",
                 v + 1);
        if (!zero_prefix_kept(which)) return false; /* the caller repairs */
        if (!read_checks(st, v, which, v, 0)) return false;
    }
    return intact();
}

/* bench --gate: the gate's memory, made on first use. */
static CUresult gate_open(void) {
    if (R.gate_go) return CUDA_SUCCESS;
    void *host = NULL;
    CUresult r = drv.cuMemHostAlloc(&host, sizeof(unsigned long long), CU_MEMHOSTALLOC_DEVICEMAP);
    if (r == CUDA_SUCCESS) r = drv.cuMemHostGetDevicePointer(&R.gate_go_dev, host, 0);
    if (r == CUDA_SUCCESS) r = drv.cuMemAlloc(&R.gate_expired, sizeof(unsigned));
    if (r == CUDA_SUCCESS) r = drv.cuMemsetD8(R.gate_expired, 0, sizeof(unsigned));
    if (r == CUDA_SUCCESS) {
        R.gate_go = host;
        *R.gate_go = R.gate_seq = 0;
    }
    return r;
}

/* Queues a gate that holds the stream until gate_release(), or 2 s. */
static CUresult gate_hold(void) {
    unsigned long long want = R.gate_seq + 1, limit_ns = 2000000000ull;
    void *args[] = {&R.gate_go_dev, &want, &limit_ns, &R.gate_expired};
    return drv.cuLaunchKernel(R.gate, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
}

static void gate_release(void) {
    __atomic_store_n(R.gate_go, ++R.gate_seq, __ATOMIC_SEQ_CST);
}

/* Whether a gate gave up (the call behind it waited on the GPU); clears it. */
static bool gate_expired(CUresult *r) {
    unsigned v = 0;
    if ((*r = drv.cuMemcpyDtoH(&v, R.gate_expired, sizeof v)) == CUDA_SUCCESS && v)
        *r = drv.cuMemsetD8(R.gate_expired, 0, sizeof v);
    return v != 0;
}

/* The timed launches in one stream, their checks queued between them
 * (outside the timed events), from stats slot `first`; ms[] gets their
 * times, *reps how many ran (1 when the first was over reject_ms). */
static bool timed_launches(const launch_cfg *l, stats_t *st, size_t bytes, int first, int *reps,
                           double reject_ms, float *ms) {
    int asked = *reps;
    CUevent *ev = calloc((size_t)asked * 2, sizeof *ev);
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < asked * 2 && r == CUDA_SUCCESS; i++)
        r = drv.cuEventCreate(&ev[i], CU_EVENT_DEFAULT);
    if (l->gate && r == CUDA_SUCCESS) r = gate_open();
    for (int i = 0; i < *reps && r == CUDA_SUCCESS; i++) {
        unsigned poison = POISON[i & 1];
        r = prepare(poison, 0);
        if (l->gate && r == CUDA_SUCCESS) r = gate_hold();
        if (r == CUDA_SUCCESS) r = drv.cuEventRecord(ev[2 * i], NULL);
        if (r == CUDA_SUCCESS) r = launch(l, 0);
        if (r == CUDA_SUCCESS) r = drv.cuEventRecord(ev[2 * i + 1], NULL);
        if (l->gate) gate_release(); /* even after an error: nothing waits on a gate for 2 s */
        if (r == CUDA_SUCCESS) r = queue_checks(st, first + i, poison, 0);
        if (i == 0 && r == CUDA_SUCCESS && reject_ms > 0 && first_too_slow(ev, reject_ms, &r))
            *reps = 1; /* the events past ev[1] stay made, destroyed below */
    }
    if (r == CUDA_SUCCESS) r = drv.cuCtxSynchronize();
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyDtoH(st->host, st->dev, bytes);
    for (int i = 0; i < *reps && r == CUDA_SUCCESS; i++)
        r = drv.cuEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
    const bool expired = l->gate && r == CUDA_SUCCESS && gate_expired(&r);
    for (int i = 0; i < asked * 2; i++)
        if (ev[i]) drv.cuEventDestroy(ev[i]);
    free(ev);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", "timing the kernel", r);
        return false;
    }
    if (expired) {
        fail("runtime_error",
             "bench --gate: a timed call waited on the GPU inside itself (its gate "
             "gave up after 2 s): time it without --gate");
        return false;
    }
    for (int i = 0; i < *reps; i++) {
        char which[48];
        snprintf(which, sizeof which, "timed launch %d of %d", i + 1, *reps);
        if (!read_checks(st, first + i, which, 1, 0)) return false;
    }
    return intact(); /* damage seen where it happens, before set 1 overwrites it */
}

/* Every launch starts from poisoned outputs and is checked: the verifying
 * launches one at a time, the timed ones in one stream with their checks
 * queued between them, then one on each of the other input sets. With
 * reject_ms > 0, a variant whose first timed launch is slower than that is
 * answered on that one launch (still checked), so a hopeless variant costs
 * one, not reps. `extra`: launches still to come after these (the check
 * sizes'), for the probe line. Returns the answer to send, or NULL when a
 * failure was answered. */
static json_t *run_measurement(const launch_cfg *l, int reps, int occupancy, bool once,
                               double reject_ms, int extra) {
    int launches = VERIFY_LAUNCHES + WARMUP + reps + SETS - 1, asked = reps;
    R.worst_rms = R.worst_max = 0;
    stats_t st = {0};
    size_t bytes = 0;
    float *ms = calloc((size_t)reps, sizeof *ms);
    json_t *ans = NULL;
    CUresult r = stats_alloc(&st, launches, &bytes);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", "allocating check statistics", r);
    } else if (once) { /* under a sanitizer: one checked launch is what it watches */
        if (verify_launches(l, &st, bytes, 1, true, 1 + extra))
            ans = json_pack("{s:b, s:i}", "ok", 1, "occupancy", occupancy);
    } else if (verify_launches(l, &st, bytes, VERIFY_LAUNCHES + WARMUP, true, launches + extra) &&
               timed_launches(l, &st, bytes, VERIFY_LAUNCHES + WARMUP, &reps, reject_ms, ms)) {
        bool ok = true;
        for (int set = 1; ok && set < SETS; set++)
            ok = fresh_launch(l, &st, launches - SETS + set, bytes, set);
        if (ok) {
            qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
            double median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
            ans = json_pack("{s:b, s:f, s:f, s:f, s:i, s:i}", "ok", 1, "median_ms", median,
                            "min_ms", (double)ms[0], "max_ms", (double)ms[reps - 1], "occupancy",
                            occupancy, "timed_launches", reps);
            if (reps < asked) json_object_set_new(ans, "rejected", json_true());
            if (P->acc_rms > 0) { /* how close to the accuracy limits it came */
                json_object_set_new(ans, "error_rms", json_real(R.worst_rms));
                json_object_set_new(ans, "error_max", json_real(R.worst_max));
            }
        }
    }
    if (!ans && r == CUDA_SUCCESS) repair();
    if (st.dev) drv.cuMemFree(st.dev);
    free(st.host);
    free(ms);
    return ans;
}

/* A check size: the verifying launches (both poisons) and one on each other
 * input set, untimed. False when a failure was answered. */
static bool check_measurement(const launch_cfg *l) {
    stats_t st = {0};
    size_t bytes = 0;
    int launches = CHECK_VERIFY + SETS - 1;
    CUresult r = stats_alloc(&st, launches, &bytes);
    bool ok = r == CUDA_SUCCESS;
    if (!ok) fail_cuda("runtime_error", "allocating check statistics", r);
    ok = ok && verify_launches(l, &st, bytes, CHECK_VERIFY, false, 0);
    for (int set = 1; ok && set < SETS; set++)
        ok = fresh_launch(l, &st, CHECK_VERIFY + set - 1, bytes, set);
    if (!ok && r == CUDA_SUCCESS) repair();
    if (st.dev) drv.cuMemFree(st.dev);
    free(st.host);
    return ok;
}

static bool read_dims(json_t *req, const char *key, unsigned out[3]) {
    json_t *a = json_object_get(req, key);
    if (json_array_size(a) != 3) return false;
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_array_get(a, i);
        json_int_t x = json_integer_value(v);
        if (!json_is_integer(v) || x < 1 || x > 0x7fffffff) return false;
        out[i] = (unsigned)x;
    }
    return true;
}

/* Within the device's grid and block limits? Else answers launch_refused. */
static bool dims_fit(const launch_cfg *l) {
    static const CUdevice_attribute grid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                               CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                               CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    static const CUdevice_attribute block[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                                CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                                CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
    unsigned long long threads = (unsigned long long)l->block[0] * l->block[1] * l->block[2];
    for (int i = 0; i < 3; i++) {
        if (l->grid[i] > (unsigned)attr(grid[i]) || l->block[i] > (unsigned)attr(block[i])) {
            fail("launch_refused",
                 "grid (%u, %u, %u) x block (%u, %u, %u) exceeds this device's limits", l->grid[0],
                 l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
            return false;
        }
    }
    if (threads > (unsigned long long)attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)) {
        fail("launch_refused", "%llu threads per block; this device allows %d", threads,
             attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
        return false;
    }
    return true;
}

static bool map_type(const rbuf *b, CUtensorMapDataType *t) {
    static const struct {
        const char *name;
        CUtensorMapDataType type;
    } T[] = {{"float", CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
             {"double", CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
             {"__nv_bfloat16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
             {"int", CU_TENSOR_MAP_DATA_TYPE_INT32},
             {"unsigned", CU_TENSOR_MAP_DATA_TYPE_UINT32},
             {"long long", CU_TENSOR_MAP_DATA_TYPE_INT64},
             {"unsigned long long", CU_TENSOR_MAP_DATA_TYPE_UINT64},
             {"size_t", CU_TENSOR_MAP_DATA_TYPE_UINT64}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++)
        if (!strcmp(T[i].name, b->type)) {
            *t = T[i].type;
            return true;
        }
    return false;
}

/* Reads n (1..5) integers of `key` into out, each in [lo, hi]. */
static bool read_list(json_t *m, const char *key, size_t n, cuuint64_t lo, cuuint64_t hi,
                      cuuint64_t *out) {
    json_t *a = json_object_get(m, key);
    if (json_array_size(a) != n) return false;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
            (cuuint64_t)json_integer_value(v) > hi)
            return false;
        out[i] = (cuuint64_t)json_integer_value(v);
    }
    return true;
}

/* Whether the copy engine takes buffer b's address and map m's strides:
 * multiples of 16 bytes. */
static bool engine_aligned(json_t *m, const rbuf *b) {
    json_t *strides = json_object_get(m, "strides");
    if (b->data % 16) return false;
    for (size_t i = 0; i < json_array_size(strides); i++) {
        json_t *st = json_array_get(strides, i);
        if (!json_is_integer(st) || json_integer_value(st) % 16) return false;
    }
    return true;
}

/* One tensor map of a measure request (see gen/lib/problem.lua): buffer,
 * dims (innermost first), strides (bytes, of dims 2..), box, swizzle, and
 * optional (zeros where the copy engine cannot take the buffer's address or
 * a stride: the kernel tests the same and takes another path). False after
 * answering launch_refused. */
static bool encode_map(json_t *m, int index, CUtensorMap *out) {
    const char *name = json_string_value(json_object_get(m, "buffer"));
    rbuf *b = NULL;
    for (int i = 0; name && i < P->n_bufs; i++)
        if (!strcmp(P->bufs[i].name, name)) b = &P->bufs[i];
    if (b && json_is_true(json_object_get(m, "optional")) && !engine_aligned(m, b)) {
        memset(out, 0, sizeof *out);
        return true;
    }
    size_t rank = json_array_size(json_object_get(m, "dims"));
    cuuint64_t dims[5], strides[4] = {0}, box64[5];
    cuuint32_t box[5], estr[5] = {1, 1, 1, 1, 1};
    json_int_t sw = json_integer_value(json_object_get(m, "swizzle"));
    CUtensorMapDataType type;
    if (!b || !map_type(b, &type) || rank < 1 || rank > 5 ||
        !read_list(m, "dims", rank, 1, 1ull << 32, dims) ||
        !read_list(m, "strides", rank - 1, 16, (1ull << 40) - 1, strides) ||
        !read_list(m, "box", rank, 1, 256, box64) ||
        (sw != 0 && sw != 32 && sw != 64 && sw != 128)) {
        fail("launch_refused",
             "tensor map %d: needs a buffer of the problem with a copy-engine type, 1 to 5 dims "
             "in 1..2^32, strides in 16..2^40 bytes, a box of 1..256, swizzle 0/32/64/128",
             index + 1);
        return false;
    }
    for (size_t i = 0; i < rank; i++)
        box[i] = (cuuint32_t)box64[i];
    /* The map must not reach past the buffer: the last element it can
     * address lies inside. Checked by division, so no product can wrap
     * (dims {4, 2^28 + 1} by a 2^36 stride would wrap to 0). */
    const unsigned long long bytes = b->length * b->elem;
    unsigned long long last = (dims[0] - 1) * b->elem; /* < 2^35 */
    bool inside = last < bytes;
    for (size_t i = 1; inside && i < rank; i++) {
        inside = dims[i] - 1 <= (bytes - 1 - last) / strides[i - 1];
        if (inside) last += (dims[i] - 1) * strides[i - 1];
    }
    if (!inside) {
        fail("launch_refused",
             "tensor map %d reaches past the %llu bytes of buffer '%s' (dims times strides)",
             index + 1, bytes, b->name);
        return false;
    }
    CUtensorMapSwizzle swz = sw == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                             : sw == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                             : sw == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                        : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUresult r = drv.cuTensorMapEncodeTiled(out, type, (cuuint32_t)rank, (void *)b->data, dims,
                                            strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        char buf[256];
        fail("launch_refused", "tensor map %d of '%s': cuTensorMapEncodeTiled: %s", index + 1,
             b->name, driver_error(r, buf, sizeof buf));
        return false;
    }
    return true;
}

/* The scratch memory of `bytes` between its guards, R's, made anew for
 * each launch configuration (a guard right after the bytes asked); the
 * first `zero` bytes are cleared at each launch, or here alone when the
 * kernel keeps them zero (`kept`: intact() checks that it does). */
static bool scratch_alloc(size_t bytes, size_t zero, bool kept, launch_cfg *l) {
    if (R.ws_base) drv.cuMemFree(R.ws_base);
    R.ws_base = 0;
    R.ws_bytes = bytes;
    R.ws_zero = zero;
    R.ws_kept = kept;
    CUresult r = drv.cuMemAlloc(&R.ws_base, bytes + 2 * (size_t)GUARD_BYTES);
    if (r != CUDA_SUCCESS) R.ws_base = 0;
    if (r == CUDA_SUCCESS)
        r = drv.cuMemsetD8(R.ws_base, GUARD_BYTE, bytes + 2 * (size_t)GUARD_BYTES);
    if (r == CUDA_SUCCESS) r = checksum(R.ws_base, GUARD_BYTES, &R.ws_guard_sum[0]);
    if (r == CUDA_SUCCESS)
        r = checksum(R.ws_base + GUARD_BYTES + bytes, GUARD_BYTES, &R.ws_guard_sum[1]);
    if (r == CUDA_SUCCESS && kept && zero) r = drv.cuMemsetD8(R.ws_base + GUARD_BYTES, 0, zero);
    if (r == CUDA_SUCCESS && kept && zero) r = checksum(R.ws_base + GUARD_BYTES, zero, &R.ws_zero_sum);
    if (r != CUDA_SUCCESS) {
        char buf[256];
        fail("launch_refused", "allocating %zu bytes of scratch memory: %s", bytes,
             driver_error(r, buf, sizeof buf));
        return false;
    }
    l->ws = R.ws_base + GUARD_BYTES;
    l->ws_zero = kept ? 0 : zero;
    return true;
}

/* The argument lists of a launch with tensor maps or scratch memory, per
 * input set: the problem's, then the maps (passed by value as
 * __grid_constant__ parameters), then the scratch memory's address. */
static bool read_extras(json_t *req, launch_cfg *l) {
    json_t *maps = json_object_get(req, "tensor_maps"), *scratch = json_object_get(req, "scratch");
    json_t *zero = json_object_get(req, "scratch_zero");
    json_t *kept = json_object_get(req, "scratch_zero_kept");
    size_t n = json_array_size(maps);
    json_int_t ws = json_integer_value(scratch), ws_zero = zero ? json_integer_value(zero) : ws;
    if (!scratch && R.ws_base) { /* the last launch's, no longer watched */
        drv.cuMemFree(R.ws_base);
        R.ws_base = 0;
    }
    if (!n && !scratch) return true;
    if (n > MAX_MAPS) {
        fail("launch_refused", "%zu tensor maps asked; at most %d", n, MAX_MAPS);
        return false;
    }
    if (scratch && (!json_is_integer(scratch) || ws < 0 || ws > RUNNER_SCRATCH_MAX)) {
        fail("bad_request", "scratch must be 0 to 2^36 bytes");
        return false;
    }
    if (zero && (!scratch || !json_is_integer(zero) || ws_zero < 0 || ws_zero > ws)) {
        fail("bad_request", "scratch_zero must be 0 to scratch bytes");
        return false;
    }
    if (kept && (!scratch || !json_is_boolean(kept))) {
        fail("bad_request", "scratch_zero_kept must be true or false, and comes with scratch");
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!encode_map(json_array_get(maps, i), (int)i, &l->maps[i])) return false;
    l->has_scratch = scratch != NULL;
    if (l->has_scratch && !scratch_alloc((size_t)ws, (size_t)ws_zero, json_is_true(kept), l))
        return false;
    for (int set = 0; set < SETS; set++) {
        l->args[set] = calloc((size_t)P->n_args + n + 1, sizeof *l->args[set]);
        for (int i = 0; i < P->n_args; i++)
            l->args[set][i] = P->arg_ptrs[set][i];
        for (size_t i = 0; i < n; i++)
            l->args[set][(size_t)P->n_args + i] = &l->maps[i];
        if (l->has_scratch) l->args[set][(size_t)P->n_args + n] = &l->ws;
    }
    return true;
}

/* A measure's "sustain_s": S (bench): after it passed, launches back to back
 * for about S seconds at the tuned sizes, nothing restored between them (a
 * program calling the kernel in a loop, at the card's power cap), timed by
 * events around them all, NVML's energy counter read before and after. The
 * answer gets sustained_ms, and joules (per call) and watts where NVML reads
 * the counter, else no_energy (why). False when a failure was answered. */
static bool sustain(const launch_cfg *l, double seconds, json_t *ans) {
    static int power = -1;
    static const char *no_power;
    if (power < 0) {
        char bus[64];
        no_power = "cuDeviceGetPCIBusId failed";
        power = drv.cuDeviceGetPCIBusId(bus, sizeof bus, R.dev) == CUDA_SUCCESS &&
                power_open(bus, &no_power);
    }
    const double med = json_number_value(json_object_get(ans, "median_ms"));
    double want = seconds * 1e3 / (med > 1e-4 ? med : 1e-4);
    const long n = want < 10 ? 10 : want > 1e7 ? 10000000 : (long)want;
    /* a probe line: the CLI's deadline covers the n launches */
    send_json(json_pack("{s:f, s:i}", "probe_ms", med, "launches_left", (json_int_t)n));
    CUevent ev[2] = {NULL, NULL};
    unsigned long long e0 = 0, e1 = 0;
    CUresult r = drv.cuEventCreate(&ev[0], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = drv.cuEventCreate(&ev[1], CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = drv.cuCtxSynchronize();
    bool energy = power && power_energy_mj(&e0);
    if (r == CUDA_SUCCESS) r = drv.cuEventRecord(ev[0], NULL);
    for (long i = 0; i < n && r == CUDA_SUCCESS; i++)
        r = launch(l, 0);
    if (r == CUDA_SUCCESS) r = drv.cuEventRecord(ev[1], NULL);
    if (r == CUDA_SUCCESS) r = drv.cuCtxSynchronize();
    energy = energy && power_energy_mj(&e1) && e1 > e0;
    float ms = 0;
    if (r == CUDA_SUCCESS) r = drv.cuEventElapsedTime(&ms, ev[0], ev[1]);
    for (int i = 0; i < 2; i++)
        if (ev[i]) drv.cuEventDestroy(ev[i]);
    if (r != CUDA_SUCCESS) {
        fail_cuda("launch_error", "the sustained launches", r);
        return false;
    }
    if (!intact()) return false;
    const double calls = (double)n;
    json_object_set_new(ans, "sustained_ms", json_real(ms / calls));
    json_object_set_new(ans, "sustained_launches", json_integer((json_int_t)n));
    if (energy) {
        json_object_set_new(ans, "joules", json_real((double)(e1 - e0) / 1e3 / calls));
        json_object_set_new(ans, "watts", json_real((double)(e1 - e0) / ms));
        if (power_limit_w() > 0)
            json_object_set_new(ans, "power_limit_w", json_real(power_limit_w()));
    } else {
        json_object_set_new(ans, "no_energy",
                            json_string(power ? "the counter did not advance" : no_power));
    }
    return true;
}

/* {"op":"measure","host":LIB,"reps":R}: a host baseline's library, loaded
 * once and kept (it may hold handles), timed and checked like a kernel. */
static void measure_host(const char *lib, int reps, double sustain_s, bool gate) {
    void *so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    host_fn fn = so ? (host_fn)(uintptr_t)dlsym(so, "bartune_baseline") : NULL;
    if (!fn) {
        fail("load_error", "host baseline %s: %s", lib,
             so ? "no bartune_baseline in it" : dlerror());
        return;
    }
    launch_cfg l = {.host = fn, .gate = gate};
    json_t *ans = run_measurement(&l, reps, 0, false, 0, 0);
    if (ans && sustain_s > 0 && !sustain(&l, sustain_s, ans)) {
        json_decref(ans);
        ans = NULL;
    }
    if (ans) send_json(ans);
}

/* The kernel's compile-time cluster (__cluster_dims__) in *w x *h x *d; all
 * 0 where it has none or the driver does not say. */
static void kernel_cluster(CUfunction fn, int *w, int *h, int *d) {
    if (drv.cuFuncGetAttribute(w, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fn) != CUDA_SUCCESS ||
        drv.cuFuncGetAttribute(h, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, fn) != CUDA_SUCCESS ||
        drv.cuFuncGetAttribute(d, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, fn) != CUDA_SUCCESS)
        *w = *h = *d = 0;
}

/* A request's "cluster" (launch().cluster): the CTAs of the kernel's
 * compile-time cluster, which must be what the kernel says; over 8 (a
 * non-portable size) the kernel is allowed it, as the header does. */
static bool allow_cluster(json_t *req, CUfunction fn) {
    json_t *c = json_object_get(req, "cluster");
    if (!c) return true;
    json_int_t n = json_integer_value(c);
    int w = 0, h = 0, d = 0;
    if (!json_is_integer(c) || n < 1 || n > 16) {
        fail("bad_request", "cluster must be 1 to 16 CTAs");
        return false;
    }
    kernel_cluster(fn, &w, &h, &d);
    if (w > 0 && (json_int_t)w * (h > 0 ? h : 1) * (d > 0 ? d : 1) != n) {
        fail("launch_refused",
             "launch().cluster says %lld CTAs; the kernel's cluster is %d x %d x %d (fix the "
             "space's launch function)",
             (long long)n, w, h, d);
        return false;
    }
    CUresult r;
    if (n > 8 &&
        (r = drv.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)) !=
            CUDA_SUCCESS) {
        fail_cuda("launch_refused", "asking for a non-portable cluster size", r);
        return false;
    }
    return true;
}

/* The blocks of fn's launch l that run at once: the clusters of the kernel
 * that fit times their CTAs (a cluster lives in one GPC, so fewer than SMs /
 * cluster may: 30 of 4 on the H200), or without a cluster occ an SM; 0
 * after answering why none. */
static unsigned long long most_at_once(launch_cfg *l, int occ) {
    int w = 0, h = 0, d = 0, n = 0;
    kernel_cluster(l->fn, &w, &h, &d);
    if (w <= 0) return (unsigned long long)occ * (unsigned)R.sms;
    CUlaunchConfig cfg = {.gridDimX = l->grid[0],
                          .gridDimY = l->grid[1],
                          .gridDimZ = l->grid[2],
                          .blockDimX = l->block[0],
                          .blockDimY = l->block[1],
                          .blockDimZ = l->block[2],
                          .sharedMemBytes = l->smem};
    CUresult r = drv.cuOccupancyMaxActiveClusters(&n, l->fn, &cfg);
    if (r != CUDA_SUCCESS || n < 1) {
        if (r != CUDA_SUCCESS)
            fail_cuda("launch_refused", "counting the clusters that run at once", r);
        else
            fail("launch_refused", "no cluster of %d CTAs of this kernel fits at once", w);
        return 0;
    }
    return (unsigned long long)n * (unsigned)(w * (h > 0 ? h : 1) * (d > 0 ? d : 1));
}

/* A request's "persistent" (launch().persistent): grid[0], at most what runs
 * at once, lowered to the blocks that fit (most_at_once), as the header does. */
static bool cap_persistent(json_t *req, launch_cfg *l, int occ) {
    if (!json_is_true(json_object_get(req, "persistent"))) return true;
    int w = 0, h = 0, d = 0;
    kernel_cluster(l->fn, &w, &h, &d);
    if (l->grid[1] != 1 || l->grid[2] != 1 || h > 1 || d > 1) {
        fail("launch_refused",
             "launch().persistent needs a grid and a cluster along x alone (grid "
             "%u x %u x %u); fix the space's launch function",
             l->grid[0], l->grid[1], l->grid[2]);
        return false;
    }
    unsigned long long cap = most_at_once(l, occ);
    if (!cap) return false;
    if (l->grid[0] > cap) l->grid[0] = (unsigned)cap;
    return true;
}

/* A request's "together" (launch().together): that many consecutive blocks
 * wait for each other, so a device that runs fewer of them at once (a MIG
 * slice, say) would hang the launch: refused, as the header refuses it. */
static bool fits_together(json_t *req, launch_cfg *l, int occ) {
    json_int_t together = json_integer_value(json_object_get(req, "together"));
    if (together <= 1) return true;
    unsigned long long cap = most_at_once(l, occ);
    if (!cap) return false;
    if ((unsigned long long)together > cap) {
        fail("over_occupancy",
             "%lld consecutive blocks of this variant wait for each other (launch().together); "
             "this device runs at most %llu of its blocks at once",
             (long long)together, cap);
        return false;
    }
    return true;
}

/* A launch of fn by `req` (grid, block, smem, resident, tensor_maps, scratch,
 * cluster, persistent) on the current problem: its configuration in *l and its occupancy,
 * or -1 after answering why it cannot run. */
static int configure(json_t *req, CUfunction fn, launch_cfg *l) {
    json_int_t smem = json_integer_value(json_object_get(req, "smem"));
    json_int_t resident = json_integer_value(json_object_get(req, "resident"));
    l->fn = fn;
    l->smem = (unsigned)smem;
    if (smem < 0 || smem > 0x7fffffff || !read_dims(req, "grid", l->grid) ||
        !read_dims(req, "block", l->block)) {
        fail("bad_request", "measure needs grid[3], block[3] and smem in range");
        return -1;
    }
    if (!dims_fit(l) || !read_extras(req, l) || !allow_cluster(req, fn)) return -1;
    unsigned threads = l->block[0] * l->block[1] * l->block[2];
    int max_threads = 0, occ = 0;
    CUresult r;
    if ((r = drv.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)smem)) != CUDA_SUCCESS) {
        fail_cuda("launch_refused", "asking for the shared memory", r);
    } else if (drv.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) ==
                   CUDA_SUCCESS &&
               threads > (unsigned)max_threads) {
        fail("launch_refused", "%u threads per block asked; this kernel allows at most %d", threads,
             max_threads);
    } else if ((r = drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                    &occ, fn, (int)threads, (size_t)smem)) != CUDA_SUCCESS) {
        fail_cuda("launch_refused", "computing occupancy", r);
    } else if (occ == 0) {
        fail("launch_refused",
             "no block of %u threads with %lld bytes of shared memory fits on an SM", threads,
             (long long)smem);
    } else if (resident > occ) {
        fail("over_occupancy", "only %d blocks of this variant fit on an SM, not %lld", occ,
             (long long)resident);
    } else if (fits_together(req, l, occ) && cap_persistent(req, l, occ)) {
        return occ;
    }
    return -1;
}

/* Wall-clock milliseconds (what verification costs a measure). */
static double wall_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The check sizes of a measure (after the tuned sizes verified and were
 * timed): each {"slot": K, grid, block, smem, resident, tensor_maps} on
 * problem slot K, verified untimed. False when a failure was answered. */
static bool run_checks(json_t *checks, CUfunction fn) {
    static launch_cfg l; /* 64-byte aligned maps */
    bool ok = true;
    for (size_t i = 0; ok && i < json_array_size(checks); i++) {
        json_t *c = json_array_get(checks, i);
        json_int_t slot = json_integer_value(json_object_get(c, "slot"));
        if (slot < 1 || slot >= SLOTS || !R.have[slot]) {
            fail("bad_request", "check %zu names problem slot %lld, which is not set up", i + 1,
                 (long long)slot);
            return false;
        }
        P = &R.probs[slot];
        memset(&l, 0, sizeof l);
        ok = configure(c, fn, &l) >= 0 && check_measurement(&l);
        free_cfg(&l);
    }
    P = &R.probs[0];
    return ok;
}

static void cmd_measure(json_t *req) {
    P = &R.probs[0];
    if (!R.have[0]) {
        fail("setup_error", "no problem set up before measure");
        return;
    }
    const char *host = json_string_value(json_object_get(req, "host"));
    json_int_t reps = json_integer_value(json_object_get(req, "reps"));
    if (reps < 1 || reps > 100000) {
        fail("bad_request", "measure needs reps in 1..100000");
        return;
    }
    const double sustain_s = json_number_value(json_object_get(req, "sustain_s"));
    if (!(sustain_s >= 0 && sustain_s <= 600)) {
        fail("bad_request", "sustain_s must be 0 to 600 seconds");
        return;
    }
    const bool gate = json_is_true(json_object_get(req, "gate")); /* bench --gate */
    if (host) {
        measure_host(host, (int)reps, sustain_s, gate);
        return;
    }
    const char *cubin = json_string_value(json_object_get(req, "cubin"));
    const char *kernel = json_string_value(json_object_get(req, "kernel"));
    json_t *checks = json_object_get(req, "checks");
    if (!cubin || !kernel || json_array_size(checks) >= SLOTS) {
        fail("bad_request", "measure needs cubin, kernel and at most %d checks", SLOTS - 1);
        return;
    }
    static launch_cfg l; /* 64-byte aligned maps; one measure at a time */
    memset(&l, 0, sizeof l);
    CUmodule mod;
    CUfunction fn;
    CUresult r = drv.cuModuleLoad(&mod, cubin);
    if (r != CUDA_SUCCESS) {
        fail_cuda("load_error", "loading the cubin", r);
        return;
    }
    if ((r = drv.cuModuleGetFunction(&fn, mod, kernel)) != CUDA_SUCCESS) {
        fail_cuda("load_error", "finding the kernel", r);
    } else {
        const double t0 = wall_ms();
        int occ = configure(req, fn, &l);
        l.gate = gate;
        bool once = json_is_true(json_object_get(req, "sanitize"));
        int extra = (int)json_array_size(checks) * (CHECK_VERIFY + SETS - 1);
        json_t *ans = occ < 0
                          ? NULL
                          : run_measurement(&l, (int)reps, occ, once,
                                            json_number_value(json_object_get(req, "reject_ms")),
                                            once ? 0 : extra);
        /* a rejected variant can never be the best: its checks would buy nothing */
        bool check = ans && !once && !json_is_true(json_object_get(ans, "rejected"));
        if (check && sustain_s > 0 && !sustain(&l, sustain_s, ans)) { /* at the tuned sizes */
            json_decref(ans);
            ans = NULL;
            check = false;
        }
        const double t1 = wall_ms();
        if (check && !run_checks(checks, fn)) {
            json_decref(ans);
            ans = NULL;
        }
        if (check && ans) {
            json_object_set_new(ans, "checked", json_integer((json_int_t)json_array_size(checks)));
            json_object_set_new(ans, "checks_ms", json_real(wall_ms() - t1));
        }
        if (ans) json_object_set_new(ans, "measure_ms", json_real(wall_ms() - t0));
        if (ans) send_json(ans);
    }
    drv.cuModuleUnload(mod);
    free_cfg(&l);
}

/* One of the ceilings: a copy kernel, a device-to-device memcpy, or the FMA
 * peak kernel, chosen by `what`. */
static CUresult ceiling_step(int what, CUdeviceptr a, CUdeviceptr b, unsigned long long n4,
                             int iters) {
    unsigned grid = (unsigned)R.sms * 8;
    if (what == 0) {
        void *args[] = {&a, &b, &n4};
        return drv.cuLaunchKernel(R.copy, grid * 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    }
    if (what == 1) return drv.cuMemcpyDtoD(b, a, n4 * 16);
    void *args[] = {&b, &iters};
    if (what == 3) /* two warpgroups per SM, each its own block */
        return drv.cuLaunchKernel(R.mma_peak, (unsigned)R.sms * 2, 1, 1, 128, 1, 1, 0, NULL, args,
                                  NULL);
    return drv.cuLaunchKernel(R.fma_peak, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

/* Median milliseconds of `reps` runs of one ceiling step. */
static CUresult time_ceiling(int what, CUdeviceptr a, CUdeviceptr b, unsigned long long n4,
                             int iters, float *median) {
    enum { REPS = 15 };
    CUevent e0, e1;
    float ms[REPS] = {0};
    CUresult r = drv.cuEventCreate(&e0, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = drv.cuEventCreate(&e1, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = ceiling_step(what, a, b, n4, iters); /* warm-up */
    for (int i = 0; i < REPS && r == CUDA_SUCCESS; i++) {
        r = drv.cuEventRecord(e0, NULL);
        if (r == CUDA_SUCCESS) r = ceiling_step(what, a, b, n4, iters);
        if (r == CUDA_SUCCESS) r = drv.cuEventRecord(e1, NULL);
        if (r == CUDA_SUCCESS) r = drv.cuEventSynchronize(e1);
        if (r == CUDA_SUCCESS) r = drv.cuEventElapsedTime(&ms[i], e0, e1);
    }
    drv.cuEventDestroy(e0);
    drv.cuEventDestroy(e1);
    qsort(ms, REPS, sizeof ms[0], cmp_float);
    *median = ms[REPS / 2];
    return r;
}

/* The ceilings on buffers of their own (1 GiB each way: far past L2). */
static void cmd_floor(void) {
    const unsigned long long n4 = (1ull << 30) / 16;
    const int iters = 4096;
    CUdeviceptr a = 0, b = 0;
    float copy_ms = 0, dtod_ms = 0, fma_ms = 0, mma_ms = 0;
    const int mma_iters = 2048;
    CUresult r = drv.cuMemAlloc(&a, n4 * 16);
    if (r == CUDA_SUCCESS) r = drv.cuMemAlloc(&b, n4 * 16);
    if (r == CUDA_SUCCESS) r = drv.cuMemsetD8(a, 0, n4 * 16);
    if (r == CUDA_SUCCESS) r = time_ceiling(0, a, b, n4, iters, &copy_ms);
    if (r == CUDA_SUCCESS) r = time_ceiling(1, a, b, n4, iters, &dtod_ms);
    if (r == CUDA_SUCCESS) r = time_ceiling(2, a, b, n4, iters, &fma_ms);
    if (r == CUDA_SUCCESS && R.mma_peak) r = time_ceiling(3, a, b, n4, mma_iters, &mma_ms);
    if (a) drv.cuMemFree(a);
    if (b) drv.cuMemFree(b);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", "measuring the ceilings", r);
        return;
    }
    double bytes = 2.0 * (double)n4 * 16, fmas = (double)R.sms * 8 * 256 * 8 * iters;
    double mmas = (double)R.sms * 2 * 64 * 256 * 64 * mma_iters; /* blocks x per-trip x trips */
    send_json(json_pack("{s:b, s:f, s:f, s:f, s:f}", "ok", 1, "copy_gbps", bytes / copy_ms * 1e-6,
                        "dtod_gbps", bytes / dtod_ms * 1e-6, "fma_per_s", fmas / fma_ms * 1e3,
                        "mma_per_s", mma_ms > 0 ? mmas / mma_ms * 1e3 : 0.0));
}

/* The checksums' key: from the kernel's random source, so that no kernel
 * can know it (a fixed key would let one forge a hash-preserving change). */
static unsigned long long secret_key(void) {
    unsigned long long k = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&k, sizeof k, 1, f) != 1) k = (unsigned long long)now_seconds() * 2654435761u;
    if (f) fclose(f);
    return k ^ ((unsigned long long)getpid() << 32);
}

static bool open_device(int ordinal, const char *fatbin, char **why) {
    const char *w;
    if (!driver_load(&w)) {
        *why = xstrdup(w);
        return false;
    }
    char buf[256];
    int count = 0;
    CUresult r = drv.cuInit(0);
    if (r == CUDA_SUCCESS) r = drv.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= ordinal) {
        *why = xstrdup(r != CUDA_SUCCESS ? driver_error(r, buf, sizeof buf)
                                         : "the CUDA driver sees no GPU with that number");
        return false;
    }
    CUmodule mod;
    if ((r = drv.cuDeviceGet(&R.dev, ordinal)) != CUDA_SUCCESS ||
        (r = drv.cuDevicePrimaryCtxRetain(&R.ctx, R.dev)) != CUDA_SUCCESS ||
        (r = drv.cuCtxSetCurrent(R.ctx)) != CUDA_SUCCESS ||
        (r = drv.cuModuleLoad(&mod, fatbin)) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.check_exact, mod, "bartune_check_exact")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.check_bound, mod, "bartune_check_bound")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.checksum, mod, "bartune_checksum")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.seal, mod, "bartune_seal")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.copy, mod, "bartune_copy")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.fma_peak, mod, "bartune_fma_peak")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.fill_padding, mod, "bartune_fill_padding")) !=
            CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.gate, mod, "bartune_gate")) != CUDA_SUCCESS ||
        (r = drv.cuMemAlloc(&R.scratch, 64)) != CUDA_SUCCESS) {
        *why = xasprintf("opening GPU %d (runner kernels %s): %s", ordinal, fatbin,
                         driver_error(r, buf, sizeof buf));
        return false;
    }
    R.sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    R.key = secret_key();
    R.devices = count;
    /* The tensor-core ceiling: sm_90a code, for 9.0 alone (optional). */
    CUmodule mma;
    const char *dot = strstr(fatbin, ".fatbin");
    char *mma_path = xasprintf("%.*s-mma.cubin", dot ? (int)(dot - fatbin) : 0, fatbin);
    if (dot && attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) == 9 &&
        attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) == 0) {
        if (drv.cuModuleLoad(&mma, mma_path) != CUDA_SUCCESS ||
            drv.cuModuleGetFunction(&R.mma_peak, mma, "bartune_mma_peak") != CUDA_SUCCESS)
            R.mma_peak = NULL;
    }
    free(mma_path);
    return true;
}

/* One request line; false on quit. */
static bool handle(const char *line) {
    json_error_t je;
    json_t *req = json_loads(line, 0, &je);
    const char *op = json_string_value(json_object_get(req, "op"));
    bool go_on = true;
    if (!op)
        fail("bad_request", "not a JSON request with an \"op\": %.200s", line);
    else if (!strcmp(op, "hello"))
        cmd_hello(req);
    else if (!strcmp(op, "problem"))
        cmd_problem(req);
    else if (!strcmp(op, "measure"))
        cmd_measure(req);
    else if (!strcmp(op, "floor"))
        cmd_floor();
    else if (!strcmp(op, "quit"))
        go_on = false;
    else
        fail("bad_request", "unknown op '%.64s'", op);
    json_decref(req);
    return go_on;
}

int main(int argc, char **argv) {
    progname = "bartune-runner";
    /* Ends with bartune, even while a kernel hangs and nobody reads fd 3. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) return 1;
    FILE *in = fdopen(3, "r");
    R.out = fdopen(4, "w");
    if (!in || !R.out) {
        fprintf(stderr, "bartune-runner: start me from bartune (protocol on fds 3 and 4)\n");
        return 2;
    }
    int ordinal = argc > 1 ? atoi(argv[1]) : 0;
    char *dir = self_dir();
    char *fatbin = path_join(dir, "bartune-runner.fatbin");
    free(dir);
    char *why = NULL;
    if (!open_device(ordinal, fatbin, &why)) {
        /* Every request gets the same answer, there is no GPU, except a
         * problem on the CPU alone. */
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, in) > 0) {
            json_t *req = json_loads(line, 0, NULL);
            const char *op = json_string_value(json_object_get(req, "op"));
            if (op && !strcmp(op, "problem") && json_is_true(json_object_get(req, "cpu_only")))
                cmd_problem_cpu(req);
            else if (op && !strcmp(op, "quit"))
                break;
            else
                fail("no_gpu", "%s", why);
            json_decref(req);
        }
        free(line);
        return 1;
    }
    free(fatbin);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) > 0 && handle(line)) {
    }
    free(line);
    for (int k = 0; k < SLOTS; k++)
        if (R.have[k]) problem_free(&R.probs[k]);
    return 0;
}
