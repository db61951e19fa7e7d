/* results/<device>/<space>.jsonl: one JSON record per line, append-only,
 * each write flushed to disk, guarded by a lock file. A torn last line (a
 * killed writer) is dropped, never a reason to fail. */
#ifndef BARTUNE_RESULTS_H
#define BARTUNE_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *path;
    int fd;          /* append */
    int lock_fd;     /* flock'd while open */
    json_t *records; /* array */
} results_store;

/* Opens (creating) dir/<space>.jsonl under an exclusive lock, waiting with a
 * message if another bartune holds it; loads the records, which must be of
 * device `key`. */
bool results_open(results_store *s, const char *dir, const char *space, const char *key,
                  char **err);
bool results_append(results_store *s, json_t *record, char **err);
void results_close(results_store *s);

/* Sealed history: <space>.jsonl.gz beside <space>.jsonl (`bartune seal`
 * moves the plain records there). results_load reads it first, then the
 * plain file that runs append to. */
char *results_sealed_path(const char *path);
/* A .gz file's text through gzip -dc (bounded), or NULL with *err. */
char *results_inflate(const char *gz, size_t *len, char **err);
/* Moves the records of an open store's plain file into its sealed history:
 * the .gz rewritten whole (checked before it replaces the old), then the
 * plain file emptied. *moved: how many lines. */
bool results_seal(results_store *s, int *moved, char **err);

/* Reads every record of a file (no lock), with its sealed history first (a
 * path ending .gz: that alone). *dropped counts a torn last line.
 * A record that fails record_check (another format, another device than
 * `want_key` when given, a field of the wrong type) is an error. */
json_t *results_load(const char *path, const char *want_key, int *dropped, char **err);

/* What ranks records: "median_ms" (the default) or "joules" (run, emit,
 * show and bench --rank energy: the energy a call in sustained launches;
 * records without it are not ranked). */
void results_rank_by(const char *key);
bool results_by_energy(void);
/* A record's value under that ranking, lower is better; -1 if it has none. */
double results_rank_value(json_t *rec);
/* Its status as a search sees it: an ok record without a ranked value
 * (rejected early: no sustained launches) is "rejected". */
const char *results_rank_status(json_t *rec);

/* The "ok" records (at `sizes` when given), best first: a new array. */
json_t *results_ranked(json_t *records, json_t *sizes);
/* The best "ok" record under the ranking (least median_ms, or joules), or NULL. */
json_t *results_best(json_t *records, json_t *sizes);
/* Best ok record whose config contains all of `part` (a JSON object),
 * at `sizes` when given. */
json_t *results_best_matching(json_t *records, json_t *part, json_t *sizes);

/* Calls fn for every <dir>/<key>/<space>.jsonl (one folder per device);
 * *ok turns false when a call does, and the walk stops there unless
 * keep_going. Returns how many files it found. */
int results_each_device(const char *dir, const char *space, bool keep_going,
                        bool (*fn)(void *ctx, const char *key, const char *path), void *ctx,
                        bool *ok);
/* The size tuples the records are at, in order of first appearance. */
json_t *results_sizes(json_t *records);
/* The records at one size tuple (a new array). */
json_t *results_at(json_t *records, json_t *sizes);
/* The records' landscapes (one array of records per size tuple), the size
 * tuples nearest `sizes` first (sum of |log2| of the sizes' ratios), the one
 * at `sizes` itself left out with skip_same: what a search there starts from. */
/* With `full`, each size tuple is taken with its missing sizes filled in by
 * full(ctx, tuple) (a new reference, or NULL to leave it as it is): a
 * record from before a size was declared was measured at its default, so
 * it joins the landscape of the tuple it completes to (after that tuple's
 * earlier records: a later measurement of a config counts). */
json_t *results_landscapes_near(json_t *records, json_t *sizes, bool skip_same,
                                json_t *(*full)(void *ctx, json_t *sizes), void *ctx);

#endif
