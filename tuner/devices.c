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
    json_t *req = json_pack("{s:s, s:i}", "op", "hello", "version", RUNNER_PROTOCOL), *ans;
    runner_result res = runner_request(&r, req, 60, &ans);
    json_decref(req);
    device_info d;
    int rc = EXIT_OK;
    if (res != RUNNER_OK || !device_from_json(json_object_get(ans, "device"), &d)) {
        const char *m = json_string_value(json_object_get(ans, "message"));
        msg_error("no GPU: %s", m ? m : "the runner gave no device");
        rc = EXIT_NO_GPU;
    } else {
        char key[160];
        device_key(&d, key);
        printf("%s: %s, compute capability %d.%d, %d SMs, %d KiB shared memory per block, driver "
               "%s, CUDA %d.%d\n",
               key, d.name, d.cc_major, d.cc_minor, d.sms, d.smem_per_block_optin / 1024, d.driver,
               d.cuda_version / 1000, d.cuda_version % 1000 / 10);
    }
    json_decref(ans);
    runner_stop(&r);
    return rc;
}
