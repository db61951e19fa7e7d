/* A results record: one measurement (or one failure) of one variant at one
 * launch configuration and one size tuple. Built here and only here; every
 * reader checks records against the format with record_check. */
#ifndef BARTUNE_RECORD_H
#define BARTUNE_RECORD_H

#include <jansson.h>
#include <stdbool.h>

#include "config.h"
#include "device.h"

#define RESULTS_FORMAT "bartune-results-2"

/* What every record of a run shares. */
typedef struct {
    const char *space, *problem, *fingerprint, *nvcc, *runner_log;
    const device_info *dev;
    json_t *sizes; /* object: size name -> integer */
    unsigned long long seed;
} record_base;

/* Integers as JSON numbers, identifiers as strings. */
json_t *config_json(const config *c);
/* The inverse. Launch parameters of `s` go to `launch` (when given). */
typedef bool (*is_launch_fn)(const void *ctx, const char *name);
void config_from_json(json_t *obj, is_launch_fn is_launch, const void *ctx, config *params,
                      config *launch);

/* "n=268435456 K=4096", in the object's order. */
char *sizes_describe(json_t *sizes);
/* The record id: hash of the compile key, the launch values and the sizes. */
void record_id(const char *key, const config *launch, json_t *sizes, char out[17]);
/* A record with its identity filled; status "ok" until an answer says not. */
json_t *record_new(const record_base *b, const config *params, const config *derived,
                   const config *launch, const char *id, const char *key, const char *src_hash,
                   const char *status);
/* The runner's answer: figures of a measurement, or status and message. */
void record_set_answer(json_t *rec, json_t *answer, bool ok);
/* NULL when `rec` is a record of the current format whose device has the
 * key `want_key` (when given); else what is wrong with it. */
char *record_check(json_t *rec, const char *want_key);
/* The device a record was measured on (record_check passed). */
void record_device(json_t *rec, device_info *d);

#endif
