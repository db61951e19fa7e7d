/* bartune run --sanitize: a second opinion on the best few variants from
 * compute-sanitizer (memcheck, racecheck, synccheck), each run in a runner of
 * its own under the tool. What it finds is recorded beside the measurements
 * (status sanitizer_clean, sanitizer_error or sanitizer_failed, the tool, an
 * excerpt of its report, the log); a variant with a sanitizer_error is never
 * emitted or reported as the best. */
#ifndef BARTUNE_SANITIZE_H
#define BARTUNE_SANITIZE_H

#include <jansson.h>

#include "compile.h"
#include "gpu.h"
#include "record.h"

enum { SANITIZE_BEST = 3 };

/* Appends a record (taking it); false when the run must stop. */
typedef bool (*append_fn)(void *ctx, json_t *rec);

/* Checks the SANITIZE_BEST fastest current variants at g's sizes. */
bool sanitize_best(gpu *g, compiler *comp, json_t *records, const record_base *base,
                   append_fn append, void *ctx);
/* A record of the same variant, launch and sizes with a sanitizer_error? */
bool sanitizer_flagged(json_t *records, json_t *rec);

#endif
