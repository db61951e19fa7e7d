/* Measuring the variants of one device key on its GPUs: each GPU a lane
 * with its own runner, all fed from one compile pool, in order (every
 * variant) or as a strategy asks; a lane's request is in flight while the
 * others measure and nvcc compiles. */
#ifndef BARTUNE_SCHEDULE_H
#define BARTUNE_SCHEDULE_H

#include <jansson.h>

#include "compile.h"
#include "config.h"
#include "gpu.h"
#include "options.h"
#include "record.h"
#include "results.h"
#include "space.h"

typedef struct {
    gpu g;
    bool busy; /* a measure request in flight */
    bool lost; /* its runner died and could not be restarted */
    int vi, li, cand;
    char id[17];
    json_t *geo;  /* the launch geometry of the request in flight */
    int measured; /* by this GPU, for the progress line */
} lane;

typedef struct {
    int vi, li; /* variant and launch configuration */
    int cand;   /* the strategy's id, 0 when measuring everything */
} work_item;

typedef struct {
    const options *o;
    space *s;
    lane **lanes; /* the GPUs of this device key; lanes[0] speaks for them */
    int n_lanes;
    variant_set *vs;
    compile_job *jobs;
    char **sources; /* NULL where not rendered yet (run --strategy) */
    size_t held;    /* bytes of sources rendered so far (render_held) */
    compiler *comp;
    compile_pool *pool;
    const char *nvcc_version;
    results_store store;
    json_t *sizes, *instance; /* the size tuple being measured */
    char digest[17];          /* verification_digest(instance) */
    json_t *done;             /* ids recorded under this fingerprint */
    double best_ms;           /* the best so far at sizes, for early rejection */
    int measured, skipped, failed;
    /* what verification cost: the runner's time for the measures that ran
     * their check sizes, and for those check sizes */
    double measure_ms, checks_ms;
    int checked;
    int index, total; /* progress */
    double started;
    /* run --strategy */
    long budget;
    double deadline;
    int spent, inflight;
    work_item queue[32];
    int queued;
    bool asked_empty;
    int next_vi, next_li; /* measuring everything: the next one */
} run_ctx;

/* Every variant at every launch configuration, at c->sizes. */
int schedule_all(run_ctx *c);
/* The strategy of --strategy, at c->sizes, until its budget is spent. */
int schedule_search(run_ctx *c);
/* Appends a record to c's results (ctx is the run_ctx); false, printed, on
 * a write error. */
bool schedule_append(void *ctx, json_t *rec);
/* What every record of GPU g in this run shares. */
record_base schedule_record_base(run_ctx *c, const gpu *g);

#endif
