/* bartune-runner: one per GPU, driven by the CLI over stdin/stdout, one
 * request line in, one answer line out (plus a "probe" line once a variant's
 * first launch has finished, so the CLI can scale its time limit).
 *
 *   info                                  -> ok {device json}
 *   problem NAME N SEED                   -> ok SECONDS
 *   measure CUBIN KERNEL THREADS SMEM BLOCKS_PER_SM TILE REPS
 *                                         -> probe MS, then ok MEDIAN MIN MAX OCCUPANCY
 *                                            or fail STATUS MESSAGE
 *   floor                                 -> ok COPY_GBPS DTOD_GBPS FMA_PER_S
 *   quit
 *
 * After an error that poisons the context (illegal address, trap) it answers
 * and exits: the CLI starts a new runner for the next variant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "problems.h"
#include "util.h"

enum { VERIFY_LAUNCHES = 3, WARMUP = 2, GUARD = 16384, EXIT_STICKY = 3 };
static const unsigned POISON = 0xffbadbadu; /* a NaN no kernel computes */

static struct {
    CUdevice dev;
    CUcontext ctx;
    int sms;
    const problem *prob;
    size_t n;
    CUdeviceptr in, out, ref, stats;
    CUfunction compare, copy, fma_peak;
} R;

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* Answers "fail STATUS what: error"; a sticky error ends the runner. */
static void fail_cuda(const char *status, const char *what, CUresult r) {
    char buf[256];
    reply("fail %s %s: %s", status, what, driver_error(r, buf, sizeof buf));
    bool sticky = r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
                  r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
                  r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_INVALID_PC ||
                  r == CUDA_ERROR_INVALID_ADDRESS_SPACE || r == CUDA_ERROR_ASSERT ||
                  r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_ECC_UNCORRECTABLE ||
                  r == CUDA_ERROR_UNKNOWN;
    if (sticky) exit(EXIT_STICKY);
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
            char rest;
            if (sscanf(tok, "%u.%u%c", &a, &b, &rest) >= 2 && strspn(tok, "0123456789.") == strlen(tok)) {
                snprintf(out, 64, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}

static void cmd_info(void) {
    char name[128] = "", drvver[64];
    int cuda = 0;
    drv.cuDeviceGetName(name, sizeof name, R.dev);
    drv.cuDriverGetVersion(&cuda);
    driver_version(drvver);
    for (char *p = name; *p; p++)
        if (*p == '"' || *p == '\\') *p = ' ';
    reply("ok {\"name\":\"%s\",\"cc_major\":%d,\"cc_minor\":%d,\"sms\":%d,"
          "\"max_threads_per_block\":%d,\"max_threads_per_sm\":%d,\"max_blocks_per_sm\":%d,"
          "\"smem_per_block_optin\":%d,\"smem_per_sm\":%d,\"regs_per_sm\":%d,\"l2_bytes\":%d,"
          "\"cuda_version\":%d,\"driver\":\"%s\"}",
          name, attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
          attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), R.sms,
          attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK),
          attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
          attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR),
          attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
          attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
          attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
          attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), cuda, drvver);
}

static void free_problem(void) {
    if (R.in) drv.cuMemFree(R.in);
    if (R.out) drv.cuMemFree(R.out);
    if (R.ref) drv.cuMemFree(R.ref);
    R.in = R.out = R.ref = 0;
    R.prob = NULL;
}

static void cmd_problem(const char *name, size_t n, uint64_t seed) {
    const problem *p = problem_find(name);
    if (!p) {
        reply("fail unknown_problem the runner has no problem '%s'", name);
        return;
    }
    double t0 = now_seconds();
    free_problem();
    size_t bytes = n * p->elem_size;
    float *in = malloc(bytes), *ref = malloc(bytes);
    CUresult r = in && ref ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        problem_prepare(p, in, ref, n, seed);
        r = drv.cuMemAlloc(&R.in, bytes);
    }
    if (r == CUDA_SUCCESS) r = drv.cuMemAlloc(&R.out, bytes + GUARD * sizeof(unsigned));
    if (r == CUDA_SUCCESS) r = drv.cuMemAlloc(&R.ref, bytes);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyHtoD(R.in, in, bytes);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyHtoD(R.ref, ref, bytes);
    free(in);
    free(ref);
    if (r != CUDA_SUCCESS) {
        free_problem();
        fail_cuda("setup_error", "allocating and uploading the problem", r);
        return;
    }
    R.prob = p;
    R.n = n;
    reply("ok %.3f", now_seconds() - t0);
}

/* Poisons out (and the guard words past its end) before a launch. */
static CUresult poison(void) { return drv.cuMemsetD32(R.out, POISON, R.n + GUARD); }

/* Compares out with the reference; answers fail and returns false on a
 * mismatch. `which` names the launch for the message. */
static bool verify(const char *which, bool earlier_passed) {
    unsigned long long stats[5] = {0, ~0ull, 0, 0, 0};
    unsigned long long n = R.n, guard = GUARD;
    unsigned poison_v = POISON;
    CUresult r = drv.cuMemcpyHtoD(R.stats, stats, sizeof stats);
    void *args[] = {&R.out, &R.ref, &n, &poison_v, &guard, &R.stats};
    if (r == CUDA_SUCCESS)
        r = drv.cuLaunchKernel(R.compare, (unsigned)R.sms * 8, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyDtoH(stats, R.stats, sizeof stats);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", "verifying the output", r);
        return false;
    }
    if (stats[0] == 0 && stats[4] == 0) return true;
    if (stats[4]) {
        reply("fail out_of_bounds %s wrote %llu of the %d guard words past the end of out", which,
              stats[4], GUARD);
        return false;
    }
    unsigned long long i = stats[1];
    float got = 0, want = 0;
    drv.cuMemcpyDtoH(&got, R.out + i * 4, 4);
    drv.cuMemcpyDtoH(&want, R.ref + i * 4, 4);
    const char *status = stats[2] ? "unwritten" : stats[3] ? "nan" : earlier_passed ? "race"
                                                                                      : "wrong_result";
    reply("fail %s %s: %llu of %zu outputs differ (%llu never written, %llu NaN); first at index "
          "%llu: got %.9g, expected %.9g%s",
          status, which, stats[0], R.n, stats[2], stats[3], i, (double)got, (double)want,
          earlier_passed ? " (an earlier launch verified: nondeterministic)" : "");
    return false;
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct {
    CUfunction fn;
    unsigned grid, threads, smem;
} launch_cfg;

static CUresult launch(const launch_cfg *l) {
    unsigned long long n = R.n;
    void *args[] = {&R.in, &R.out, &n};
    return drv.cuLaunchKernel(l->fn, l->grid, 1, 1, l->threads, 1, 1, l->smem, NULL, args, NULL);
}

/* Verifying launches, warm-up, timed launches, and a check of the last
 * timed launch's output. */
static void run_measurement(const launch_cfg *l, int reps, int occupancy) {
    CUresult r;
    for (int v = 0; v < VERIFY_LAUNCHES; v++) {
        double t0 = now_seconds();
        if ((r = poison()) != CUDA_SUCCESS) { fail_cuda("runtime_error", "poisoning out", r); return; }
        if ((r = launch(l)) != CUDA_SUCCESS) { fail_cuda("launch_error", "launching", r); return; }
        if ((r = drv.cuCtxSynchronize()) != CUDA_SUCCESS)
            { fail_cuda("runtime_error", "running the kernel", r); return; }
        if (v == 0) reply("probe %.3f", (now_seconds() - t0) * 1e3);
        char which[48];
        snprintf(which, sizeof which, "verifying launch %d of %d", v + 1, VERIFY_LAUNCHES);
        if (!verify(which, v > 0)) return;
    }
    for (int w = 0; w < WARMUP; w++)
        if ((r = launch(l)) != CUDA_SUCCESS) { fail_cuda("launch_error", "launching", r); return; }
    if ((r = poison()) != CUDA_SUCCESS) { fail_cuda("runtime_error", "poisoning out", r); return; }
    CUevent *ev = calloc((size_t)reps * 2, sizeof *ev);
    float *ms = calloc((size_t)reps, sizeof *ms);
    for (int i = 0; i < reps * 2 && r == CUDA_SUCCESS; i++)
        r = drv.cuEventCreate(&ev[i], CU_EVENT_DEFAULT);
    for (int i = 0; i < reps && r == CUDA_SUCCESS; i++) {
        r = drv.cuEventRecord(ev[2 * i], NULL);
        if (r == CUDA_SUCCESS) r = launch(l);
        if (r == CUDA_SUCCESS) r = drv.cuEventRecord(ev[2 * i + 1], NULL);
    }
    if (r == CUDA_SUCCESS) r = drv.cuCtxSynchronize();
    for (int i = 0; i < reps && r == CUDA_SUCCESS; i++)
        r = drv.cuEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
    for (int i = 0; i < reps * 2; i++)
        if (ev[i]) drv.cuEventDestroy(ev[i]);
    free(ev);
    if (r != CUDA_SUCCESS) {
        free(ms);
        { fail_cuda("runtime_error", "timing the kernel", r); return; }
    }
    if (verify("the last timed launch", true)) {
        qsort(ms, (size_t)reps, sizeof *ms, cmp_float);
        double median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
        reply("ok %.6f %.6f %.6f %d", median, (double)ms[0], (double)ms[reps - 1], occupancy);
    }
    free(ms);
}

static void cmd_measure(const char *cubin, const char *kernel, unsigned threads, unsigned smem,
                        int blocks_per_sm, unsigned long long tile, int reps) {
    if (!R.prob) { reply("fail setup_error no problem set up before measure"); return; }
    CUmodule mod;
    CUresult r = drv.cuModuleLoad(&mod, cubin);
    if (r != CUDA_SUCCESS) { fail_cuda("load_error", "loading the cubin", r); return; }
    launch_cfg l = {.threads = threads, .smem = smem};
    int max_threads = 0;
    r = drv.cuModuleGetFunction(&l.fn, mod, kernel);
    if (r != CUDA_SUCCESS) {
        fail_cuda("load_error", "finding the kernel", r);
    } else if ((r = drv.cuFuncSetAttribute(l.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           (int)smem)) != CUDA_SUCCESS) {
        fail_cuda("launch_refused", "asking for the shared memory", r);
    } else if (drv.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, l.fn) ==
                   CUDA_SUCCESS &&
               (int)threads > max_threads) {
        reply("fail launch_refused %u threads per block asked; this kernel allows at most %d",
              threads, max_threads);
    } else {
        int occ = 0;
        r = drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&occ, l.fn, (int)threads, smem);
        if (r != CUDA_SUCCESS) {
            fail_cuda("launch_refused", "computing occupancy", r);
        } else if (occ == 0) {
            reply("fail launch_refused no block of %u threads with %u bytes of shared memory fits "
                  "on an SM",
                  threads, smem);
        } else if (blocks_per_sm > occ) {
            reply("fail over_occupancy only %d blocks of this variant fit on an SM, not %d", occ,
                  blocks_per_sm);
        } else {
            unsigned long long grid = (unsigned long long)blocks_per_sm * (unsigned)R.sms;
            unsigned long long tiles = tile ? (R.n + tile - 1) / tile : grid;
            l.grid = (unsigned)(grid < tiles ? grid : tiles);
            run_measurement(&l, reps, occ);
        }
    }
    drv.cuModuleUnload(mod);
}

/* One of the ceilings: a copy kernel, a device-to-device memcpy, or the FMA
 * peak kernel, chosen by `what`. */
static CUresult ceiling_step(int what, unsigned long long n4, int iters) {
    unsigned grid = (unsigned)R.sms * 8;
    if (what == 0) {
        void *args[] = {&R.in, &R.out, &n4};
        return drv.cuLaunchKernel(R.copy, grid * 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
    }
    if (what == 1) return drv.cuMemcpyDtoD(R.out, R.in, n4 * 16);
    void *args[] = {&R.out, &iters};
    return drv.cuLaunchKernel(R.fma_peak, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

/* Median milliseconds of `reps` runs of one ceiling step. */
static CUresult time_ceiling(int what, unsigned long long n4, int iters, int reps, float *median) {
    CUevent a, b;
    float ms[32];
    CUresult r = drv.cuEventCreate(&a, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = drv.cuEventCreate(&b, CU_EVENT_DEFAULT);
    if (r == CUDA_SUCCESS) r = ceiling_step(what, n4, iters); /* warm-up */
    for (int i = 0; i < reps && r == CUDA_SUCCESS; i++) {
        r = drv.cuEventRecord(a, NULL);
        if (r == CUDA_SUCCESS) r = ceiling_step(what, n4, iters);
        if (r == CUDA_SUCCESS) r = drv.cuEventRecord(b, NULL);
        if (r == CUDA_SUCCESS) r = drv.cuEventSynchronize(b);
        if (r == CUDA_SUCCESS) r = drv.cuEventElapsedTime(&ms[i], a, b);
    }
    drv.cuEventDestroy(a);
    drv.cuEventDestroy(b);
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_float);
    *median = ms[reps / 2];
    return r;
}

static void cmd_floor(void) {
    unsigned long long n4 = R.n / 4;
    const int iters = 4096;
    if (!R.prob || n4 < (unsigned long long)R.sms * 8 * 256) {
        reply("fail setup_error set up a problem of at least %d elements first", R.sms * 8 * 1024);
        return;
    }
    float copy_ms, dtod_ms, fma_ms;
    CUresult r = time_ceiling(0, n4, iters, 15, &copy_ms);
    if (r == CUDA_SUCCESS) r = time_ceiling(1, n4, iters, 15, &dtod_ms);
    if (r == CUDA_SUCCESS) r = time_ceiling(2, n4, iters, 15, &fma_ms);
    if (r != CUDA_SUCCESS) {
        fail_cuda("runtime_error", "measuring the ceilings", r);
        return;
    }
    double bytes = 2.0 * (double)n4 * 16, fmas = (double)R.sms * 8 * 256 * 8 * iters;
    reply("ok %.3f %.3f %.6e", bytes / copy_ms * 1e-6, bytes / dtod_ms * 1e-6, fmas / fma_ms * 1e3);
}

static bool open_device(int ordinal, const char *fatbin) {
    const char *why;
    if (!driver_load(&why)) {
        reply("fail no_gpu %s", why);
        return false;
    }
    char buf[256];
    int count = 0;
    CUresult r = drv.cuInit(0);
    if (r == CUDA_SUCCESS) r = drv.cuDeviceGetCount(&count);
    if (r != CUDA_SUCCESS || count <= ordinal) {
        reply("fail no_gpu %s", r != CUDA_SUCCESS ? driver_error(r, buf, sizeof buf)
                                                  : "the CUDA driver sees no GPU with that number");
        return false;
    }
    CUmodule mod;
    if ((r = drv.cuDeviceGet(&R.dev, ordinal)) != CUDA_SUCCESS ||
        (r = drv.cuDevicePrimaryCtxRetain(&R.ctx, R.dev)) != CUDA_SUCCESS ||
        (r = drv.cuCtxSetCurrent(R.ctx)) != CUDA_SUCCESS ||
        (r = drv.cuModuleLoad(&mod, fatbin)) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.compare, mod, "bartune_compare")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.copy, mod, "bartune_copy")) != CUDA_SUCCESS ||
        (r = drv.cuModuleGetFunction(&R.fma_peak, mod, "bartune_fma_peak")) != CUDA_SUCCESS ||
        (r = drv.cuMemAlloc(&R.stats, 5 * sizeof(unsigned long long))) != CUDA_SUCCESS) {
        reply("fail no_gpu opening GPU %d (verifier %s): %s", ordinal, fatbin,
              driver_error(r, buf, sizeof buf));
        return false;
    }
    R.sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    return true;
}

int main(int argc, char **argv) {
    progname = "bartune-runner";
    int ordinal = argc > 1 ? atoi(argv[1]) : 0;
    char *dir = self_dir();
    char *fatbin = path_join(dir, "bartune-runner.fatbin");
    free(dir);
    if (!open_device(ordinal, fatbin)) return 1;
    free(fatbin);
    char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char a[4096], b[256];
        unsigned long long n, seed, tile;
        unsigned threads, smem;
        int bps, reps;
        if (!strcmp(line, "info")) {
            cmd_info();
        } else if (sscanf(line, "problem %255s %llu %llu", b, &n, &seed) == 3) {
            cmd_problem(b, (size_t)n, seed);
        } else if (sscanf(line, "measure %4095s %255s %u %u %d %llu %d", a, b, &threads, &smem,
                          &bps, &tile, &reps) == 7) {
            cmd_measure(a, b, threads, smem, bps, tile, reps < 1 ? 1 : reps);
        } else if (!strcmp(line, "floor")) {
            cmd_floor();
        } else if (!strcmp(line, "quit")) {
            break;
        } else {
            reply("fail bad_request cannot parse '%s'", line);
        }
    }
    free_problem();
    return 0;
}
