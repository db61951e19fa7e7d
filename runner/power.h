/* The GPU's energy counter through NVML, loaded with dlopen at run time (the
 * driver's libnvidia-ml.so.1; nothing links it): a runner without it still
 * measures time and says why it has no energy. */
#ifndef BARTUNE_POWER_H
#define BARTUNE_POWER_H

#include <stdbool.h>

/* Opens NVML's handle of the GPU at PCI bus id `bus` ("0000:18:00.0", as
 * cuDeviceGetPCIBusId gives it); false with why (static text) if not. */
bool power_open(const char *bus, const char **why);
/* Millijoules the GPU has used since the driver loaded; false if unread. */
bool power_energy_mj(unsigned long long *mj);
/* The power limit the board enforces now, in watts (0: unknown). */
double power_limit_w(void);

#endif
