/* What several commands share: opening the space named on the command line,
 * the device to expand it for, the sizes to tune at, and finding the best
 * record that the space as it is now would still produce. */
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
/* The size tuples to tune at: one from --size k=v when given, else the
 * problem's (or space's) tune list. Each a complete object of sizes, and the
 * space's instance at it in *instances (same order). NULL on error, printed. */
json_t *session_sizes(space *s, const options *o, json_t **instances);
/* A record's config split into compile-time values and launch values. */
void session_split(space *s, json_t *config_obj, config *params, config *launch);
/* The fastest ok record at `sizes` whose config contains `part` (or any)
 * and which the space as it is now renders to the same source it was
 * measured with; *older counts faster records from earlier versions. */
json_t *best_current(space *s, json_t *records, json_t *sizes, json_t *part, int *older);
/* Would the space as it is now render this record's config to the source
 * it was measured with? */
bool session_current(space *s, json_t *rec);
/* The standalone .cu of a variant, as compiled to a cubin. */
char *render_for_cubin(space *s, const device_info *d, const config *params, char **err);
/* render_for_cubin for a command that keeps its sources: *held counts what
 * it holds; past the limit (2 GiB: twice a script's memory) NULL and *err. */
char *render_held(space *s, const device_info *d, const config *params, size_t *held, char **err);
/* 64-bit hash of a text, as 16 hex digits. */
void text_hash(const char *text, char out[17]);

#endif
