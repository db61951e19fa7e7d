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
#include "schedule.h"
#include "session.h"
#include "summary.h"
#include "util.h"

static void compile_tick(void *ctx, const compile_job *job, int done, int total) {
    (void)ctx;
    progress("[compile %d/%d] %s%s", done, total, job->key, job->cached ? " (cached)" : "");
}

static void pool_poll(void *pool) {
    compile_pool_poll(pool);
}

/* The best ok record so far at sizes (early rejection compares with it). */
static double best_so_far(run_ctx *c) {
    json_t *best = results_best(c->store.records, c->sizes);
    return best ? json_number_value(json_object_get(best, "median_ms")) : 0;
}

static int run_all(run_ctx *c, json_t *sizes, json_t *instances) {
    const options *o = c->o;
    gpu *g0 = &c->lanes[0]->g;
    char arch[16];
    space_compile_arch(c->s, &g0->dev, NULL, arch);
    compiler comp = {.nvcc = o->nvcc,
                     .cache_dir = o->cache,
                     .arch = arch,
                     .jobs = o->jobs,
                     .timeout = o->compile_timeout};
    if (!compiler_init(&comp)) return EXIT_FAILURE_;
    c->nvcc_version = comp.version;
    int n = c->vs->count;
    c->comp = &comp;
    c->jobs = calloc((size_t)n, sizeof *c->jobs);
    for (int i = 0; i < n; i++) { /* a strategy's variants are rendered when asked */
        c->jobs[i].source = c->sources[i];
        if (c->sources[i]) job_key(c->s, &g0->dev, &c->vs->items[i].params, &comp, &c->jobs[i]);
    }
    int rc = EXIT_OK;
    /* Compile while measuring: nvcc works through the variants in the
     * background (polled while the runners measure) and a GPU takes each
     * variant as soon as it is compiled. */
    c->pool = o->strategy ? compile_pool_open(&comp, c->jobs, n, compile_tick, NULL)
                          : compile_pool_start(&comp, c->jobs, n, compile_tick, NULL);
    runner_idle = c->pool ? pool_poll : NULL;
    runner_idle_ctx = c->pool;
    for (size_t z = 0; z < json_array_size(sizes) && rc == EXIT_OK; z++) {
        c->sizes = json_array_get(sizes, z);
        /* this tuple's instance with its check sizes (the list holds none) */
        char *err = NULL;
        json_t *full = space_instance(c->s, c->sizes, true, &err);
        if (!full) {
            msg_error("%s", err);
            free(err);
            rc = EXIT_INPUT;
            break;
        }
        json_array_set_new(instances, z, full);
        c->instance = full;
        verification_digest(c->instance, c->digest);
        c->best_ms = best_so_far(c);
        rc = o->strategy ? schedule_search(c) : schedule_all(c);
        if (rc == EXIT_OK && o->sanitize) {
            record_base b = schedule_record_base(c, g0);
            if (!gpu_problem(g0, c->sizes, c->instance) ||
                !sanitize_best(g0, &comp, c->store.records, &b, schedule_append, c))
                rc = proc_interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE_;
        }
    }
    runner_idle = NULL;
    compile_pool_free(c->pool);
    c->pool = NULL;
    progress_end();
    for (int i = 0; i < n; i++)
        compile_job_free(&c->jobs[i]);
    free(c->jobs);
    c->jobs = NULL;
    c->nvcc_version = NULL;
    c->comp = NULL;
    compiler_free(&comp);
    return rc;
}

/* Renders everything before anything is written: a template error leaves
 * results/ untouched. */
static char **render_all(space *s, const device_info *dev, variant_set *vs) {
    char **sources = calloc((size_t)vs->count, sizeof *sources);
    size_t held = 0;
    for (int i = 0; i < vs->count; i++) {
        char *err = NULL;
        sources[i] = render_held(s, dev, &vs->items[i].params, &held, &err);
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

/* --shard I/N: the variants whose source hashes to I mod N, so that every
 * launch value of one cubin lands in the same shard and no shard compiles
 * another's. Deterministic from the space alone (not nvcc or the host). */
static void keep_shard(const options *o, variant_set *vs, char **sources) {
    if (o->shard_count <= 1) return;
    int kept = 0;
    for (int i = 0; i < vs->count; i++) {
        char hash[17];
        text_hash(sources[i], hash);
        if (strtoull(hash, NULL, 16) % (unsigned)o->shard_count == (unsigned)o->shard_index) {
            vs->items[kept] = vs->items[i];
            sources[kept++] = sources[i];
        } else {
            variant_free(&vs->items[i]);
            free(sources[i]);
        }
    }
    fprintf(stderr, "bartune: shard %d/%d: %d of %d variants\n", o->shard_index, o->shard_count,
            kept, vs->count);
    vs->count = kept;
}

/* One device key: its variants, its results file, its GPUs. */
static int run_key(run_ctx *c, json_t *sizes, json_t *instances) {
    const options *o = c->o;
    gpu *g0 = &c->lanes[0]->g;
    variant_set vs = {0};
    char **sources = NULL;
    int rc = EXIT_OK;
    if (!session_variants(c->s, o, &g0->dev, &vs)) rc = EXIT_INPUT;
    if (rc == EXIT_OK && !o->strategy && vs.count > 5000)
        fprintf(stderr,
                "bartune: note: measuring all %d variants (nvcc takes about a second each per "
                "core); --strategy ils --budget 10m searches instead\n",
                vs.count);
    /* Measuring everything renders everything first (a template error leaves
     * results/ untouched); a strategy renders what it asks for, when it asks
     * (a space of 60k variants would take minutes). */
    if (rc == EXIT_OK && o->strategy)
        sources = calloc((size_t)vs.count + 1, sizeof *sources);
    else if (rc == EXIT_OK && !(sources = render_all(c->s, &g0->dev, &vs)))
        rc = EXIT_INPUT;
    if (rc == EXIT_OK) keep_shard(o, &vs, sources);
    char *dir = path_join(o->results, g0->key), *err = NULL;
    if (rc == EXIT_OK && !results_open(&c->store, dir, space_name(c->s), g0->key, &err)) {
        msg_error("%s", err);
        free(err);
        rc = EXIT_INPUT;
    } else if (rc == EXIT_OK) {
        fprintf(stderr,
                "bartune: %s on %s (%s, %d GPU%s): %d variants x launch values x %zu size(s), "
                "results in %s\n",
                space_name(c->s), g0->dev.name, g0->key, c->n_lanes, c->n_lanes > 1 ? "s" : "",
                vs.count, json_array_size(sizes), c->store.path);
        if (o->strategy && o->budget_seconds > 0)
            fprintf(stderr, "bartune: strategy %s: %.0f s for each of the %zu size tuple(s)\n",
                    o->strategy, o->budget_seconds, json_array_size(sizes));
        else if (o->strategy)
            fprintf(stderr,
                    "bartune: strategy %s: %d configurations for each of the %zu size "
                    "tuple(s)\n",
                    o->strategy, o->budget, json_array_size(sizes));
        c->vs = &vs;
        c->sources = sources;
        rc = run_all(c, sizes, instances);
        fprintf(stderr, "bartune: %d measured, %d already recorded, %d not ok\n", c->measured,
                c->skipped, c->failed);
        if (c->checked)
            fprintf(stderr,
                    "bartune: verifying at the check sizes took %.1f ms of the %.1f ms the "
                    "runner spent on a measure (mean over the %d that ran them)\n",
                    c->checks_ms / c->checked, c->measure_ms / c->checked, c->checked);
        for (int i = 0; c->n_lanes > 1 && i < c->n_lanes; i++)
            fprintf(stderr, "bartune: GPU %d measured %d%s\n", c->lanes[i]->g.ordinal,
                    c->lanes[i]->measured, c->lanes[i]->lost ? " (then lost its runner)" : "");
        for (size_t z = 0; z < json_array_size(sizes) && !proc_interrupted; z++)
            print_summary(c->s, c->store.records, json_array_get(sizes, z), g0->dev.name);
        count_statuses(c->store.records);
        results_close(&c->store);
        json_decref(c->done);
        c->done = NULL;
    }
    free(dir);
    if (sources) {
        for (int i = 0; i < vs.count; i++)
            free(sources[i]);
        free(sources);
    }
    if (vs.items) variant_set_free(&vs);
    return rc;
}

/* --gpus: "all", or numbers such as 0,2,3 (default: GPU 0). Opens a runner
 * on each; *n gets how many. Prints why not on failure. */
static int open_lanes(const options *o, space *s, lane **out, int *n) {
    *n = 0;
    lane *first = calloc(1, sizeof *first);
    int want[64], count = 0;
    const char *spec = o->gpus ? o->gpus : "0";
    bool all = !strcmp(spec, "all");
    if (!all)
        for (const char *p = spec; *p && count < 64; p += *p == ',') {
            char *end;
            want[count++] = (int)strtol(p, &end, 10);
            p = end;
        }
    int rc = gpu_open(&first->g, o, s, all ? 0 : want[0]);
    if (rc != EXIT_OK) {
        free(first);
        return rc;
    }
    if (all) {
        count = first->g.devices < 64 ? first->g.devices : 64;
        for (int i = 0; i < count; i++)
            want[i] = i;
    }
    lane *lanes = calloc((size_t)count, sizeof *lanes);
    lanes[0] = *first;
    free(first);
    *n = 1;
    for (int i = 1; i < count && rc == EXIT_OK; i++) {
        if (want[i] >= lanes[0].g.devices) {
            msg_error("--gpus %s: there is no GPU %d (the driver sees %d, numbered from 0)", spec,
                      want[i], lanes[0].g.devices);
            rc = EXIT_USAGE;
            break;
        }
        rc = gpu_open(&lanes[i].g, o, s, want[i]);
        if (rc == EXIT_OK) (*n)++;
    }
    *out = lanes;
    return rc;
}

int cmd_run(const options *o) {
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    /* Sizes first: a bad --size is said without a GPU. */
    json_t *instances = NULL, *sizes = session_sizes(s, o, &instances);
    lane *lanes = NULL;
    int n = 0;
    int rc = sizes ? open_lanes(o, s, &lanes, &n) : EXIT_INPUT;
    /* Identical cards (same fingerprint: name, architecture, SMs, driver)
     * are measured together into their key's results file; each other kind
     * of card is tuned for itself, one kind after another. */
    bool *taken = calloc((size_t)n + 1, sizeof *taken);
    lane **group = calloc((size_t)n + 1, sizeof *group);
    for (int i = 0; i < n && rc == EXIT_OK; i++) {
        if (taken[i]) continue;
        run_ctx c = {.o = o, .s = s, .lanes = group};
        for (int k = i; k < n; k++)
            if (!taken[k] && !strcmp(lanes[k].g.fingerprint, lanes[i].g.fingerprint)) {
                taken[k] = true;
                group[c.n_lanes++] = &lanes[k];
            }
        rc = run_key(&c, sizes, instances);
    }
    if (rc == EXIT_OK && !o->no_emit && !emit_headers(s, o->results, NULL, o->kernels))
        rc = EXIT_FAILURE_;
    for (int i = 0; i < n; i++)
        gpu_close(&lanes[i].g);
    free(lanes);
    free(taken);
    free(group);
    /* Interrupted: bartune exits now; freeing the instances of a tune list
     * of 10^5 sizes would take seconds. */
    if (proc_interrupted) return EXIT_INTERRUPTED;
    json_decref(sizes);
    json_decref(instances);
    space_close(s);
    return rc;
}
