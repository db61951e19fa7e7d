/* bartune devices: the GPUs the runner sees, one line each, by number (the
 * numbers --gpus takes). */
#include <stdio.h>

#include "commands.h"
#include "gpu.h"
#include "util.h"

/* Says hello to a runner on GPU `ordinal`; prints its line. */
static bool show_gpu(const options *o, int ordinal, int *count) {
    runner_client r;
    char *log = gpu_log_path(o, ordinal);
    bool started = mkdir_p(o->cache) && runner_start(&r, o->runner, ordinal, log);
    free(log);
    if (!started) {
        msg_error("cannot start %s", o->runner);
        return false;
    }
    device_info d;
    char *why = NULL;
    bool ok = gpu_hello(&r, 60, &d, count, &why);
    if (!ok) {
        msg_error("no GPU %d: %s", ordinal, why);
        free(why);
    } else {
        char key[160];
        device_key(&d, key);
        printf("GPU %d: %s: %s, compute capability %d.%d, %d SMs, %d KiB shared memory per "
               "block, driver %s, CUDA %d.%d\n",
               ordinal, key, d.name, d.cc_major, d.cc_minor, d.sms, d.smem_per_block_optin / 1024,
               d.driver, d.cuda_version / 1000, d.cuda_version % 1000 / 10);
    }
    runner_stop(&r);
    return ok;
}

int cmd_devices(const options *o) {
    int count = 1, ignored;
    if (!show_gpu(o, 0, &count)) return EXIT_NO_GPU;
    for (int i = 1; i < count; i++)
        if (!show_gpu(o, i, &ignored)) return EXIT_FAILURE_;
    return EXIT_OK;
}
