/* NVML through dlopen: the three calls bench's sustained figures need. The
 * prototypes are NVML's (nvml.h, not installed with the toolkit here):
 * nvmlReturn_t is an int, 0 for success; nvmlDevice_t an opaque pointer. */
#include "power.h"

#include <dlfcn.h>
#include <stddef.h>

typedef struct nvml_device *nvml_device;
static struct {
    nvml_device dev;
    int (*energy)(nvml_device, unsigned long long *);
    int (*limit)(nvml_device, unsigned *);
} N;

bool power_open(const char *bus, const char **why) {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        *why = "no libnvidia-ml.so.1 (the driver's NVML)";
        return false;
    }
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*by_bus)(const char *, nvml_device *) =
        (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    N.energy = (int (*)(nvml_device, unsigned long long *))dlsym(
        lib, "nvmlDeviceGetTotalEnergyConsumption");
    N.limit = (int (*)(nvml_device, unsigned *))dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit");
    if (!init || !by_bus || !N.energy) {
        *why = "NVML lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or "
               "nvmlDeviceGetTotalEnergyConsumption";
        return false;
    }
    unsigned long long mj;
    if (init() != 0 || by_bus(bus, &N.dev) != 0 || N.energy(N.dev, &mj) != 0) {
        N.dev = NULL;
        *why = "NVML cannot read this GPU's energy counter (Volta and later have one)";
        return false;
    }
    return true;
}

bool power_energy_mj(unsigned long long *mj) {
    return N.dev && N.energy(N.dev, mj) == 0;
}

double power_limit_w(void) {
    unsigned mw = 0;
    return N.dev && N.limit && N.limit(N.dev, &mw) == 0 ? mw / 1000.0 : 0;
}
