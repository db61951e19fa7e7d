#include "schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "progress.h"
#include "record.h"
#include "session.h"
#include "strategy.h"
#include "util.h"

enum { NEXT_ITEM, NEXT_WAIT, NEXT_DONE, NEXT_ERROR };
enum { BATCH = 8 }; /* configurations a strategy is asked for at once */

static bool append(run_ctx *c, json_t *rec) {
    char *err = NULL;
    bool ok = results_append(&c->store, rec, &err);
    const char *id = json_string_value(json_object_get(rec, "id"));
    if (ok && c->done && id) json_object_set(c->done, id, rec);
    if (!ok) {
        msg_error("%s", err);
        free(err);
    }
    json_decref(rec);
    return ok;
}

bool schedule_append(void *ctx, json_t *rec) {
    return append(ctx, rec);
}

/* --retry: is a record of this status to be measured again? */
static bool retried(const options *o, const char *status) {
    size_t n = strlen(status);
    for (const char *p = o->retry; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, status, n)) return true;
        p = end ? end + 1 : p + len;
    }
    return false;
}

/* The record with this id measured under this fingerprint, or NULL.
 * The ids are indexed once (c->done), not searched per measurement. */
static json_t *recorded(run_ctx *c, const char *id) {
    if (!c->done) {
        c->done = json_object();
        json_t *rec;
        size_t i;
        json_array_foreach(c->store.records, i, rec) {
            const char *fp = json_string_value(json_object_get(rec, "fingerprint"));
            const char *st = json_string_value(json_object_get(rec, "status"));
            if (!strcmp(fp, c->lanes[0]->g.fingerprint) && !retried(c->o, st))
                json_object_set(c->done, json_string_value(json_object_get(rec, "id")), rec);
        }
    }
    json_t *rec = json_object_get(c->done, id);
    const char *st = json_string_value(json_object_get(rec, "status"));
    const char *v = json_string_value(json_object_get(rec, "verified"));
    if (rec && !strcmp(st, "ok") && (!v || strcmp(v, c->digest)))
        return NULL; /* verified under other checks: measured again */
    return rec;
}

record_base schedule_record_base(run_ctx *c, const gpu *g) {
    return (record_base){.space = space_name(c->s),
                         .problem = json_string_value(json_object_get(space_problem(c->s), "name")),
                         .fingerprint = g->fingerprint,
                         .nvcc = c->nvcc_version,
                         .runner_log = g->log,
                         .dev = &g->dev,
                         .sizes = c->sizes,
                         .seed = c->o->seed};
}

static void set_resources(json_t *rec, const resources *r) {
    json_object_set_new(rec, "resources",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "registers", r->registers,
                                  "smem_static", r->smem_static, "stack", r->stack, "spill_stores",
                                  r->spill_stores, "spill_loads", r->spill_loads));
}

/* What the strategy is told of a record (nothing when measuring all), and
 * whether the record cost a measurement, for the budget. */
static int tell(run_ctx *c, int cand, const char *id) {
    json_t *rec = recorded(c, id);
    if (!cand || !rec) return EXIT_OK;
    const char *st = json_string_value(json_object_get(rec, "status"));
    if (strcmp(st, "over_occupancy") && strcmp(st, "compile_error") &&
        strcmp(st, "compile_timeout"))
        c->spent++;
    c->asked_empty = false; /* news: the strategy may have more to ask */
    char *err = NULL;
    /* its value as records are ranked (time, or energy) */
    if (space_search_tell(c->s, cand, results_rank_status(rec), results_rank_value(rec), &err))
        return EXIT_OK;
    msg_error("%s", err);
    free(err);
    return EXIT_INPUT;
}

/* A variant that did not compile: one record per size tuple. */
static bool record_compile_failure(run_ctx *c, const variant *v, const compile_job *job,
                                   const char *id) {
    if (recorded(c, id) && !c->o->retime) return true;
    char src_hash[17];
    text_hash(c->sources[v - c->vs->items], src_hash);
    record_base b = schedule_record_base(c, &c->lanes[0]->g);
    json_t *rec = record_new(&b, &v->params, &v->derived, &(config){0}, id, job->key, src_hash,
                             compile_status_name(job->status));
    json_object_set_new(rec, "message", json_string(job->log ? job->log : ""));
    char *desc = config_describe(&v->params);
    progress_note("%s: %s (log in the record)", compile_status_name(job->status), desc);
    free(desc);
    c->failed++;
    return append(c, rec);
}

static double reject_ms(const run_ctx *c) {
    return c->o->reject > 0 && c->best_ms > 0 ? c->o->reject * c->best_ms : 0;
}

/* The progress line: what starts now, and with several GPUs the count each
 * has measured and the rate of all together. */
static void show(run_ctx *c, const lane *l, const char *desc) {
    if (c->n_lanes == 1) {
        progress("[%d/%d] measuring %s", c->index, c->total, desc);
        return;
    }
    char counts[256] = "";
    size_t n = 0;
    for (int i = 0; i < c->n_lanes && n < sizeof counts - 32; i++)
        n += (size_t)snprintf(counts + n, sizeof counts - n, "%sgpu%d %d", i ? ", " : "",
                              c->lanes[i]->g.ordinal, c->lanes[i]->measured);
    double t = now_seconds() - c->started;
    progress("[%d/%d] %s; %.1f/s | gpu%d: %s", c->index, c->total, counts,
             t > 0 ? c->measured / t : 0.0, l->g.ordinal, desc);
}

static int finish(run_ctx *c, lane *l, runner_result r, json_t *ans);

/* Sends one configuration to lane l's runner. */
static int start(run_ctx *c, lane *l, const work_item *it) {
    if (!gpu_problem(&l->g, c->sizes, c->instance)) return EXIT_FAILURE_;
    const variant *v = &c->vs->items[it->vi];
    config values;
    config_merge(&values, &v->params, &v->launches[it->li]);
    char *desc = config_describe(&values);
    show(c, l, desc);
    free(desc);
    json_t *refused;
    bool ok =
        gpu_measure_send(&l->g, c->jobs[it->vi].cubin, &values, reject_ms(c), &l->geo, &refused);
    config_free(&values);
    if (!ok) return EXIT_INPUT; /* launch() is broken (the space's error): said already */
    l->busy = true;
    l->vi = it->vi;
    l->li = it->li;
    l->cand = it->cand;
    c->inflight++;
    /* a geometry no GPU launches: recorded as such, nothing was sent */
    return refused ? finish(c, l, RUNNER_FAIL, refused) : EXIT_OK;
}

/* After an error that poisons its context the runner answers, then exits:
 * wait for that rather than race it, and start a new one. A GPU whose
 * runner cannot be restarted is left out; the others go on. */
static void revive(run_ctx *c, lane *l, bool sticky) {
    int status;
    bool dead = l->g.runner.pid <= 0 || proc_poll(l->g.runner.pid, &status);
    if (dead) l->g.runner.pid = -1;
    if ((dead || sticky) && !gpu_restart(&l->g)) {
        l->lost = true;
        if (c->n_lanes > 1)
            progress_note("bartune: GPU %d is left out of this run (its runner could not be "
                          "restarted; see %s); the other GPUs go on",
                          l->g.ordinal, l->g.log);
    }
}

/* Lane l's answer: recorded, told, the best so far updated. */
static int finish(run_ctx *c, lane *l, runner_result r, json_t *ans) {
    l->busy = false;
    c->inflight--;
    json_t *geo = l->geo;
    l->geo = NULL;
    if (r == RUNNER_INTERRUPTED) {
        json_decref(ans);
        json_decref(geo);
        return EXIT_INTERRUPTED;
    }
    const variant *v = &c->vs->items[l->vi];
    const compile_job *job = &c->jobs[l->vi];
    char src_hash[17], id[17];
    text_hash(c->sources[l->vi], src_hash);
    record_id(job->key, &v->launches[l->li], c->sizes, id);
    record_base b = schedule_record_base(c, &l->g);
    json_t *rec =
        record_new(&b, &v->params, &v->derived, &v->launches[l->li], id, job->key, src_hash, "ok");
    json_object_set(rec, "geometry", geo);
    set_resources(rec, &job->res);
    record_set_answer(rec, ans, r == RUNNER_OK);
    /* verified at the tuned sizes and at every check size (a rejected one
     * can never be the best: its checks are not run) */
    size_t want = json_array_size(json_object_get(c->instance, "checks"));
    if (r == RUNNER_OK &&
        (json_integer_value(json_object_get(ans, "checked")) == (json_int_t)want ||
         json_is_true(json_object_get(ans, "rejected"))))
        json_object_set_new(rec, "verified", json_string(c->digest));
    json_decref(ans);
    json_decref(geo);
    const char *st = json_string_value(json_object_get(rec, "status"));
    bool ok = !strcmp(st, "ok"),
         sticky = !strcmp(st, "runtime_error") || !strcmp(st, "setup_error");
    if (!ok) {
        c->failed++;
        if (strcmp(st, "over_occupancy")) {
            char *desc = config_describe(&v->params);
            progress_note("%s: %s: %s", st, desc,
                          json_string_value(json_object_get(rec, "message")));
            free(desc);
        }
    } else if (!json_is_true(json_object_get(rec, "rejected"))) {
        double ms = json_number_value(json_object_get(rec, "median_ms"));
        if (c->best_ms <= 0 || ms < c->best_ms) c->best_ms = ms;
    }
    if (json_object_get(rec, "checks_ms")) {
        c->checks_ms += json_number_value(json_object_get(rec, "checks_ms"));
        c->measure_ms += json_number_value(json_object_get(rec, "measure_ms"));
        c->checked++;
    }
    c->measured++;
    l->measured++;
    if (!append(c, rec)) return EXIT_FAILURE_; /* rec belongs to the store now */
    int rc = tell(c, l->cand, id);
    revive(c, l, sticky);
    return rc;
}

/* Waits up to `ms` for the GPUs' answers (nvcc is polled meanwhile) and
 * takes in those that came. */
static int collect(run_ctx *c, int ms) {
    runner_client *rs[64];
    int n = 0;
    for (int i = 0; i < c->n_lanes && n < 64; i++)
        if (c->lanes[i]->busy) rs[n++] = &c->lanes[i]->g.runner;
    runner_wait(rs, n, ms);
    int rc = EXIT_OK;
    for (int i = 0; i < c->n_lanes && rc == EXIT_OK; i++) {
        lane *l = c->lanes[i];
        runner_result r;
        json_t *ans;
        if (l->busy && runner_receive(&l->g.runner, &r, &ans)) rc = finish(c, l, r, ans);
    }
    if (rc == EXIT_OK && proc_interrupted) rc = EXIT_INTERRUPTED;
    return rc;
}

/* Waits for variant vi's cubin, taking in the GPUs' answers meanwhile. */
static int await_compile(run_ctx *c, int vi) {
    compile_pool_push(c->pool, vi);
    int rc = EXIT_OK;
    while (rc == EXIT_OK && c->jobs[vi].status == COMPILE_PENDING)
        rc = collect(c, 5);
    return rc;
}

/* One configuration: recalled from the records, recorded as a compile
 * failure, or sent to lane l (which is free). */
static int take(run_ctx *c, const work_item *it, lane *l) {
    int rc = await_compile(c, it->vi);
    if (rc != EXIT_OK) return rc;
    const variant *v = &c->vs->items[it->vi];
    const compile_job *job = &c->jobs[it->vi];
    char id[17];
    c->index++;
    if (job->status != COMPILE_OK) {
        record_id(job->key, NULL, c->sizes, id);
        if (it->li == 0 || it->cand) /* one record for all its launch values */
            if (!record_compile_failure(c, v, job, id)) return EXIT_FAILURE_;
        return tell(c, it->cand, id);
    }
    record_id(job->key, &v->launches[it->li], c->sizes, id);
    if (recorded(c, id) && !c->o->retime) {
        c->skipped++;
        return tell(c, it->cand, id);
    }
    return start(c, l, it);
}

static lane *free_lane(run_ctx *c) {
    for (int i = 0; i < c->n_lanes; i++)
        if (!c->lanes[i]->busy && !c->lanes[i]->lost) return c->lanes[i];
    return NULL;
}

/* Feeds what next() gives to free GPUs until it has nothing more and
 * nothing is in flight. */
static int drive(run_ctx *c, int (*next)(run_ctx *, work_item *)) {
    int rc = EXIT_OK;
    bool done = false;
    c->started = now_seconds();
    while (rc == EXIT_OK) {
        lane *l = free_lane(c);
        if (!done && l) {
            work_item it;
            int k = next(c, &it);
            if (k == NEXT_ERROR) return EXIT_INPUT;
            if (k == NEXT_ITEM) {
                rc = take(c, &it, l);
                continue;
            }
            done = k == NEXT_DONE;
        }
        if (c->inflight == 0) {
            if (!done && !l) {
                msg_error("no GPU left to measure on: every runner died and could not be "
                          "restarted (see the runner logs in %s)",
                          c->o->cache);
                rc = EXIT_FAILURE_;
            }
            break;
        }
        rc = collect(c, 200);
    }
    return rc;
}

/* Measuring everything: variant by variant, launch by launch. */
static int next_in_order(run_ctx *c, work_item *it) {
    while (c->next_vi < c->vs->count && c->next_li >= c->vs->items[c->next_vi].n_launches) {
        c->next_vi++;
        c->next_li = 0;
    }
    if (c->next_vi >= c->vs->count) return NEXT_DONE;
    *it = (work_item){.vi = c->next_vi, .li = c->next_li++, .cand = 0};
    return NEXT_ITEM;
}

int schedule_all(run_ctx *c) {
    c->total = 0;
    for (int i = 0; i < c->vs->count; i++)
        c->total += c->vs->items[i].n_launches;
    c->index = c->next_vi = c->next_li = 0;
    return drive(c, next_in_order);
}

/* Candidate id (1-based, variant by variant, launch by launch) -> indices. */
static bool locate(const variant_set *vs, int id, int *vi, int *li) {
    for (int i = 0, first = 1; i < vs->count; first += vs->items[i].n_launches, i++)
        if (id < first + vs->items[i].n_launches) {
            *vi = i;
            *li = id - first;
            return id >= first;
        }
    return false;
}

/* Renders variant vi if it is not yet (a strategy's), and keys its job. */
static bool rendered(run_ctx *c, int vi) {
    if (c->sources[vi]) return true;
    char *err = NULL;
    c->sources[vi] =
        render_held(c->s, &c->lanes[0]->g.dev, &c->vs->items[vi].params, &c->held, &err);
    if (!c->sources[vi]) {
        msg_error("%s", err);
        free(err);
        return false;
    }
    c->jobs[vi].source = c->sources[vi];
    job_key(c->s, &c->lanes[0]->g.dev, &c->vs->items[vi].params, c->comp, &c->jobs[vi]);
    return true;
}

/* Asks the strategy for a batch and queues its variants for nvcc. */
static bool ask(run_ctx *c) {
    int ids[BATCH];
    char *err = NULL;
    int n = space_search_ask(c->s, BATCH, ids, &err);
    if (n < 0) {
        msg_error("%s", err);
        free(err);
        return false;
    }
    c->asked_empty = n == 0;
    for (int k = 0; k < n && c->queued < (int)(sizeof c->queue / sizeof c->queue[0]); k++) {
        work_item it = {.cand = ids[k]};
        if (!locate(c->vs, ids[k], &it.vi, &it.li)) continue;
        if (!rendered(c, it.vi)) return false;
        compile_pool_push(c->pool, it.vi);
        c->queue[c->queued++] = it;
    }
    return true;
}

/* Searching: the strategy's next configuration. It is asked a batch ahead,
 * so nvcc compiles the next batch while the GPUs measure this one. */
static int next_asked(run_ctx *c, work_item *it) {
    if (c->spent + c->inflight >= c->budget || now_seconds() >= c->deadline)
        return c->inflight ? NEXT_WAIT : NEXT_DONE;
    if (c->queued <= BATCH && !c->asked_empty && !ask(c)) return NEXT_ERROR;
    if (c->queued == 0) return c->inflight ? NEXT_WAIT : NEXT_DONE;
    *it = c->queue[0];
    memmove(c->queue, c->queue + 1, (size_t)--c->queued * sizeof *c->queue);
    return NEXT_ITEM;
}

/* Another device's records (run --warm-from): its landscape at these very
 * sizes goes to `same`, the others (nearest first) to `warm`. */
typedef struct {
    run_ctx *c;
    json_t *warm, *same;
    int devices;
} warm_ctx;

/* Whether recorded size tuple z completes to c's sizes, whose completion is
 * `at` (space_full_sizes of c->sizes, NULL where it has none). */
static bool completes_to(run_ctx *c, json_t *z, json_t *at) {
    json_t *f = z ? space_full_sizes(c->s, z) : NULL;
    bool eq = z && json_equal(f ? f : z, at ? at : c->sizes);
    json_decref(f);
    return eq;
}

/* The landscapes of a records file at c's sizes, the nearest first,
 * appended to warm (the one at these very sizes to same where same is
 * given); how many (0 for a file that cannot be read, said as `what`'s
 * warning). */
static size_t warm_append(run_ctx *c, json_t *warm, json_t *same, const char *path,
                          const char *what) {
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(path, NULL, &dropped, &err), *near, *l;
    if (!recs) {
        msg_warn("%s: %s (left out)", what, err);
        free(err);
        return 0;
    }
    near = results_landscapes_near(recs, c->sizes, false, space_full_sizes, c->s);
    json_t *at = same ? space_full_sizes(c->s, c->sizes) : NULL;
    size_t i, n = json_array_size(near);
    json_array_foreach(near, i, l) {
        json_t *z = json_object_get(json_array_get(l, 0), "sizes"); /* a landscape: one tuple */
        json_array_append(same && completes_to(c, z, at) ? same : warm, l);
    }
    json_decref(at);
    json_decref(near);
    json_decref(recs);
    return n;
}

static bool warm_each(void *ctx, const char *key, const char *path) {
    warm_ctx *w = ctx;
    const options *o = w->c->o;
    if (!strcmp(key, w->c->lanes[0]->g.key) ||
        (strcmp(o->warm_from, "all") && strcmp(o->warm_from, key)))
        return true;
    w->devices += warm_append(w->c, w->warm, w->same, path, "--warm-from") > 0;
    return true;
}

/* The landscapes of the spaces this one extends (space{ extends }: the
 * same parameters, other constraints or problem), recorded on this device,
 * the nearest size tuples first, appended to the warm list; how many, and
 * in *names the spaces that gave any. */
static size_t warm_extended(run_ctx *c, json_t *warm, char **names) {
    json_t *bases = json_object_get(space_problem(c->s), "space_extends"), *name;
    size_t i, n = 0;
    json_array_foreach(bases, i, name) {
        char *path =
            xasprintf("%s/%s/%s.jsonl", c->o->results, c->lanes[0]->g.key, json_string_value(name));
        size_t got =
            file_exists(path) ? warm_append(c, warm, NULL, path, "the space it extends") : 0;
        free(path);
        if (got) {
            char *more = xasprintf("%s%s%s", *names ? *names : "", *names ? ", " : "",
                                   json_string_value(name));
            free(*names);
            *names = more;
        }
        n += got;
    }
    return n;
}

/* This size tuple's ok records of this device verified under other checks
 * (the problem's checks changed since) or of a variant that renders
 * otherwise now (its templates or space changed since): measured again, so
 * the strategy is not told of them, yet they are the best guide to this
 * tuple there is. */
static json_t *verified_before(run_ctx *c) {
    /* the recorded size tuples that complete to this one (each completed once) */
    json_t *at = space_full_sizes(c->s, c->sizes), *here = json_array(), *out = json_array();
    json_t *raw = results_sizes(c->store.records), *z, *rec;
    size_t i, k;
    json_array_foreach(raw, i, z) if (completes_to(c, z, at)) json_array_append(here, z);
    json_array_foreach(c->store.records, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "status"));
        const char *fp = json_string_value(json_object_get(rec, "fingerprint"));
        const char *v = json_string_value(json_object_get(rec, "verified"));
        if (!st || strcmp(st, "ok") || !fp || strcmp(fp, c->lanes[0]->g.fingerprint)) continue;
        bool at_here = false;
        json_array_foreach(here, k, z) at_here = at_here || json_equal(z, json_object_get(rec, "sizes"));
        /* rendered last: it runs the template */
        if (at_here && (!v || strcmp(v, c->digest) || !session_current(c->s, rec)))
            json_array_append(out, rec);
    }
    json_decref(here);
    json_decref(raw);
    json_decref(at);
    return out;
}

/* What a search starts from: this tuple's records verified under other
 * checks (their best first: after a change of the checks a search verifies
 * the old bests again before it explores), then the devices --warm-from
 * names at these very sizes, then the fastest of this device's other size
 * tuples, the nearest first (recorded timings under any checks: they only
 * order the first candidates asked), then the other devices' other tuples;
 * nothing with --warm-from none. The same shape on another card before
 * another shape on this one: the shape decides more than the card (an H100
 * warm from the H200 with this device's other tuples first measured none of
 * the H200's tall-K kinds in six tries, and its best took 2.1x the H200's
 * best kind there; NOTES.md, twenty-seventh session). Says so on stderr. */
static json_t *warm_landscapes(run_ctx *c) {
    const options *o = c->o;
    if (o->warm_from && !strcmp(o->warm_from, "none")) {
        fprintf(stderr, "bartune: strategy %s starts cold (--warm-from none)\n", o->strategy);
        return json_array();
    }
    json_t *warm =
        results_landscapes_near(c->store.records, c->sizes, true, space_full_sizes, c->s);
    json_t *before = verified_before(c);
    const size_t again = json_array_size(before);
    if (again) {
        json_array_insert_new(warm, 0, before);
        fprintf(stderr,
                "bartune: strategy %s measures again first the %zu record(s) of these sizes "
                "verified under other checks or of variants that render otherwise now, the "
                "fastest first\n",
                o->strategy, again);
    } else {
        json_decref(before);
    }
    size_t own = json_array_size(warm) - (again ? 1 : 0);
    warm_ctx w = {c, warm, json_array(), 0};
    bool ok = true;
    if (o->warm_from) results_each_device(o->results, space_name(c->s), true, warm_each, &w, &ok);
    size_t i, same = json_array_size(w.same);
    for (i = 0; i < same; i++)
        json_array_insert(warm, (again ? 1 : 0) + i, json_array_get(w.same, i));
    json_decref(w.same);
    if (o->warm_from && !w.devices)
        msg_warn("--warm-from %s: no records of %s for %s under %s", o->warm_from, space_name(c->s),
                 !strcmp(o->warm_from, "all") ? "another device" : "that device", o->results);
    size_t others = json_array_size(warm) - own - (again ? 1 : 0);
    char *base = NULL;
    size_t based = warm_extended(c, warm, &base);
    if (json_array_size(warm)) {
        fprintf(stderr,
                "bartune: strategy %s starts from the fastest of %zu other size tuple(s) "
                "recorded for this device and %zu landscape(s) of %d other device(s)",
                o->strategy, own, others, w.devices);
        if (same) fprintf(stderr, " (%zu at these sizes first)", same);
        if (based) fprintf(stderr, ", then %zu of the space it extends (%s)", based, base);
        fprintf(stderr, "\n");
    }
    free(base);
    return warm;
}

int schedule_search(run_ctx *c) {
    const options *o = c->o;
    char *err = NULL, *chunk = NULL;
    char *text = strategy_load(o, &chunk);
    if (!text) return EXIT_INPUT;
    c->budget = o->budget_seconds > 0 ? 1L << 40 : o->budget;
    json_t *warm = warm_landscapes(c);
    bool ok = space_search_start(c->s, &c->lanes[0]->g.dev, o->overrides, o->n_overrides, text,
                                 chunk, c->budget, o->seed, warm, &err);
    json_decref(warm);
    free(text);
    free(chunk);
    if (!ok) {
        msg_error("%s", err);
        free(err);
        return EXIT_INPUT;
    }
    /* The inputs and CPU reference first: a time budget is for searching
     * (8192^3's reference took most of a minute of a 60 s budget). */
    for (int i = 0; i < c->n_lanes; i++)
        if (!gpu_problem(&c->lanes[i]->g, c->sizes, c->instance)) return EXIT_FAILURE_;
    c->deadline = now_seconds() + (o->budget_seconds > 0 ? o->budget_seconds : 1e12);
    c->spent = c->inflight = c->queued = c->index = 0;
    c->asked_empty = false;
    c->total = 0;
    for (int i = 0; i < c->vs->count; i++)
        c->total += c->vs->items[i].n_launches;
    if (c->budget < c->total) c->total = (int)c->budget;
    int rc = drive(c, next_asked);
    fprintf(stderr, "bartune: strategy %s: %d configurations measured or recalled\n", o->strategy,
            c->spent);
    return rc;
}
