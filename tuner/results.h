/* results/<device>/<space>.jsonl: one JSON record per line, append-only,
 * each write flushed to disk, guarded by a lock file. A torn last line (a
 * killed writer) is dropped, never a reason to fail. */
#ifndef BARTUNE_RESULTS_H
#define BARTUNE_RESULTS_H

#include <jansson.h>
#include <stdbool.h>

#define RESULTS_FORMAT "bartune-results-1"

typedef struct {
    char *path;
    int fd;      /* append */
    int lock_fd; /* flock'd while open */
    json_t *records; /* array */
} results_store;

/* Opens (creating) dir/<space>.jsonl under an exclusive lock, waiting with a
 * message if another bartune holds it; loads the records. */
bool results_open(results_store *s, const char *dir, const char *space, char **err);
bool results_append(results_store *s, json_t *record, char **err);
void results_close(results_store *s);

/* Reads every record of a file (no lock). *dropped counts unreadable lines.
 * Records of another format are an error. */
json_t *results_load(const char *path, int *dropped, char **err);

/* The "ok" records (of size n when n > 0), fastest first: a new array. */
json_t *results_ranked(json_t *records, long long n);
/* The best "ok" record (least median_ms), or NULL. */
json_t *results_best(json_t *records, long long n);
/* Best ok record whose config contains all of `part` (a JSON object);
 * n > 0 keeps only records of that problem size. */
json_t *results_best_matching(json_t *records, json_t *part, long long n);

#endif
