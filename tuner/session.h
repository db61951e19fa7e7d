/* What several commands share: opening the space named on the command line,
 * the device to expand it for, and turning configs into JSON. */
#ifndef BARTUNE_SESSION_H
#define BARTUNE_SESSION_H

#include <jansson.h>

#include "config.h"
#include "device.h"
#include "options.h"
#include "space.h"

/* Prints the error and returns NULL on failure. */
space *session_open_space(const options *o);
/* The device of --arch (default sm_90), for commands that need no GPU. */
bool session_arch_device(const options *o, device_info *d);
/* Expands the space; prints the error (and returns false) on failure or
 * when the constraints leave nothing. */
bool session_variants(space *s, const options *o, const device_info *d, variant_set *out);
/* Integers as JSON numbers, identifiers as strings. */
json_t *config_json(const config *c);
/* The inverse of config_json. With a space, launch parameters go to
 * `launch` and the rest to `params`; without one, everything to `params`. */
void config_from_json(json_t *obj, const space *s, config *params, config *launch);
/* The fastest ok record (of size n when n > 0) whose config sets every
 * compile-time parameter of the space as it is now, or NULL. *older counts
 * faster records measured with an earlier version of the space. */
json_t *best_current(space *s, json_t *records, long long n, json_t *part, int *older);
/* The standalone .cu of a variant, as compiled to a cubin. */
char *render_for_cubin(space *s, const device_info *d, const config *params, char **err);
/* 64-bit hash of a text, as 16 hex digits. */
void text_hash(const char *text, char out[17]);

#endif
