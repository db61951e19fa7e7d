#include "device.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Typical limits per architecture (CUDA programming guide, table of
 * technical specifications). Used only when no GPU is asked. */
static const struct {
    int major, minor, smem_optin, smem_sm, threads_sm, blocks_sm;
} arch_table[] = {
    {7, 0, 98304, 98304, 2048, 32},    {7, 5, 65536, 65536, 1024, 16},
    {8, 0, 166912, 167936, 2048, 32},  {8, 6, 101376, 102400, 1536, 16},
    {8, 7, 166912, 167936, 2048, 32},  {8, 9, 101376, 102400, 1536, 24},
    {9, 0, 232448, 233472, 2048, 32},  {10, 0, 232448, 233472, 2048, 32},
    {12, 0, 101376, 102400, 1536, 32},
};

bool device_for_arch(const char *arch, device_info *out) {
    int major, minor;
    char tail;
    if (sscanf(arch, "sm_%1d%1d%c", &major, &minor, &tail) == 2) {
    } else if (sscanf(arch, "sm_%2d%1d%c", &major, &minor, &tail) != 2) {
        return false;
    }
    for (size_t i = 0; i < sizeof arch_table / sizeof arch_table[0]; i++) {
        if (arch_table[i].major != major || arch_table[i].minor != minor) continue;
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "generic %s", arch);
        out->cc_major = major;
        out->cc_minor = minor;
        out->sms = 0; /* unknown without a GPU */
        out->max_threads_per_block = 1024;
        out->max_threads_per_sm = arch_table[i].threads_sm;
        out->max_blocks_per_sm = arch_table[i].blocks_sm;
        out->smem_per_block_optin = arch_table[i].smem_optin;
        out->smem_per_sm = arch_table[i].smem_sm;
        out->regs_per_sm = 65536;
        return true;
    }
    return false;
}

void device_key(const device_info *d, char out[160]) {
    size_t o = 0;
    bool dash = false;
    for (const char *p = d->name; *p && o < 140; p++) {
        if (isalnum((unsigned char)*p)) {
            if (dash && o) out[o++] = '-';
            dash = false;
            out[o++] = (char)tolower((unsigned char)*p);
        } else {
            dash = true;
        }
    }
    snprintf(out + o, 160 - o, "%ssm%d%d", o ? "-" : "", d->cc_major, d->cc_minor);
}

void device_fingerprint(const device_info *d, char out[320]) {
    snprintf(out, 320, "%s|sm_%d%d|%d SMs|driver %s|cuda %d", d->name, d->cc_major, d->cc_minor,
             d->sms, d->driver, d->cuda_version);
}

void device_arch(const device_info *d, char out[16]) {
    snprintf(out, 16, "sm_%d%d", d->cc_major, d->cc_minor);
}

#define DEVICE_INTS(X)                                                                             \
    X(cc_major)                                                                                    \
    X(cc_minor)                                                                                    \
    X(sms)                                                                                         \
    X(max_threads_per_block)                                                                       \
    X(max_threads_per_sm)                                                                          \
    X(max_blocks_per_sm)                                                                           \
    X(smem_per_block_optin) X(smem_per_sm) X(regs_per_sm) X(l2_bytes) X(cuda_version)

json_t *device_json(const device_info *d) {
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(d->name));
    json_object_set_new(j, "driver", json_string(d->driver));
#define SET(f) json_object_set_new(j, #f, json_integer(d->f));
    DEVICE_INTS(SET)
#undef SET
    return j;
}

bool device_from_json(json_t *j, device_info *d) {
    memset(d, 0, sizeof *d);
    const char *name = json_string_value(json_object_get(j, "name"));
    const char *driver = json_string_value(json_object_get(j, "driver"));
    if (!name || !driver || strlen(name) >= sizeof d->name || strlen(driver) >= sizeof d->driver)
        return false;
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->driver, sizeof d->driver, "%s", driver);
    bool ok = true;
#define GET(f)                                                                                     \
    {                                                                                              \
        json_t *v = json_object_get(j, #f);                                                        \
        ok = ok && json_is_integer(v) && json_integer_value(v) >= 0 &&                             \
             json_integer_value(v) <= 0x7fffffff;                                                  \
        d->f = (int)json_integer_value(v);                                                         \
    }
    DEVICE_INTS(GET)
#undef GET
    return ok && d->cc_major > 0;
}
