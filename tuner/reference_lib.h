/* A problem's CPU reference (templates/<problem>/reference.c) as a shared
 * object the runner loads: built with the host C compiler into the cache,
 * named by a hash of the sources it is built from. */
#ifndef BARTUNE_REFERENCE_LIB_H
#define BARTUNE_REFERENCE_LIB_H

/* Builds (or finds in `cache_dir`) the shared object of `source`, with
 * `problem_dir` (the folder holding <problem>/) and `api_dir` (holding
 * bartune_reference.h) on the include path. Returns its path, or NULL after
 * printing the compiler's errors. *key gets the hash (17 chars). */
char *reference_lib_build(const char *cc, const char *source, const char *problem_dir,
                          const char *api_dir, const char *cache_dir, char key[17]);

#endif
