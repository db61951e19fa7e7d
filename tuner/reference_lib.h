/* A problem's CPU reference (templates/<problem>/reference.c) as a shared
 * object the runner loads: built with the host C compiler into the cache,
 * named by a hash of the sources it is built from. */
#ifndef BARTUNE_REFERENCE_LIB_H
#define BARTUNE_REFERENCE_LIB_H

#include <jansson.h>
#include <stdbool.h>

/* Builds (or finds in `cache_dir`) the shared object of `source`, with
 * `problem_dir` (the folder holding <problem>/) and `api_dir` (holding
 * bartune_reference.h) on the include path. Returns its path, or NULL after
 * printing the compiler's errors. *key gets the hash (17 chars). */
char *reference_lib_build(const char *cc, const char *source, const char *problem_dir,
                          const char *api_dir, const char *cache_dir, char key[17]);

/* A problem's host baseline (one entry of its host_baselines: label,
 * source, libs), its source and bartune_baseline.h found at `source` and
 * `api`, built with nvcc for `arch` into `cache_dir` with `includes` on the
 * include path, named by a hash of both texts, the arch, the libs and nvcc's
 * version. Returns its path, or NULL after printing why. */
char *host_baseline_build(const char *nvcc, const char *nvcc_version, const char *arch,
                          json_t *baseline, const char *source, const char *api,
                          const char *const includes[2], const char *cache_dir);
/* Runs args (a NULL-ended argv of a compiler, without -o) with "-o" into a
 * temporary file renamed to `lib` on success; on failure prints the
 * compiler's output under "building <what> ... failed". */
bool shared_object_build(const char *const *args, const char *lib, const char *what);

#endif
