#include "driver.h"

#include <dlfcn.h>
#include <stdio.h>

driver_api drv;

#define STR_(x) #x
#define STR(x) STR_(x) /* expands cuda.h's renames: cuMemAlloc -> "cuMemAlloc_v2" */

bool driver_load(const char **why) {
    static char msg[256];
    drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!drv.lib) {
        snprintf(msg, sizeof msg, "no CUDA driver on this machine (dlopen libcuda.so.1: %s)",
                 dlerror());
        *why = msg;
        return false;
    }
#define DRIVER_LOAD(fn)                                                                            \
    *(void **)&drv.fn = dlsym(drv.lib, STR(fn));                                                   \
    if (!drv.fn) {                                                                                 \
        snprintf(msg, sizeof msg, "the CUDA driver lacks %s; is it older than the toolkit?",       \
                 STR(fn));                                                                         \
        *why = msg;                                                                                \
        return false;                                                                              \
    }
    DRIVER_FUNCTIONS(DRIVER_LOAD)
#undef DRIVER_LOAD
    return true;
}

const char *driver_error(CUresult r, char *buf, int size) {
    const char *name = NULL, *text = NULL;
    if (drv.cuGetErrorName) drv.cuGetErrorName(r, &name);
    if (drv.cuGetErrorString) drv.cuGetErrorString(r, &text);
    snprintf(buf, (size_t)size, "%s: %s", name ? name : "CUDA error", text ? text : "unknown");
    return buf;
}
