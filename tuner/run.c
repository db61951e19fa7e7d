/* bartune run: compile every variant, verify and time each one on this GPU
 * at every launch configuration and size, record each measurement, then
 * emit the best. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compile.h"
#include "emit.h"
#include "gpu.h"
#include "proc.h"
#include "progress.h"
#include "record.h"
#include "results.h"
#include "sanitize.h"
#include "session.h"
#include "strategy.h"
#include "summary.h"
#include "util.h"

typedef struct {
    const options *o;
    space *s;
    gpu g;
    const char *nvcc_version;
    results_store store;
    json_t *sizes; /* the size tuple being measured */
    json_t *done;  /* ids recorded under this fingerprint */
    int measured, skipped, failed;
} run_ctx;

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

static bool append_cb(void *ctx, json_t *rec) {
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
            if (!strcmp(fp, c->g.fingerprint) && !retried(c->o, st))
                json_object_set(c->done, json_string_value(json_object_get(rec, "id")), rec);
        }
    }
    return json_object_get(c->done, id);
}

static record_base base_of(run_ctx *c) {
    return (record_base){.space = space_name(c->s),
                         .problem = json_string_value(json_object_get(space_problem(c->s), "name")),
                         .fingerprint = c->g.fingerprint,
                         .nvcc = c->nvcc_version,
                         .runner_log = c->g.log,
                         .dev = &c->g.dev,
                         .sizes = c->sizes,
                         .seed = c->o->seed};
}

static void set_resources(json_t *rec, const resources *r) {
    json_object_set_new(rec, "resources",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "registers", r->registers,
                                  "smem_static", r->smem_static, "stack", r->stack, "spill_stores",
                                  r->spill_stores, "spill_loads", r->spill_loads));
}

/* Measures one compiled variant at one launch configuration. Returns false
 * when the run must stop (Ctrl-C, a broken launch(), or a runner that
 * cannot be restarted). */
static bool measure(run_ctx *c, const variant *v, const compile_job *job, const char *src_hash,
                    const config *launch, const char *id, int index, int total) {
    config values;
    config_merge(&values, &v->params, launch);
    char *desc = config_describe(&values);
    progress("[%d/%d] measuring %s", index, total, desc);
    json_t *ans = NULL, *geo = NULL;
    runner_result r;
    bool go_on = gpu_measure(&c->g, job->cubin, &values, &r, &ans, &geo);
    if (go_on && r == RUNNER_INTERRUPTED)
        go_on = false;
    else if (go_on) {
        record_base b = base_of(c);
        json_t *rec = record_new(&b, &v->params, &v->derived, launch, id, job->key, src_hash, "ok");
        json_object_set(rec, "geometry", geo);
        set_resources(rec, &job->res);
        record_set_answer(rec, ans, r == RUNNER_OK);
        const char *st = json_string_value(json_object_get(rec, "status"));
        if (strcmp(st, "ok") != 0) {
            c->failed++;
            if (strcmp(st, "over_occupancy") != 0)
                progress_note("%s: %s: %s", st, desc,
                              json_string_value(json_object_get(rec, "message")));
        }
        c->measured++;
        bool sticky = !strcmp(st, "runtime_error") || !strcmp(st, "setup_error");
        go_on = append(c, rec); /* rec (and st) belong to the store now */
        /* After an error that poisons its context the runner answers, then
         * exits: wait for that (runner_stop) rather than race it, and start
         * a new one before the next variant. */
        int status;
        bool dead = c->g.runner.pid <= 0 || proc_poll(c->g.runner.pid, &status);
        if (dead) c->g.runner.pid = -1;
        if (dead || sticky) go_on = go_on && gpu_restart(&c->g);
    }
    json_decref(ans);
    json_decref(geo);
    free(desc);
    config_free(&values);
    return go_on;
}

static void compile_tick(void *ctx, const compile_job *job, int done, int total) {
    (void)ctx;
    progress("[compile %d/%d] %s%s", done, total, job->key, job->cached ? " (cached)" : "");
}

/* A variant that did not compile: one record per size tuple. */
static bool record_compile_failure(run_ctx *c, const variant *v, const compile_job *job,
                                   const char *src_hash) {
    char id[17];
    record_id(job->key, NULL, c->sizes, id);
    if (recorded(c, id) && !c->o->retime) return true;
    record_base b = base_of(c);
    json_t *rec = record_new(&b, &v->params, &v->derived, &(config){0}, id, job->key, src_hash,
                             compile_status_name(job->status));
    json_object_set_new(rec, "message", json_string(job->log ? job->log : ""));
    char *desc = config_describe(&v->params);
    progress_note("%s: %s (log in the record)", compile_status_name(job->status), desc);
    free(desc);
    c->failed++;
    return append(c, rec);
}

/* Every variant at every launch configuration, at one size tuple. */
static int measure_at(run_ctx *c, variant_set *vs, compile_job *jobs, char **sources, json_t *sizes,
                      json_t *instance, compile_pool *pool) {
    bool problem_ready = false;
    int total = 0, index = 0;
    for (int i = 0; i < vs->count; i++)
        total += vs->items[i].n_launches;
    c->sizes = sizes; /* the problem is set up when first needed */
    for (int i = 0; i < vs->count; i++) {
        char src_hash[17], id[17];
        text_hash(sources[i], src_hash);
        const variant *v = &vs->items[i];
        if (!compile_pool_wait(pool, i + 1)) return EXIT_INTERRUPTED; /* the rest compile on */
        if (jobs[i].status != COMPILE_OK) {
            index += v->n_launches;
            if (!record_compile_failure(c, v, &jobs[i], src_hash)) return EXIT_FAILURE_;
            continue;
        }
        for (int k = 0; k < v->n_launches; k++) {
            index++;
            record_id(jobs[i].key, &v->launches[k], sizes, id);
            if (recorded(c, id) && !c->o->retime) {
                c->skipped++;
                continue;
            }
            if (!problem_ready && !(problem_ready = gpu_problem(&c->g, sizes, instance)))
                return EXIT_FAILURE_;
            if (!measure(c, v, &jobs[i], src_hash, &v->launches[k], id, index, total))
                return proc_interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE_;
        }
    }
    return EXIT_OK;
}

static void pool_poll(void *pool) {
    compile_pool_poll(pool);
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

/* What the strategy is told of a record: its status and time. */
static bool tell(run_ctx *c, int id, json_t *rec) {
    char *err = NULL;
    bool ok = space_search_tell(c->s, id, json_string_value(json_object_get(rec, "status")),
                                json_number_value(json_object_get(rec, "median_ms")), &err);
    if (!ok) {
        msg_error("%s", err);
        free(err);
    }
    return ok;
}

/* Asks the strategy for a batch; maps its ids to variant and launch indices
 * and queues the variants for nvcc. Returns the count (0: none, -1: error). */
static int ask_batch(run_ctx *c, const variant_set *vs, compile_pool *pool, int *ids, int *vis,
                     int *lis) {
    char *err = NULL;
    int n = space_search_ask(c->s, 8, ids, &err);
    if (n < 0) {
        msg_error("%s", err);
        free(err);
    }
    for (int k = 0; k < n; k++) {
        if (!locate(vs, ids[k], &vis[k], &lis[k]))
            ids[k] = 0, vis[k] = 0;
        else
            compile_pool_push(pool, vis[k]);
    }
    return n;
}

/* One asked candidate: recalled from the records, or measured; then told.
 * *measured counts what cost a measurement. */
static int search_one(run_ctx *c, const variant_set *vs, compile_job *jobs, char **sources,
                      compile_pool *pool, int cand, int vi, int li, json_t *instance,
                      bool *problem_ready, int *measured, int budget) {
    const variant *v = &vs->items[vi];
    if (!compile_pool_wait_job(pool, vi)) return EXIT_INTERRUPTED;
    const compile_job *job = &jobs[vi];
    char src_hash[17], id[17];
    text_hash(sources[vi], src_hash);
    int rc = EXIT_OK;
    if (job->status != COMPILE_OK) {
        if (!record_compile_failure(c, v, job, src_hash)) rc = EXIT_FAILURE_;
        record_id(job->key, NULL, c->sizes, id);
    } else {
        record_id(job->key, &v->launches[li], c->sizes, id);
        if (!recorded(c, id) || c->o->retime) {
            if (!*problem_ready && !(*problem_ready = gpu_problem(&c->g, c->sizes, instance)))
                rc = EXIT_FAILURE_;
            else if (!measure(c, v, job, src_hash, &v->launches[li], id, *measured + 1, budget))
                rc = proc_interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE_;
        } else {
            c->skipped++;
        }
    }
    json_t *rec = rc == EXIT_OK ? recorded(c, id) : NULL;
    if (!rec) return rc;
    const char *st = json_string_value(json_object_get(rec, "status"));
    if (strcmp(st, "over_occupancy") && strcmp(st, "compile_error") &&
        strcmp(st, "compile_timeout"))
        (*measured)++;
    return tell(c, cand, rec) ? EXIT_OK : EXIT_INPUT;
}

/* --strategy: the strategy asks, bartune compiles, measures and tells, until
 * the budget of measured configurations (or of seconds) is spent or the
 * strategy has nothing more to ask. It asks one batch ahead, so nvcc works on
 * the next batch while the GPU measures this one (the strategy hears of a
 * batch's results one batch later). */
static int search_at(run_ctx *c, variant_set *vs, compile_job *jobs, char **sources,
                     compile_pool *pool, json_t *sizes, json_t *instance) {
    const options *o = c->o;
    char *err = NULL, *chunk = NULL;
    char *text = strategy_load(o, &chunk);
    if (!text) return EXIT_INPUT;
    c->sizes = sizes;
    long budget = o->budget_seconds > 0 ? 1L << 40 : o->budget;
    bool ok = space_search_start(c->s, &c->g.dev, o->overrides, o->n_overrides, text, chunk, budget,
                                 o->seed, &err);
    free(text);
    free(chunk);
    if (!ok) {
        msg_error("%s", err);
        free(err);
        return EXIT_INPUT;
    }
    double deadline = now_seconds() + (o->budget_seconds > 0 ? o->budget_seconds : 1e12);
    int measured = 0, rc = EXIT_OK, total = 0;
    for (int i = 0; i < vs->count; i++)
        total += vs->items[i].n_launches;
    int shown = (int)(budget < total ? budget : total);
    bool problem_ready = false;
    int ids[2][8], vis[2][8], lis[2][8], n[2], cur = 0;
    n[cur] = ask_batch(c, vs, pool, ids[cur], vis[cur], lis[cur]);
    while (rc == EXIT_OK && n[cur] > 0 && measured < budget && now_seconds() < deadline) {
        int nxt = 1 - cur;
        n[nxt] =
            measured + n[cur] < budget ? ask_batch(c, vs, pool, ids[nxt], vis[nxt], lis[nxt]) : 0;
        for (int k = 0; k < n[cur] && rc == EXIT_OK && measured < budget; k++)
            if (ids[cur][k])
                rc = search_one(c, vs, jobs, sources, pool, ids[cur][k], vis[cur][k], lis[cur][k],
                                instance, &problem_ready, &measured, shown);
        if (rc == EXIT_OK && n[nxt] == 0 && measured < budget) /* nothing asked ahead: ask now */
            n[nxt] = ask_batch(c, vs, pool, ids[nxt], vis[nxt], lis[nxt]);
        if (n[nxt] < 0) rc = EXIT_INPUT;
        cur = nxt;
    }
    fprintf(stderr, "bartune: strategy %s: %d configurations measured or recalled\n", o->strategy,
            measured);
    return rc;
}

static int run_all(run_ctx *c, variant_set *vs, char **sources, json_t *sizes, json_t *instances) {
    const options *o = c->o;
    char arch[16];
    device_arch(&c->g.dev, arch);
    compiler comp = {.nvcc = o->nvcc,
                     .cache_dir = o->cache,
                     .arch = arch,
                     .jobs = o->jobs,
                     .timeout = o->compile_timeout};
    if (!compiler_init(&comp)) return EXIT_FAILURE_;
    c->nvcc_version = comp.version;
    compile_job *jobs = calloc((size_t)vs->count, sizeof *jobs);
    for (int i = 0; i < vs->count; i++) {
        jobs[i].source = sources[i];
        compile_key(&comp, &jobs[i]);
    }
    int rc = EXIT_OK;
    /* Compile while measuring: nvcc works through the variants in the
     * background (polled while the runner measures) and the GPU takes each
     * variant as soon as it is compiled. */
    compile_pool *pool = o->strategy
                             ? compile_pool_open(&comp, jobs, vs->count, compile_tick, NULL)
                             : compile_pool_start(&comp, jobs, vs->count, compile_tick, NULL);
    runner_idle = pool ? pool_poll : NULL;
    runner_idle_ctx = pool;
    for (size_t z = 0; z < json_array_size(sizes) && rc == EXIT_OK; z++) {
        if (o->strategy)
            rc = search_at(c, vs, jobs, sources, pool, json_array_get(sizes, z),
                           json_array_get(instances, z));
        else
            rc = measure_at(c, vs, jobs, sources, json_array_get(sizes, z),
                            json_array_get(instances, z), pool);
        if (rc == EXIT_OK && o->sanitize) {
            c->sizes = json_array_get(sizes, z);
            record_base b = base_of(c);
            if (!gpu_problem(&c->g, c->sizes, json_array_get(instances, z)) ||
                !sanitize_best(&c->g, &comp, c->store.records, &b, append_cb, c))
                rc = proc_interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE_;
        }
    }
    runner_idle = NULL;
    compile_pool_free(pool);
    progress_end();
    for (int i = 0; i < vs->count; i++)
        compile_job_free(&jobs[i]);
    free(jobs);
    c->nvcc_version = NULL;
    compiler_free(&comp);
    return rc;
}

/* Renders everything before anything is written: a template error leaves
 * results/ untouched. */
static char **render_all(space *s, const device_info *dev, variant_set *vs) {
    char **sources = calloc((size_t)vs->count, sizeof *sources);
    for (int i = 0; i < vs->count; i++) {
        char *err = NULL;
        sources[i] = render_for_cubin(s, dev, &vs->items[i].params, &err);
        if (!sources[i]) {
            msg_error("%s", err);
            free(err);
            for (int k = 0; k < i; k++)
                free(sources[k]);
            free(sources);
            return NULL;
        }
    }
    return sources;
}

int cmd_run(const options *o) {
    run_ctx c = {.o = o};
    c.s = session_open_space(o);
    if (!c.s) return EXIT_INPUT;
    /* Sizes first: a bad --size is said without a GPU. */
    json_t *instances = NULL, *sizes = session_sizes(c.s, o, &instances);
    int rc = sizes ? gpu_open(&c.g, o, c.s) : EXIT_INPUT;
    variant_set vs = {0};
    char **sources = NULL;
    if (rc == EXIT_OK && !sizes) rc = EXIT_INPUT;
    if (rc == EXIT_OK && !session_variants(c.s, o, &c.g.dev, &vs)) rc = EXIT_INPUT;
    if (rc == EXIT_OK && !(sources = render_all(c.s, &c.g.dev, &vs))) rc = EXIT_INPUT;
    char *dir = path_join(o->results, c.g.key), *err = NULL;
    if (rc == EXIT_OK && !results_open(&c.store, dir, space_name(c.s), c.g.key, &err)) {
        msg_error("%s", err);
        free(err);
        rc = EXIT_INPUT;
    } else if (rc == EXIT_OK) {
        fprintf(
            stderr,
            "bartune: %s on %s (%s): %d variants x launch values x %zu size(s), results in %s\n",
            space_name(c.s), c.g.dev.name, c.g.key, vs.count, json_array_size(sizes), c.store.path);
        rc = run_all(&c, &vs, sources, sizes, instances);
        fprintf(stderr, "bartune: %d measured, %d already recorded, %d not ok\n", c.measured,
                c.skipped, c.failed);
        for (size_t z = 0; z < json_array_size(sizes); z++)
            print_summary(c.s, c.store.records, json_array_get(sizes, z), c.g.dev.name);
        count_statuses(c.store.records);
        results_close(&c.store);
        json_decref(c.done);
        if (rc == EXIT_OK && !o->no_emit && !emit_headers(c.s, o->results, NULL, o->kernels))
            rc = EXIT_FAILURE_;
    }
    free(dir);
    if (sources) {
        for (int i = 0; i < vs.count; i++)
            free(sources[i]);
        free(sources);
    }
    if (vs.items) variant_set_free(&vs);
    json_decref(sizes);
    json_decref(instances);
    gpu_close(&c.g);
    space_close(c.s);
    return rc;
}
