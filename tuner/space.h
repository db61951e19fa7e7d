/* The C side of a search space and its problem. The Lua state lives behind
 * this interface: nothing but space_lua.c includes lua.h. What C takes from
 * Lua is copied out with raw access and checked here. */
#ifndef BARTUNE_SPACE_H
#define BARTUNE_SPACE_H

#include <jansson.h>

#include "config.h"
#include "device.h"

typedef struct space space;

/* Seconds one call into Lua may take (--script-timeout). */
extern double space_seconds_limit;

/* Loads gen/lib under `root` and the space script at `path`; templates come
 * from `templates_dir`. The space's problem is problems/<name>.lua beside
 * the script, else root/gen/problems/<name>.lua; its CPU reference is
 * <templates_dir>/<name>/reference.c, else root/templates/<name>/reference.c.
 * templates_dir NULL: templates/ beside the script (what a user's own folder
 * holds). NULL and *err (owned by the caller) on failure. */
space *space_open(const char *path, const char *root, const char *templates_dir, char **err);
void space_close(space *s);

const char *space_name(const space *s);
const char *space_file(const space *s);
/* The problem as plain data: name, file, verify, sizes [{name, type}],
 * scalars [{name, type, value}], buffers [{name, type, role}], args,
 * signature, tune [{size: value}...]. Owned by the space. */
json_t *space_problem(const space *s);
/* The nvcc architecture of a variant (`values`; NULL: of the space's
 * variants in general) on d: "sm_90", or "sm_90a" on sm_90 and up for a
 * problem{ arch_specific = true } (wgmma) or a variant whose derive() sets
 * arch_specific = true (setmaxnreg in a space of plain variants). */
void space_compile_arch(space *s, const device_info *d, const config *values, char out[16]);
/* Whether a variant (`values`; NULL: the space's variants in general) is
 * built for its architecture's own features: the problem's arch_specific
 * (on any device, as the header's usable() has always read it), or the
 * variant's derive() on d of sm_90 and up. */
bool space_variant_specific(space *s, const device_info *d, const config *values);
/* templates/<problem>/reference.c as found, and the folder holding it. */
const char *space_reference_source(const space *s);
const char *space_reference_dir(const space *s);
/* The folder templates are read from first (--templates, or templates/). */
const char *space_templates_dir(const space *s);
/* templates/<rel> in the space's templates folder, else in bartune's own
 * (so a space of its own can use the shared pieces, pipeline/sync_*.cuh):
 * the path of the first that exists, or NULL with *looked (owned, when not
 * NULL) naming both places. */
char *space_template_path(const space *s, const char *rel, char **looked);
/* True when `name` is a launch_param() of the space (tried per compiled
 * variant, not part of its source). */
bool space_is_launch_param(const space *s, const char *name);
/* The compile-time parameters, in declaration order (values unused). */
const config *space_params(const space *s);
/* The baselines and the portable config the script declared. */
const named_config *space_named(const space *s, int *count);

/* Expands the space for `dev`, with "k=v" overrides. */
bool space_variants(space *s, const device_info *dev, char **overrides, int n_overrides,
                    variant_set *out, char **err);
/* Renders one config (compile-time values; launch values are ignored);
 * `extra` adds names for the template (kernel_name, emit...). With `host`,
 * the space's host template (emitted headers), "" if it has none. Returns
 * the source, or NULL and *err. */
char *space_render(space *s, const device_info *dev, const config *values, const config *extra,
                   bool host, char **err);
/* Whether `values` (compile-time and launch values) name a variant of the
 * space on dev: every parameter that applies has a value (with `whole`,
 * every launch parameter too: a named config is launched as declared), none
 * other has one, the constraints hold. false and *err otherwise. */
bool space_validate(space *s, const device_info *dev, const config *values, bool whole, char **err);
/* A template that fails to render a variant the space accepts is an error
 * of the template, not a stale record: said once (with err), and remembered
 * so that emit writes no header over a good one. */
void space_template_failed(space *s, const char *config_desc, const char *err);
bool space_template_failing(const space *s);
/* Buffers with lengths, scalars, and the cost model at `sizes` (an object
 * of size name -> integer; missing ones take their defaults):
 * {sizes: [{name, type, value}], scalars: [...], buffers: [{name, type,
 * role, length, init}], bytes, fma}. NULL and *err on failure. */
json_t *space_instance(space *s, json_t *sizes, bool checks, char **err);
/* `sizes` with the problem's defaults filled in for the sizes it lacks (a
 * record from before a size was declared); NULL when they are not sizes of
 * the problem. `s`: the space (untyped: results_landscapes_near's `full`). */
json_t *space_full_sizes(void *s, json_t *sizes);
/* Launch geometry of a config (compile-time and launch values) at `sizes`:
 * {grid: [x, y, z], block: [x, y, z], smem, resident} as integers. With
 * sizes NULL, the same for the header: entries are integers or C++ text
 * over bt_s_<size> and bt_sms; with `at` (measured sizes) that text must
 * evaluate there to what launch() gives for those numbers. NULL and *err
 * on failure. */
json_t *space_geometry(space *s, const device_info *dev, const config *values, json_t *sizes,
                       json_t *at, char **err);

/* The space's reuse() of a config at `sizes`: in *rounds how many times each
 * block goes round its ring (-1: the space declares no reuse()), in *blind
 * why racecheck cannot judge the config (the space's racecheck_blind();
 * NULL where it can; the caller frees it). False and *err when either
 * failed. */
bool space_reuse(space *s, const device_info *dev, const config *values, json_t *sizes,
                 long long *rounds, char **blind, char **err);

/* Replays `strategy` (Lua text, named chunkname) against `records` for
 * seeds 1..seeds with a budget of measured configurations: {runs: [{within:
 * {1, 2, 5}, at: {50, 100, 200, 500}, measured, compiled, compiled_at_2}],
 * candidates, ok, best}. `warm` (NULL: none): an array of other landscapes
 * (each an array of records) the strategy is told of first. recorded: the
 * candidates are those `records` hold (a landscape recorded before the space
 * grew), not every variant of the space. NULL and *err
 * on failure. */
json_t *space_replay(space *s, const device_info *dev, json_t *records, json_t *warm,
                     bool recorded, const char *strategy, const char *chunkname, int seeds,
                     int budget, char **err);

/* A live search (run --strategy): start it over the variants of `dev` (with
 * the k=v overrides), then ask for up to k candidate ids (1-based, in the
 * order of the variant set: variant by variant, launch configuration by
 * launch configuration; 0 when done, -1 on error) and tell what each did.
 * `warm` (NULL: none): other landscapes the strategy is told of first. */
bool space_search_start(space *s, const device_info *dev, char **overrides, int n_overrides,
                        const char *strategy, const char *chunkname, long budget,
                        unsigned long long seed, json_t *warm, char **err);
int space_search_ask(space *s, int k, int *ids, char **err);
bool space_search_tell(space *s, int id, const char *status, double ms, char **err);

#endif
