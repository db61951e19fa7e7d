/* The C side of a search space. The Lua state lives behind this interface:
 * nothing but space_lua.c includes lua.h. */
#ifndef BARTUNE_SPACE_H
#define BARTUNE_SPACE_H

#include "config.h"
#include "device.h"

typedef struct space space;

/* Loads gen/lib and the space script at `path`; templates come from
 * `templates_dir`. NULL and *err (owned by the caller) on failure. */
space *space_open(const char *path, const char *lib_dir, const char *templates_dir, char **err);
void space_close(space *s);

const char *space_name(const space *s);
const char *space_problem(const space *s);
const char *space_file(const space *s);
long long space_n(const space *s);
/* Least bytes moved and FMAs per element (0: not declared), for the floor. */
long long space_bytes_per_item(const space *s);
long long space_fma_per_item(const space *s);
/* True when `name` is a launch_param() of the space (tried per compiled
 * variant, not part of its source). */
bool space_is_launch_param(const space *s, const char *name);
/* The compile-time parameters, in declaration order. */
const config *space_params(const space *s);
/* The baselines and the portable config the script declared. */
const named_config *space_named(const space *s, int *count);

/* Expands the space for `dev`, with "k=v" overrides. */
bool space_variants(space *s, const device_info *dev, char **overrides, int n_overrides,
                    variant_set *out, char **err);
/* Renders one compile-time config; `extra` adds names for the template
 * (ns, emit, launch values). Returns the source, or NULL and *err. */
char *space_render(space *s, const device_info *dev, const config *params, const config *extra,
                   char **err);

#endif
