/* What several commands share: opening the space named on the command line,
 * the device to expand it for, the sizes to tune at, and finding the best
 * record that the space as it is now would still produce. */
#ifndef BARTUNE_SESSION_H
#define BARTUNE_SESSION_H

#include <jansson.h>

#include "compile.h"
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
/* The sizes of an instance (space_instance) as an object name -> value. */
json_t *session_sizes_of(json_t *instance);
/* Does a recorded size tuple hold every --size k=v given (replay, show)? */
bool session_sizes_match(const options *o, json_t *sizes);
/* The digest of how records at an instance's sizes are verified now: its
 * buffers, views, distributions, scalars and check sizes, and the runner's
 * checks (VERIFY_VERSION). A record is current only with this digest. */
void verification_digest(json_t *instance, char out[17]);
/* A record's config split into compile-time values and launch values. */
void session_split(space *s, json_t *config_obj, config *params, config *launch);
/* Faster records a ranking passed over: `remeasured` (an earlier version
 * of the space rendered them otherwise, or they were verified under other
 * checks: bartune run measures them again) and `gone` (variants the space
 * no longer expands: a value it no longer declares, or a constraint that
 * rules them out; never measured again). */
typedef struct {
    int remeasured, gone;
} passed_over;
/* The fastest ok record at `sizes` whose config contains `part` (or any),
 * which the space as it is now expands and renders to the same source it
 * was measured with, and which was verified under the checks it declares
 * now (its "verified" digest: verification_digest); *p counts the faster
 * ones passed over. */
json_t *best_current(space *s, json_t *records, json_t *sizes, json_t *part, passed_over *p);
/* The warning of what a ranking passed over in `path` (nothing when p holds
 * nothing). */
void passed_over_warn(const char *path, space *s, const passed_over *p);
/* best_current, or with `checked` false the same among records verified
 * under any checks (show lists those when no record is verified now). */
json_t *best_current_as(space *s, json_t *records, json_t *sizes, json_t *part, passed_over *p,
                        bool checked);
/* Does the space as it is now expand this record's config, launch values
 * included (values it declares, constraints that pass)? */
bool session_expands(space *s, json_t *rec);
/* The verification digest at `sizes` as the space declares it now ("" when
 * it no longer takes these sizes). */
void session_digest_at(space *s, json_t *sizes, char out[17]);
/* Whether a ranking may take `rec`: not rejected early (one launch, no check
 * sizes run), the space still expands it, renders it as it was measured, and
 * (digest not NULL) it was verified under the checks of that digest; else
 * counted in *p (a rejected record is not counted: it was never a candidate). */
bool session_rankable(space *s, json_t *rec, const char *digest, passed_over *p);
/* Would the space as it is now render this record's config to the source
 * it was measured with? */
bool session_current(space *s, json_t *rec);
/* The standalone .cu of a variant, as compiled to a cubin. */
char *render_for_cubin(space *s, const device_info *d, const config *params, char **err);
/* render_for_cubin for a command that keeps its sources: *held counts what
 * it holds; past the limit (2 GiB: twice a script's memory) NULL and *err. */
char *render_held(space *s, const device_info *d, const config *params, size_t *held, char **err);
/* Keys `job` (its source set) for the variant `params` on d, with the
 * variant's own architecture (sm_90a where its derive() says so). */
void job_key(space *s, const device_info *d, const config *params, const compiler *comp,
             compile_job *job);
/* 64-bit hash of a text, as 16 hex digits. */
void text_hash(const char *text, char out[17]);

#endif
