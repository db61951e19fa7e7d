/* bartune devices: what the runner sees. */
#include <stdio.h>

#include "commands.h"
#include "gpu.h"
#include "util.h"

int cmd_devices(const options *o) {
    runner_client r;
    char *log = path_join(o->cache, "runner.log");
    if (!mkdir_p(o->cache) || !runner_start(&r, o->runner, 0, log)) {
        msg_error("cannot start %s", o->runner);
        free(log);
        return EXIT_NO_GPU;
    }
    free(log);
    device_info d;
    char *why = NULL;
    int rc = EXIT_OK;
    if (!gpu_hello(&r, 60, &d, NULL, &why)) {
        msg_error("no GPU: %s", why);
        free(why);
        rc = EXIT_NO_GPU;
    } else {
        char key[160];
        device_key(&d, key);
        printf("%s: %s, compute capability %d.%d, %d SMs, %d KiB shared memory per block, driver "
               "%s, CUDA %d.%d\n",
               key, d.name, d.cc_major, d.cc_minor, d.sms, d.smem_per_block_optin / 1024, d.driver,
               d.cuda_version / 1000, d.cuda_version % 1000 / 10);
    }
    runner_stop(&r);
    return rc;
}
