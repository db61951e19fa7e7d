/* bartune run: compile, verify and time every variant on this GPU, record
 * each measurement, then emit the best. Also `devices` and `show`. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "compile.h"
#include "emit.h"
#include "progress.h"
#include "proc.h"
#include "results.h"
#include "runner_client.h"
#include "session.h"
#include "util.h"

/* Verifying launches, warm-up and the timed ones: what the runner does after
 * its probe launch, for the time limit. */
enum { LAUNCHES_BESIDES_TIMED = 6 };
static const double SETUP_TIMEOUT = 900; /* CPU reference of a large problem */

typedef struct {
    const options *o;
    space *s;
    device_info dev;
    char key[160], fingerprint[320];
    const char *nvcc_version;
    long long n;
    unsigned long long seed;
    runner_client runner;
    results_store store;
    json_t *done; /* ids recorded under this fingerprint */
    int measured, skipped, failed;
} run_ctx;

static bool parse_device(const char *json, device_info *d) {
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    if (!j) return false;
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", json_string_value(json_object_get(j, "name")));
    snprintf(d->driver, sizeof d->driver, "%s", json_string_value(json_object_get(j, "driver")));
#define GETI(f) d->f = (int)json_integer_value(json_object_get(j, #f))
    GETI(cc_major); GETI(cc_minor); GETI(sms); GETI(max_threads_per_block);
    GETI(max_threads_per_sm); GETI(max_blocks_per_sm); GETI(smem_per_block_optin);
    GETI(smem_per_sm); GETI(regs_per_sm); GETI(l2_bytes); GETI(cuda_version);
#undef GETI
    d->real = true;
    json_decref(j);
    return d->cc_major > 0;
}

/* Starts a runner and reads its device. */
static bool start_runner(run_ctx *c, char **why) {
    if (!runner_start(&c->runner, c->o->runner, 0)) {
        *why = xasprintf("cannot start %s", c->o->runner);
        return false;
    }
    char *ans = NULL;
    runner_result r = runner_request(&c->runner, "info", 60, 0, &ans);
    bool ok = r == RUNNER_OK && parse_device(ans, &c->dev);
    if (!ok) *why = ans ? ans : xstrdup("the runner gave no device");
    else free(ans);
    return ok;
}

static bool setup_problem(run_ctx *c) {
    char req[512], *ans = NULL;
    snprintf(req, sizeof req, "problem %s %lld %llu", space_problem(c->s), c->n, c->seed);
    progress("preparing %s, n = %lld (inputs and CPU reference)", space_problem(c->s), c->n);
    runner_result r = runner_request(&c->runner, req, SETUP_TIMEOUT, 0, &ans);
    if (r != RUNNER_OK) msg_error("the runner could not set up problem '%s': %s", space_problem(c->s), ans ? ans : "interrupted");
    free(ans);
    return r == RUNNER_OK;
}

static bool restart_runner(run_ctx *c) {
    runner_stop(&c->runner);
    device_info keep = c->dev;
    char *why = NULL;
    if (!start_runner(c, &why)) {
        msg_error("could not restart the runner: %s", why);
        free(why);
        return false;
    }
    c->dev = keep;
    return setup_problem(c);
}

static json_t *new_record(run_ctx *c, const variant *v, const config *launch, const char *key,
                          const char *src_hash, const char *status) {
    json_t *rec = json_object();
    config all;
    config_copy(&all, &v->params);
    for (int i = 0; launch && i < launch->count; i++)
        config_set(&all, launch->items[i].name, launch->items[i].value);
    char date[32];
    utc_timestamp(date);
    json_object_set_new(rec, "format", json_string(RESULTS_FORMAT));
    json_object_set_new(rec, "space", json_string(space_name(c->s)));
    json_object_set_new(rec, "status", json_string(status));
    json_object_set_new(rec, "config", config_json(&all));
    json_object_set_new(rec, "derived", config_json(&v->derived));
    json_object_set_new(rec, "key", json_string(key));
    json_object_set_new(rec, "source_hash", json_string(src_hash));
    json_object_set_new(rec, "n", json_integer(c->n));
    json_object_set_new(rec, "seed", json_integer((json_int_t)(c->seed & 0x7fffffffffffffffull)));
    char cc[8];
    snprintf(cc, sizeof cc, "%d.%d", c->dev.cc_major, c->dev.cc_minor);
    json_object_set_new(rec, "device",
                        json_pack("{s:s, s:s, s:i, s:s, s:i}", "name", c->dev.name, "cc", cc,
                                  "sms", c->dev.sms, "driver", c->dev.driver, "cuda",
                                  c->dev.cuda_version));
    json_object_set_new(rec, "fingerprint", json_string(c->fingerprint));
    json_object_set_new(rec, "nvcc", json_string(c->nvcc_version));
    json_object_set_new(rec, "date", json_string(date));
    config_free(&all);
    return rec;
}

static void set_resources(json_t *rec, const resources *r) {
    json_object_set_new(rec, "resources",
                        json_pack("{s:i, s:i, s:i, s:i, s:i}", "registers", r->registers,
                                  "smem_static", r->smem_static, "stack", r->stack,
                                  "spill_stores", r->spill_stores, "spill_loads", r->spill_loads));
}

static bool append(run_ctx *c, json_t *rec) {
    char *err = NULL;
    bool ok = results_append(&c->store, rec, &err);
    const char *id = json_string_value(json_object_get(rec, "id"));
    if (ok && c->done && id) json_object_set_new(c->done, id, json_true());
    if (!ok) {
        msg_error("%s", err);
        free(err);
    }
    json_decref(rec);
    return ok;
}

/* A record with this id measured under this fingerprint already exists.
 * The ids are indexed once (c->done), not searched per measurement. */
static bool recorded(run_ctx *c, const char *id) {
    if (!c->done) {
        c->done = json_object();
        json_t *rec;
        size_t i;
        json_array_foreach(c->store.records, i, rec) {
            const char *rid = json_string_value(json_object_get(rec, "id"));
            const char *fp = json_string_value(json_object_get(rec, "fingerprint"));
            if (rid && fp && !strcmp(fp, c->fingerprint)) json_object_set_new(c->done, rid, json_true());
        }
    }
    return json_object_get(c->done, id) != NULL;
}

static void record_id(const char *key, const config *launch, long long n, char out[17]) {
    char *l = launch ? config_describe(launch) : xstrdup("*");
    char *text = xasprintf("%s|%s|%lld", key, l, n);
    text_hash(text, out);
    free(text);
    free(l);
}

/* Turns a runner answer into the record's status and figures. */
static void fill_measurement(json_t *rec, runner_result r, const char *ans) {
    double med, mn, mx;
    int occ;
    if (r == RUNNER_OK && sscanf(ans, "%lf %lf %lf %d", &med, &mn, &mx, &occ) == 4) {
        json_object_set_new(rec, "median_ms", json_real(med));
        json_object_set_new(rec, "min_ms", json_real(mn));
        json_object_set_new(rec, "max_ms", json_real(mx));
        json_object_set_new(rec, "occupancy", json_integer(occ));
        return;
    }
    char status[64] = "runner_error";
    const char *msg = ans ? ans : "";
    if (r == RUNNER_FAIL && sscanf(ans, "%63s", status) == 1) msg = ans + strlen(status) + (ans[strlen(status)] == ' ');
    if (r == RUNNER_TIMEOUT) snprintf(status, sizeof status, "hang");
    if (r == RUNNER_DIED) snprintf(status, sizeof status, "crash");
    json_object_set_new(rec, "status", json_string(status));
    json_object_set_new(rec, "message", json_string(msg));
}

typedef struct {
    int count;
    config *items;
} launch_list;

/* Every combination of the launch-time values. */
static launch_list launch_combinations(const variant_set *vs) {
    launch_list l = {1, NULL};
    for (int i = 0; i < vs->n_launch; i++) l.count *= vs->launch[i].count;
    l.items = calloc((size_t)l.count, sizeof(config));
    for (int k = 0; k < l.count; k++) {
        int rest = k;
        for (int i = vs->n_launch - 1; i >= 0; i--) {
            const launch_param *p = &vs->launch[i];
            config_set(&l.items[k], p->name, p->values[rest % p->count]);
            rest /= p->count;
        }
    }
    /* config_set appends in reverse; put them in declaration order */
    for (int k = 0; k < l.count; k++) {
        config *cfg = &l.items[k];
        for (int a = 0, b = cfg->count - 1; a < b; a++, b--) {
            kv t = cfg->items[a];
            cfg->items[a] = cfg->items[b];
            cfg->items[b] = t;
        }
    }
    return l;
}

static void compile_tick(void *ctx, const compile_job *job, int done, int total) {
    (void)ctx;
    progress("[compile %d/%d] %s%s", done, total, job->key, job->cached ? " (cached)" : "");
}

/* Asks the runner to verify and time `cubin` (variant v) at `launch`. */
static runner_result runner_measure(run_ctx *c, const char *cubin, const variant *v,
                                    const config *launch, char **ans) {
    char req[8192];
    snprintf(req, sizeof req, "measure %s bartune_kernel %lld %lld %lld %lld %d", cubin,
             config_get_int(&v->derived, "threads", 0), config_get_int(&v->derived, "smem_bytes", 0),
             config_get_int(launch, "blocks_per_sm", 1), config_get_int(&v->params, "tile", 0),
             c->o->reps);
    return runner_request(&c->runner, req, c->o->timeout + 10,
                          c->o->reps + LAUNCHES_BESIDES_TIMED, ans);
}

/* Measures one compiled variant at one launch configuration. Returns false
 * when the run must stop (Ctrl-C, or the runner cannot be restarted). */
static bool measure(run_ctx *c, const variant *v, const compile_job *job, const char *src_hash,
                    const config *launch, const char *id, int index, int total) {
    char *ans = NULL;
    char *desc = config_describe(&v->params), *ldesc = config_describe(launch);
    progress("[%d/%d] measuring %s %s", index, total, desc, ldesc);
    runner_result r = runner_measure(c, job->cubin, v, launch, &ans);
    bool go_on = r != RUNNER_INTERRUPTED;
    if (go_on) {
        json_t *rec = new_record(c, v, launch, job->key, src_hash, "ok");
        json_object_set_new(rec, "id", json_string(id));
        set_resources(rec, &job->res);
        fill_measurement(rec, r, ans);
        const char *st = json_string_value(json_object_get(rec, "status"));
        if (strcmp(st, "ok") != 0) {
            c->failed++;
            if (strcmp(st, "over_occupancy") != 0)
                progress_note("%s: %s %s: %s", st, desc, ldesc,
                              json_string_value(json_object_get(rec, "message")));
        }
        c->measured++;
        bool sticky = !strcmp(st, "runtime_error") || !strcmp(st, "setup_error");
        go_on = append(c, rec); /* rec (and st) belong to the store now */
        /* After an error that poisons its context the runner answers, then
         * exits: wait for that (runner_stop) rather than race it, and start
         * a new one before the next variant. */
        int status;
        bool dead = c->runner.pid <= 0 || proc_poll(c->runner.pid, &status);
        if (dead) c->runner.pid = -1;
        if (dead || sticky) go_on = go_on && restart_runner(c);
    }
    free(ans);
    free(desc);
    free(ldesc);
    return go_on;
}

static void print_row(json_t *rec, const char *label, double best) {
    double med = json_number_value(json_object_get(rec, "median_ms"));
    char *cfg = json_dumps(json_object_get(rec, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    printf("  %-26s %9.4f %9.4f %9.4f %7.2fx  %s\n", label, med,
           json_number_value(json_object_get(rec, "min_ms")),
           json_number_value(json_object_get(rec, "max_ms")), best > 0 ? med / best : 0, cfg);
    free(cfg);
}

/* The table at the end: the best variants, then the space's baselines. */
static void print_summary(space *s, json_t *records, long long n, const char *devname) {
    json_t *best = results_best(records, n);
    if (!best) {
        printf("no variant verified on %s\n", devname);
        return;
    }
    double b = json_number_value(json_object_get(best, "median_ms"));
    printf("\n%s, n = %lld: median/min/max ms over timed launches; x = time / best\n", devname, n);
    printf("  %-26s %9s %9s %9s %8s  %s\n", "", "median", "min", "max", "x", "config");
    json_t *ranked = results_ranked(records, n), *rec;
    size_t i;
    json_array_foreach(ranked, i, rec) {
        if (i == 5) break;
        char label[32];
        snprintf(label, sizeof label, "#%zu", i + 1);
        print_row(rec, label, b);
    }
    json_decref(ranked);
    int count;
    const named_config *named = space_named(s, &count);
    for (int k = 0; k < count; k++) {
        if (named[k].portable) continue;
        json_t *part = config_json(&named[k].cfg);
        json_t *r = results_best_matching(records, part, n);
        if (r) print_row(r, named[k].label, b);
        else printf("  %-26s (not measured on this device)\n", named[k].label);
        json_decref(part);
    }
}

static void count_statuses(json_t *records) {
    json_t *counts = json_object(), *rec;
    size_t i;
    json_array_foreach(records, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "status"));
        json_t *c = json_object_get(counts, st ? st : "?");
        json_object_set_new(counts, st ? st : "?", json_integer(c ? json_integer_value(c) + 1 : 1));
    }
    const char *k;
    json_t *v;
    printf("records by status:");
    json_object_foreach(counts, k, v) printf(" %s %lld", k, (long long)json_integer_value(v));
    printf("\n");
    json_decref(counts);
}

static int run_all(run_ctx *c, variant_set *vs, char **sources) {
    const options *o = c->o;
    char arch[16];
    device_arch(&c->dev, arch);
    compiler comp = {.nvcc = o->nvcc, .cache_dir = o->cache, .arch = arch, .jobs = o->jobs,
                     .timeout = o->compile_timeout};
    if (!compiler_init(&comp)) return EXIT_FAILURE_;
    c->nvcc_version = comp.version;
    compile_job *jobs = calloc((size_t)vs->count, sizeof *jobs);
    for (int i = 0; i < vs->count; i++) {
        jobs[i].source = sources[i];
        compile_key(&comp, &jobs[i]);
    }
    launch_list ll = launch_combinations(vs);
    int rc = EXIT_OK;
    if (!compile_all(&comp, jobs, vs->count, compile_tick, NULL)) rc = EXIT_INTERRUPTED;
    bool problem_ready = false;
    int total = vs->count * ll.count, index = 0;
    for (int i = 0; i < vs->count && rc == EXIT_OK; i++) {
        char src_hash[17], id[17];
        text_hash(sources[i], src_hash);
        if (jobs[i].status != COMPILE_OK) {
            index += ll.count;
            record_id(jobs[i].key, NULL, c->n, id);
            if (recorded(c, id) && !o->retime) continue;
            json_t *rec = new_record(c, &vs->items[i], NULL, jobs[i].key, src_hash,
                                     compile_status_name(jobs[i].status));
            json_object_set_new(rec, "id", json_string(id));
            json_object_set_new(rec, "message", json_string(jobs[i].log ? jobs[i].log : ""));
            char *desc = config_describe(&vs->items[i].params);
            progress_note("%s: %s (log in the record)", compile_status_name(jobs[i].status), desc);
            free(desc);
            c->failed++;
            if (!append(c, rec)) rc = EXIT_FAILURE_;
            continue;
        }
        for (int k = 0; k < ll.count && rc == EXIT_OK; k++) {
            index++;
            record_id(jobs[i].key, &ll.items[k], c->n, id);
            if (recorded(c, id) && !o->retime) {
                c->skipped++;
                continue;
            }
            if (!problem_ready && !(problem_ready = setup_problem(c))) rc = EXIT_FAILURE_;
            else if (!measure(c, &vs->items[i], &jobs[i], src_hash, &ll.items[k], id, index, total))
                rc = proc_interrupted ? EXIT_INTERRUPTED : EXIT_FAILURE_;
        }
    }
    progress_end();
    for (int i = 0; i < vs->count; i++) compile_job_free(&jobs[i]);
    free(jobs);
    for (int k = 0; k < ll.count; k++) config_free(&ll.items[k]);
    free(ll.items);
    c->nvcc_version = NULL;
    compiler_free(&comp);
    return rc;
}

static bool check_launch_params(const variant_set *vs, const char *file) {
    for (int i = 0; i < vs->n_launch; i++)
        if (strcmp(vs->launch[i].name, "blocks_per_sm") != 0) {
            msg_error("%s: launch parameter '%s' is not one the runner applies (it knows "
                      "blocks_per_sm); make it a param() instead",
                      file, vs->launch[i].name);
            return false;
        }
    return true;
}

int cmd_run(const options *o) {
    run_ctx c = {.o = o};
    c.s = session_open_space(o);
    if (!c.s) return EXIT_INPUT;
    char *why = NULL;
    if (!start_runner(&c, &why)) {
        msg_error("no GPU to tune on: %s\n(list, render, compile and emit work without one)", why);
        free(why);
        runner_stop(&c.runner);
        space_close(c.s);
        return EXIT_NO_GPU;
    }
    device_key(&c.dev, c.key);
    device_fingerprint(&c.dev, c.fingerprint);
    c.n = o->n ? o->n : space_n(c.s);
    c.seed = (unsigned long long)time(NULL) * 2654435761ull ^ (unsigned long long)getpid();
    variant_set vs;
    int rc = EXIT_OK;
    char **sources = NULL;
    if (!session_variants(c.s, o, &c.dev, &vs)) {
        rc = EXIT_INPUT;
    } else if (!check_launch_params(&vs, space_file(c.s))) {
        rc = EXIT_INPUT;
    } else {
        /* Render everything before anything is written: a template error
         * leaves results/ untouched. */
        sources = calloc((size_t)vs.count, sizeof *sources);
        for (int i = 0; i < vs.count && rc == EXIT_OK; i++) {
            char *err = NULL;
            sources[i] = render_for_cubin(c.s, &c.dev, &vs.items[i].params, &err);
            if (!sources[i]) {
                msg_error("%s", err);
                free(err);
                rc = EXIT_INPUT;
            }
        }
    }
    char *dir = path_join(o->results, c.key), *err = NULL;
    if (rc == EXIT_OK && !results_open(&c.store, dir, space_name(c.s), &err)) {
        msg_error("%s", err);
        free(err);
        rc = EXIT_FAILURE_;
    } else if (rc == EXIT_OK) {
        fprintf(stderr, "bartune: %s on %s (%s): %d variants x launch values, results in %s\n",
                space_name(c.s), c.dev.name, c.key, vs.count, c.store.path);
        rc = run_all(&c, &vs, sources);
        fprintf(stderr, "bartune: %d measured, %d already recorded, %d not ok\n", c.measured,
                c.skipped, c.failed);
        print_summary(c.s, c.store.records, c.n, c.dev.name);
        count_statuses(c.store.records);
        results_close(&c.store);
        json_decref(c.done);
        if (rc == EXIT_OK && !o->no_emit && !emit_headers(c.s, o->results, NULL, o->kernels))
            rc = EXIT_FAILURE_;
    }
    free(dir);
    if (sources) {
        for (int i = 0; i < vs.count; i++) free(sources[i]);
        free(sources);
        variant_set_free(&vs);
    }
    runner_stop(&c.runner);
    space_close(c.s);
    return rc;
}

int cmd_devices(const options *o) {
    run_ctx c = {.o = o};
    char *why = NULL;
    if (!start_runner(&c, &why)) {
        msg_error("no GPU: %s", why);
        free(why);
        runner_stop(&c.runner);
        return EXIT_NO_GPU;
    }
    device_key(&c.dev, c.key);
    printf("%s: %s, compute capability %d.%d, %d SMs, %d KiB shared memory per block, driver %s, "
           "CUDA %d.%d\n",
           c.key, c.dev.name, c.dev.cc_major, c.dev.cc_minor, c.dev.sms,
           c.dev.smem_per_block_optin / 1024, c.dev.driver, c.dev.cuda_version / 1000,
           c.dev.cuda_version % 1000 / 10);
    runner_stop(&c.runner);
    return EXIT_OK;
}

/* Prints one results file's summary. */
static bool show_file(space *s, const char *path) {
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(path, &dropped, &err);
    if (!recs) {
        msg_error("%s", err);
        free(err);
        return false;
    }
    json_t *first = json_array_get(recs, 0);
    const char *name = first ? json_string_value(json_object_get(json_object_get(first, "device"), "name")) : NULL;
    printf("== %s (%zu records%s)\n", path, json_array_size(recs), dropped ? ", torn lines dropped" : "");
    print_summary(s, recs, space_n(s), name ? name : "?");
    count_statuses(recs);
    json_decref(recs);
    return true;
}

int cmd_show(const options *o) {
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    bool ok = true;
    if (o->records) {
        ok = show_file(s, o->records);
    } else {
        DIR *d = opendir(o->results);
        struct dirent *e;
        int shown = 0;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            char *path = xasprintf("%s/%s/%s.jsonl", o->results, e->d_name, space_name(s));
            if (file_exists(path)) ok = show_file(s, path) && ok, shown++;
            free(path);
        }
        if (d) closedir(d);
        if (!shown) printf("no results for %s under %s\n", space_name(s), o->results);
    }
    space_close(s);
    return ok ? EXIT_OK : EXIT_INPUT;
}

/* bartune bench: the card's ceilings, the floor they give this problem, and
 * the recorded best beside the space's baselines, all measured again side by
 * side in one runner. */
typedef struct {
    const char *label;
    json_t *rec;
} bench_entry;

static bool bench_one(run_ctx *c, compiler *comp, const bench_entry *e, double floor_ms,
                      double best_ms, double *ms_out) {
    config params = {0}, launch = {0}, derived = {0};
    config_from_json(json_object_get(e->rec, "config"), c->s, &params, &launch);
    config_from_json(json_object_get(e->rec, "derived"), NULL, &derived, NULL);
    char *err = NULL;
    char *src = render_for_cubin(c->s, &c->dev, &params, &err);
    bool ok = src != NULL;
    compile_job job = {.source = src};
    if (!ok) {
        msg_error("%s: %s", e->label, err);
        free(err);
    } else {
        compile_key(comp, &job);
        ok = compile_all(comp, &job, 1, NULL, NULL) && job.status == COMPILE_OK;
    }
    if (ok) {
        variant var = {params, derived};
        char *ans = NULL;
        runner_result r = runner_measure(c, job.cubin, &var, &launch, &ans);
        double med = 0, mn, mx;
        int occ;
        ok = r == RUNNER_OK && sscanf(ans, "%lf %lf %lf %d", &med, &mn, &mx, &occ) == 4;
        char *desc = config_describe(&params), *ldesc = config_describe(&launch);
        if (ok) {
            *ms_out = med;
            printf("  %-26s %9.4f %9.4f %9.4f %10.3f %9.2fx  %s %s\n", e->label, med, mn, mx,
                   floor_ms / med, best_ms > 0 ? med / best_ms : 1.0, desc, ldesc);
        } else {
            printf("  %-26s failed: %s\n", e->label, ans ? ans : "interrupted");
        }
        free(desc);
        free(ldesc);
        free(ans);
    }
    compile_job_free(&job);
    free(src);
    config_free(&params);
    config_free(&launch);
    config_free(&derived);
    return ok;
}

int cmd_bench(const options *o) {
    if (o->n_overrides) {
        msg_error("bench times the recorded best and the baselines; it takes no k=v (got %s)",
                  o->overrides[0]);
        return EXIT_USAGE;
    }
    run_ctx c = {.o = o};
    c.s = session_open_space(o);
    if (!c.s) return EXIT_INPUT;
    if (!space_bytes_per_item(c.s) && !space_fma_per_item(c.s)) {
        msg_error("%s: space{} declares neither bytes_per_item nor fma_per_item: no floor to "
                  "compare with",
                  space_file(c.s));
        space_close(c.s);
        return EXIT_INPUT;
    }
    char *why = NULL;
    if (!start_runner(&c, &why)) {
        msg_error("no GPU to benchmark on: %s", why);
        free(why);
        runner_stop(&c.runner);
        space_close(c.s);
        return EXIT_NO_GPU;
    }
    device_key(&c.dev, c.key);
    c.n = o->n ? o->n : space_n(c.s);
    c.seed = (unsigned long long)time(NULL) * 2654435761ull;
    char *path = xasprintf("%s/%s/%s.jsonl", o->results, c.key, space_name(c.s)), *err = NULL;
    int dropped, rc = EXIT_OK;
    json_t *recs = results_load(path, &dropped, &err);
    int older = 0;
    json_t *best = recs ? best_current(c.s, recs, c.n, NULL, &older) : NULL;
    if (!recs || !best) {
        msg_error("%s: %s", path, recs ? "no verified result at this n: run bartune run first" : err);
        rc = EXIT_INPUT;
    }
    char arch[16];
    device_arch(&c.dev, arch);
    compiler comp = {.nvcc = o->nvcc, .cache_dir = o->cache, .arch = arch, .jobs = 1,
                     .timeout = o->compile_timeout};
    char *ans = NULL;
    double copy = 0, dtod = 0, fmas = 0;
    if (rc == EXIT_OK && (!compiler_init(&comp) || !setup_problem(&c))) rc = EXIT_FAILURE_;
    if (rc == EXIT_OK) {
        progress("measuring the ceilings");
        if (runner_request(&c.runner, "floor", 120, 0, &ans) != RUNNER_OK ||
            sscanf(ans, "%lf %lf %lf", &copy, &dtod, &fmas) != 3) {
            msg_error("measuring the ceilings failed: %s", ans ? ans : "no answer");
            rc = EXIT_FAILURE_;
        }
        progress_end();
    }
    if (rc == EXIT_OK) {
        double bw = copy > dtod ? copy : dtod;
        double mem_ms = (double)c.n * (double)space_bytes_per_item(c.s) / (bw * 1e6);
        double fma_ms = (double)c.n * (double)space_fma_per_item(c.s) / fmas * 1e3;
        double floor_ms = mem_ms > fma_ms ? mem_ms : fma_ms;
        printf("%s on %s, n = %lld\n", space_name(c.s), c.dev.name, c.n);
        printf("ceilings: copy kernel %.0f GB/s, cudaMemcpy device-to-device %.0f GB/s, FMA %.2f T/s\n",
               copy, dtod, fmas * 1e-12);
        printf("floor: %.4f ms = max(memory %.4f ms: %lld B/element at %.0f GB/s, FMA %.4f ms: "
               "%lld FMA/element)\n",
               floor_ms, mem_ms, space_bytes_per_item(c.s), bw, fma_ms, space_fma_per_item(c.s));
        printf("  %-26s %9s %9s %9s %10s %10s  %s\n", "", "median", "min", "max", "floor/time",
               "x best", "config");
        bench_entry best_e = {"tuned best", best};
        double best_ms = 0, ms;
        if (!bench_one(&c, &comp, &best_e, floor_ms, 0, &best_ms)) rc = EXIT_FAILURE_;
        int count;
        const named_config *named = space_named(c.s, &count);
        for (int i = 0; i < count; i++) {
            if (named[i].portable) continue;
            json_t *part = config_json(&named[i].cfg);
            bench_entry e = {named[i].label, best_current(c.s, recs, c.n, part, &older)};
            json_decref(part);
            if (!e.rec) printf("  %-26s (no verified record; run bartune run)\n", e.label);
            else bench_one(&c, &comp, &e, floor_ms, best_ms, &ms);
        }
    }
    free(ans);
    free(path);
    json_decref(recs);
    compiler_free(&comp);
    runner_stop(&c.runner);
    space_close(c.s);
    return rc;
}
