/* Best-kernel headers: kernels/<device>/<space>.cuh (the expanded best
 * variant of that device, self-contained), kernels/portable/<space>.cuh and
 * kernels/<space>.cuh, which picks one of them at run time. */
#ifndef BARTUNE_EMIT_H
#define BARTUNE_EMIT_H

#include <stdbool.h>

#include "config.h"
#include "device.h"
#include "space.h"

/* Emits from every results/<device>/<space>.jsonl under results_dir, or only
 * from `records` (a file) when given. */
bool emit_headers(space *s, const char *results_dir, const char *records, const char *kernels_dir);
/* One variant as a header holds it, in namespace `ns`: kernel, launcher
 * and host entry. NULL after printing why. */
/* What every emitted file holds once, before its variants (emit_variant's
 * output needs it): the launchers' helpers, probe and tensor-map encoder. */
const char *emit_common(void);
char *emit_variant(space *s, const device_info *d, const config *params, const config *launch,
                   json_t *measured_at, const char *ns);

#endif
