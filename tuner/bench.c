/* bartune bench: the card's ceilings, the floor they give the problem's
 * cost model at each tuned size, and the recorded best beside the space's
 * baselines, all measured again side by side in one runner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compile.h"
#include "gpu.h"
#include "proc.h"
#include "progress.h"
#include "record.h"
#include "reference_lib.h"
#include "results.h"
#include "session.h"
#include "util.h"

typedef struct {
    double copy_gbps, dtod_gbps, fma_per_s;
    double mma_per_s; /* bf16 tensor-core multiply-adds; 0 where not measured */
} ceilings;

/* One row: the answer's times against the floor and the tuned best, or why
 * it failed (a runner that died is restarted for the next row). */
static void print_row(gpu *g, const char *label, bool ok, runner_result r, json_t *ans,
                      double floor_ms, double best_ms, const char *desc, double *ms_out) {
    if (ok) {
        double med = json_number_value(json_object_get(ans, "median_ms"));
        *ms_out = med;
        printf("  %-32s %9.4f %9.4f %9.4f %10.3f %9.2fx  %s\n", label, med,
               json_number_value(json_object_get(ans, "min_ms")),
               json_number_value(json_object_get(ans, "max_ms")), floor_ms / med,
               best_ms > 0 ? med / best_ms : 1.0, desc);
        return;
    }
    const char *m = json_string_value(json_object_get(ans, "message"));
    printf("  %-32s failed: %s\n", label, m ? m : "did not compile or launch");
    if (r != RUNNER_OK && g->runner.pid <= 0) gpu_restart(g);
}

/* The sustained figures of an answer (measured with sustain_s), under its
 * row, and into `into` (the saved bench) when not NULL. */
static void print_sustained(json_t *ans, json_t *into) {
    json_t *ms = json_object_get(ans, "sustained_ms");
    if (!json_is_number(ms)) return;
    json_t *j = json_object_get(ans, "joules"), *w = json_object_get(ans, "watts");
    printf("  %-32s %9.4f ms a call", "  sustained", json_number_value(ms));
    if (json_is_number(j))
        printf(", %.1f mJ a call, %.0f W (limit %.0f W)", json_number_value(j) * 1e3,
               json_number_value(w), json_number_value(json_object_get(ans, "power_limit_w")));
    else
        printf(" (no energy: %s)", json_string_value(json_object_get(ans, "no_energy")));
    printf(", %lld calls back to back\n",
           (long long)json_integer_value(json_object_get(ans, "sustained_launches")));
    if (!into) return;
    json_object_set(into, "sustained_ms", ms);
    if (json_is_number(j)) json_object_set(into, "joules", j);
}

/* The sustained race: the baseline's time and energy a call over the
 * tuned best's (above 1: the tuned kernel is ahead). */
static void sustained_ratio(const char *label, json_t *tuned, json_t *base) {
    double t = json_number_value(json_object_get(tuned, "sustained_ms"));
    double b = json_number_value(json_object_get(base, "sustained_ms"));
    if (t <= 0 || b <= 0) return;
    printf("  sustained, %s / tuned: %.2fx the time", label, b / t);
    double tj = json_number_value(json_object_get(tuned, "joules"));
    double bj = json_number_value(json_object_get(base, "joules"));
    if (tj > 0 && bj > 0) printf(", %.2fx the energy", bj / tj);
    printf(" a call\n");
}

/* One row of the table: a label and the record (or declared config) whose
 * variant it measures. Rows are rendered and compiled together (nvcc in
 * parallel), then measured one after another. */
typedef struct {
    char *label;
    json_t *rec;
    char *src;
    compile_job job;
} row;

typedef struct {
    row *rows;
    int n, cap;
} rows;

static void rows_add(rows *r, const char *label, json_t *rec) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->rows = realloc(r->rows, (size_t)r->cap * sizeof *r->rows);
    }
    r->rows[r->n++] = (row){.label = xstrdup(label), .rec = json_incref(rec)};
}

static void rows_free(rows *r) {
    for (int i = 0; i < r->n; i++) {
        free(r->rows[i].label);
        json_decref(r->rows[i].rec);
        free(r->rows[i].src);
        compile_job_free(&r->rows[i].job);
    }
    free(r->rows);
}

/* Renders every row and compiles them all at once. */
static void rows_compile(gpu *g, compiler *comp, rows *r) {
    compile_job *jobs = calloc((size_t)(r->n ? r->n : 1), sizeof *jobs);
    for (int i = 0; i < r->n; i++) {
        config params, launch;
        session_split(g->s, json_object_get(r->rows[i].rec, "config"), &params, &launch);
        char *err = NULL;
        r->rows[i].src = render_for_cubin(g->s, &g->dev, &params, &err);
        if (!r->rows[i].src) {
            msg_error("%s: %s", r->rows[i].label, err);
            free(err);
        }
        jobs[i].source = r->rows[i].src;
        if (jobs[i].source) job_key(g->s, &g->dev, &params, comp, &jobs[i]);
        config_free(&params);
        config_free(&launch);
    }
    /* the jobs without a source are skipped: compile only those with one */
    int n = 0;
    for (int i = 0; i < r->n; i++)
        if (jobs[i].source) jobs[n++] = jobs[i];
    compile_all(comp, jobs, n, NULL, NULL);
    for (int i = 0, k = 0; i < r->n; i++)
        if (r->rows[i].src) r->rows[i].job = jobs[k++];
    free(jobs);
}

/* Measures one compiled row; prints it (its sustained figures into
 * `sustained` where measured and that is not NULL). */
static bool bench_one(gpu *g, row *w, double floor_ms, double best_ms, double *ms_out,
                      json_t *sustained) {
    config params, launch, values;
    session_split(g->s, json_object_get(w->rec, "config"), &params, &launch);
    config_merge(&values, &params, &launch);
    bool ok = w->src && w->job.status == COMPILE_OK;
    json_t *ans = NULL, *geo = NULL;
    runner_result r = RUNNER_FAIL;
    if (ok) ok = gpu_measure(g, w->job.cubin, &values, 0, &r, &ans, &geo) && r == RUNNER_OK;
    char *desc = config_describe(&values);
    print_row(g, w->label, ok, r, ans, floor_ms, best_ms, desc, ms_out);
    if (ok) print_sustained(ans, sustained);
    free(desc);
    json_decref(ans);
    json_decref(geo);
    config_free(&params);
    config_free(&launch);
    config_free(&values);
    return ok;
}

static bool measure_ceilings(gpu *g, ceilings *c) {
    progress("measuring the ceilings");
    json_t *req = json_pack("{s:s}", "op", "floor"), *ans;
    runner_result r = runner_request(&g->runner, req, 300, &ans);
    progress_end();
    json_decref(req);
    c->copy_gbps = json_number_value(json_object_get(ans, "copy_gbps"));
    c->dtod_gbps = json_number_value(json_object_get(ans, "dtod_gbps"));
    c->fma_per_s = json_number_value(json_object_get(ans, "fma_per_s"));
    c->mma_per_s = json_number_value(json_object_get(ans, "mma_per_s"));
    bool ok = r == RUNNER_OK && c->copy_gbps > 0 && c->dtod_gbps > 0 && c->fma_per_s > 0;
    if (!ok)
        msg_error("measuring the ceilings failed: %s",
                  json_string_value(json_object_get(ans, "message")));
    json_decref(ans);
    return ok;
}

/* The best of each kind, by the space's group parameters (barrier kind,
 * producer kind...), measured again: the answer to "which kind wins here". */
static void bench_kinds(gpu *g, json_t *recs, json_t *sizes, rows *out) {
    json_t *names = json_object_get(space_problem(g->s), "group"), *name;
    size_t i;
    json_array_foreach(names, i, name) {
        json_t *seen = json_object(), *rec;
        size_t k;
        json_array_foreach(recs, k, rec) {
            json_t *v = json_object_get(json_object_get(rec, "config"), json_string_value(name));
            if (!v || !json_equal(json_object_get(rec, "sizes"), sizes)) continue;
            char *text = json_dumps(v, JSON_ENCODE_ANY);
            if (!json_object_get(seen, text)) {
                json_object_set_new(seen, text, json_true());
                json_t *part = json_pack("{s:O}", json_string_value(name), v);
                passed_over older;
                json_t *best = best_current(g->s, recs, sizes, part, &older);
                char *label = xasprintf("best %s=%s", json_string_value(name),
                                        json_is_string(v) ? json_string_value(v) : text);
                if (best) rows_add(out, label, best);
                free(label);
                json_decref(part);
            }
            free(text);
        }
        json_decref(seen);
    }
}

/* One size tuple: the floor, the tuned best, the baselines, the best of
 * each kind, the problem's host baselines (built: host_libs). EXIT_INPUT
 * means one thing alone, said here: no verified result there (cmd_bench
 * passes over such a tuple); any other failure is another code. */
static int bench_at(gpu *g, compiler *comp, json_t *recs, json_t *sizes, json_t *instance,
                    const ceilings *c, json_t *floors, json_t *host_libs) {
    passed_over older;
    json_t *best = best_current(g->s, recs, sizes, NULL, &older);
    char *at = sizes_describe(sizes);
    if (!best) {
        msg_error("no verified result at %s for %s as it is now: run bartune run first", at,
                  space_file(g->s));
        free(at);
        return EXIT_INPUT;
    }
    if (!gpu_problem(g, sizes, instance)) {
        free(at);
        return EXIT_FAILURE_;
    }
    double bytes = json_number_value(json_object_get(instance, "bytes"));
    double fma = json_number_value(json_object_get(instance, "fma"));
    double mma = json_number_value(json_object_get(instance, "mma"));
    double bw = c->copy_gbps > c->dtod_gbps ? c->copy_gbps : c->dtod_gbps;
    double mem_ms = bytes / (bw * 1e6), fma_ms = fma / c->fma_per_s * 1e3;
    double mma_ms = mma > 0 && c->mma_per_s > 0 ? mma / c->mma_per_s * 1e3 : 0;
    double own_ms = json_number_value(json_object_get(instance, "floor_ms"));
    double floor_ms = mem_ms > fma_ms ? mem_ms : fma_ms;
    if (mma_ms > floor_ms) floor_ms = mma_ms;
    if (own_ms > floor_ms) floor_ms = own_ms;
    json_t *saved =
        json_pack("{s:O, s:f, s:f, s:f, s:f, s:[]}", "sizes", sizes, "floor_ms", floor_ms,
                  "memory_ms", mem_ms, "fma_ms", fma_ms, "mma_ms", mma_ms, "host_baselines");
    json_array_append_new(floors, saved);
    if (g->o->gate) json_object_set_new(saved, "gated", json_true());
    printf("\n%s on %s at %s\n", space_name(g->s), g->dev.name, at);
    if (g->o->gate)
        printf("gated: each timed launch queued behind a kernel that holds the stream until it "
               "is queued (the GPU's time alone)\n");
    printf("floor: %.4f ms = max(memory %.4f ms: %.4g B at %.0f GB/s, FMA %.4f ms: %.4g FMA at "
           "%.2f T/s",
           floor_ms, mem_ms, bytes, bw, fma_ms, fma, c->fma_per_s * 1e-12);
    if (mma > 0)
        printf(", bf16 tensor %.4f ms: %.4g multiply-adds at %.1f T/s%s", mma_ms, mma,
               c->mma_per_s * 1e-12, c->mma_per_s > 0 ? "" : " (not measured on this GPU)");
    if (own_ms > 0) printf(", the problem's own %.4f ms", own_ms);
    printf(")   [problem's cost model]\n");
    printf("  %-32s %9s %9s %9s %10s %10s  %s\n", "", "median", "min", "max", "floor/time",
           "x best", "config");
    free(at);
    rows table = {0};
    rows_add(&table, "tuned best", best);
    int count;
    const named_config *named = space_named(g->s, &count);
    for (int i = 0; i < count; i++) {
        if (named[i].portable) continue;
        json_t *part = config_json(&named[i].cfg);
        json_t *rec = best_current(g->s, recs, sizes, part, &older);
        /* never measured at this size: measured now, from its declaration */
        json_t *declared = rec ? NULL : json_pack("{s:O}", "config", part);
        json_decref(part);
        rows_add(&table, named[i].label, rec ? rec : declared);
        json_decref(rec ? NULL : declared);
    }
    bench_kinds(g, recs, sizes, &table);
    rows_compile(g, comp, &table);
    double best_ms = 0, ms;
    /* the best and the host baselines also back to back: the sustained race */
    const double sustain_s = g->o->sustain_s < 0 ? 3 : g->o->sustain_s;
    json_t *tuned = json_object();
    g->sustain_s = sustain_s;
    int rc = bench_one(g, &table.rows[0], floor_ms, 0, &best_ms, tuned) ? EXIT_OK : EXIT_FAILURE_;
    if (rc == EXIT_OK) json_object_set_new(tuned, "median_ms", json_real(best_ms));
    json_object_set(saved, "tuned", tuned);
    g->sustain_s = 0;
    /* each kind's best (the rows "best k=v"), for the table after the last tuple */
    json_t *kinds = json_object();
    json_object_set_new(saved, "kinds", kinds);
    for (int i = 1; i < table.n; i++)
        if (bench_one(g, &table.rows[i], floor_ms, best_ms, &ms, NULL) &&
            !strncmp(table.rows[i].label, "best ", 5))
            json_object_set_new(kinds, table.rows[i].label + 5, json_real(ms));
    rows_free(&table);
    g->sustain_s = sustain_s;
    json_t *hb = json_object_get(space_problem(g->s), "host_baselines");
    for (size_t i = 0; i < json_array_size(hb); i++) {
        const char *label = json_string_value(json_object_get(json_array_get(hb, i), "label"));
        const char *lib = json_string_value(json_array_get(host_libs, i));
        runner_result r = RUNNER_FAIL;
        json_t *ans = NULL;
        if (!lib) {
            printf("  %-32s (did not build: see above)\n", label);
            continue;
        }
        bool ok = gpu_measure_host(g, lib, &r, &ans);
        print_row(g, label, ok, r, ans, floor_ms, best_ms, "(host baseline of the problem)", &ms);
        if (ok) { /* for the report's lines */
            json_t *line = json_pack("{s:s, s:f}", "label", label, "median_ms", ms);
            print_sustained(ans, line);
            sustained_ratio(label, tuned, line);
            json_array_append_new(json_object_get(saved, "host_baselines"), line);
        }
        json_decref(ans);
    }
    g->sustain_s = 0;
    json_decref(tuned);
    return rc;
}

/* The problem's host baselines built: a library path per entry (null
 * where one did not build, said already). */
static json_t *build_host(const options *o, space *s, const compiler *comp) {
    json_t *out = json_array(), *hb;
    char plain_arch[16]; /* library code: no arch-specific (sm_90a) features */
    snprintf(plain_arch, sizeof plain_arch, "%.*s", (int)strcspn(comp->arch, "a"), comp->arch);
    size_t i;
    char *own = path_join(o->root, "templates");
    const char *includes[2] = {space_templates_dir(s), own};
    json_array_foreach(json_object_get(space_problem(s), "host_baselines"), i, hb) {
        const char *files[2] = {json_string_value(json_object_get(hb, "source")),
                                "bartune_baseline.h"};
        char *found[2] = {NULL, NULL}, *lib = NULL, *looked = NULL;
        for (int f = 0; f < 2 && (f == 0 || found[0]); f++)
            if (!(found[f] = space_template_path(s, files[f], &looked)))
                msg_error("host baseline '%s': %s not found (looked for %s)",
                          json_string_value(json_object_get(hb, "label")), files[f], looked);
        if (found[0] && found[1])
            lib = host_baseline_build(comp->nvcc, comp->version, plain_arch, hb, found[0], found[1],
                                      includes, o->cache);
        json_array_append_new(out, lib ? json_string(lib) : json_null());
        free(lib), free(found[0]), free(found[1]), free(looked);
    }
    free(own);
    return out;
}

/* The floors an earlier bench saved at sizes this run did not bench, added
 * to floors: a bench of one shape keeps the others' (the report draws them). */
static void keep_earlier_floors(const char *path, json_t *floors) {
    json_error_t je;
    json_t *old = json_load_file(path, 0, &je), *f, *n;
    const char *format = json_string_value(json_object_get(old, "format"));
    size_t i, k;
    if (format && !strcmp(format, "bartune-bench-1"))
        json_array_foreach(json_object_get(old, "floors"), i, f) {
            json_t *at = json_object_get(f, "sizes");
            bool again = false;
            json_array_foreach(floors, k, n) again |= json_equal(json_object_get(n, "sizes"), at);
            if (json_is_object(at) && !again) json_array_append(floors, f);
        }
    json_decref(old);
}

/* results/<device>/<space>.bench.json: the ceilings, and per size the floor
 * and the host baselines' times of its latest bench, for `bartune report`. */
static void save_floors(const options *o, space *s, const gpu *g, const ceilings *c,
                        json_t *floors) {
    char date[32];
    utc_timestamp(date);
    json_t *j = json_pack("{s:s, s:s, s:s, s:{s:f, s:f, s:f, s:f}, s:O}", "format",
                          "bartune-bench-1", "device", g->dev.name, "date", date, "ceilings",
                          "copy_gbps", c->copy_gbps, "dtod_gbps", c->dtod_gbps, "fma_per_s",
                          c->fma_per_s, "mma_per_s", c->mma_per_s, "floors", floors);
    char *dir = path_join(o->results, g->key);
    char *path = xasprintf("%s/%s.bench.json", dir, space_name(s));
    keep_earlier_floors(path, json_object_get(j, "floors"));
    char *text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!mkdir_p(dir) || !write_file_atomic(path, text, strlen(text)))
        msg_warn("cannot write %s: the report will draw no floor", path);
    free(text);
    free(path);
    free(dir);
    json_decref(j);
}

/* A tuple's saved median of host baseline `label`, or 0 where it did not run. */
static double host_ms(json_t *floor, const char *label) {
    json_t *lines = json_object_get(floor, "host_baselines");
    for (size_t i = 0; i < json_array_size(lines); i++) {
        json_t *line = json_array_get(lines, i);
        if (!strcmp(json_string_value(json_object_get(line, "label")), label))
            return json_number_value(json_object_get(line, "median_ms"));
    }
    return 0;
}

/* Over the size tuples benched, each host baseline's time over the tuned
 * best's (above 1: the tuned kernel ahead), as a geometric mean: the one
 * figure a comparison across shapes quotes. Tuples where either failed are
 * left out, and said. */
static void print_geomeans(space *s, json_t *floors) {
    if (json_array_size(floors) < 2) return;
    json_t *declared, *f;
    size_t k, z;
    json_array_foreach(json_object_get(space_problem(s), "host_baselines"), k, declared) {
        const char *label = json_string_value(json_object_get(declared, "label"));
        double log_sum = 0;
        size_t n = 0;
        json_array_foreach(floors, z, f) {
            double t = json_number_value(json_object_get(json_object_get(f, "tuned"), "median_ms"));
            double b = host_ms(f, label);
            if (t > 0 && b > 0) {
                log_sum += log(b / t);
                n++;
            }
        }
        if (!n) continue;
        printf("geomean over %zu of %zu size tuples, %s / tuned: %.3fx the time%s\n", n,
               json_array_size(floors), label, exp(log_sum / (double)n),
               n < json_array_size(floors) ? " (the others: one of the two did not run)" : "");
    }
}

/* One markdown table of the tuples benched: per tuple the tuned median, its
 * floor / time, each declared host baseline's median and its time over the
 * tuned one's, then the best of each kind (`-` where none ran): the table
 * the README and the issues quote, from this run's medians. */
static void print_table(space *s, json_t *floors) {
    json_t *hb = json_object_get(space_problem(s), "host_baselines");
    json_t *cols = json_array(), *f, *e, *v;
    size_t z, i;
    const char *key;
    json_array_foreach(floors, z, f) json_object_foreach(json_object_get(f, "kinds"), key, v) {
        bool seen = false;
        json_array_foreach(cols, i, e) seen |= !strcmp(json_string_value(e), key);
        if (!seen) json_array_append_new(cols, json_string(key));
    }
    printf("\n| size tuple | tuned ms | floor / tuned |");
    json_array_foreach(hb, i, e) {
        const char *label = json_string_value(json_object_get(e, "label"));
        printf(" %s ms | %s / tuned |", label, label);
    }
    json_array_foreach(cols, i, e) printf(" %s |", json_string_value(e));
    printf("\n|");
    for (i = 0; i < 3 + 2 * json_array_size(hb) + json_array_size(cols); i++)
        printf("---|");
    json_array_foreach(floors, z, f) {
        double t = json_number_value(json_object_get(json_object_get(f, "tuned"), "median_ms"));
        double fl = json_number_value(json_object_get(f, "floor_ms"));
        char *at = sizes_describe(json_object_get(f, "sizes"));
        printf("\n| %s | %.4f | %.3f |", at, t, t > 0 ? fl / t : 0);
        free(at);
        json_array_foreach(hb, i, e) {
            double b = host_ms(f, json_string_value(json_object_get(e, "label")));
            if (b > 0 && t > 0)
                printf(" %.4f | %.3f |", b, b / t);
            else
                printf(" - | - |");
        }
        json_array_foreach(cols, i, e) {
            json_t *ms = json_object_get(json_object_get(f, "kinds"), json_string_value(e));
            if (ms)
                printf(" %.4f |", json_number_value(ms));
            else
                printf(" - |");
        }
    }
    printf("\n");
    json_decref(cols);
}

int cmd_bench(const options *o) {
    if (o->n_overrides) {
        msg_error("bench times the recorded best and the baselines; it takes no k=v (got %s)",
                  o->overrides[0]);
        return EXIT_USAGE;
    }
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    json_t *instances = NULL, *sizes = session_sizes(s, o, &instances);
    gpu g = {0};
    int rc = sizes ? gpu_open(&g, o, s, 0) : EXIT_INPUT;
    if (rc == EXIT_OK && !sizes) rc = EXIT_INPUT;
    char *path = xasprintf("%s/%s/%s.jsonl", o->results, g.key, space_name(s)), *err = NULL;
    int dropped;
    json_t *recs = rc == EXIT_OK ? results_load(path, g.key, &dropped, &err) : NULL;
    if (rc == EXIT_OK && !recs) {
        msg_error("%s", err);
        free(err);
        rc = EXIT_INPUT;
    }
    char arch[16];
    space_compile_arch(s, &g.dev, NULL, arch);
    compiler comp = {.nvcc = o->nvcc,
                     .cache_dir = o->cache,
                     .arch = arch,
                     .jobs = o->jobs,
                     .timeout = o->compile_timeout};
    ceilings c;
    if (rc == EXIT_OK && (!compiler_init(&comp) || !measure_ceilings(&g, &c))) rc = EXIT_FAILURE_;
    if (rc == EXIT_OK)
        printf("ceilings on %s: copy kernel %.0f GB/s, cudaMemcpy device-to-device %.0f GB/s, FMA "
               "%.2f T/s, bf16 tensor %.1f T multiply-adds/s (%.0f TFLOP/s)\n",
               g.dev.name, c.copy_gbps, c.dtod_gbps, c.fma_per_s * 1e-12, c.mma_per_s * 1e-12,
               2 * c.mma_per_s * 1e-12);
    json_t *floors = json_array(), *host_libs = rc == EXIT_OK ? build_host(o, s, &comp) : NULL;
    /* a tuple with no verified result is said and passed over: the others'
     * tables still come (the run exits non-zero at the end) */
    size_t unverified = 0;
    for (size_t z = 0; rc == EXIT_OK && z < json_array_size(sizes); z++) {
        rc = proc_interrupted ? EXIT_INTERRUPTED
                              : bench_at(&g, &comp, recs, json_array_get(sizes, z),
                                         json_array_get(instances, z), &c, floors, host_libs);
        if (rc == EXIT_INPUT) unverified++, rc = EXIT_OK;
    }
    if (rc == EXIT_OK && json_array_size(floors)) print_table(s, floors);
    if (rc == EXIT_OK) print_geomeans(s, floors);
    /* a run that benched nothing keeps the last run's floors */
    if (rc == EXIT_OK && unverified < json_array_size(sizes)) save_floors(o, s, &g, &c, floors);
    if (rc == EXIT_OK && unverified) {
        msg_error("%zu of %zu size tuple(s) have no verified result (above): run bartune run "
                  "there first",
                  unverified, json_array_size(sizes));
        rc = EXIT_INPUT;
    }
    json_decref(floors);
    json_decref(host_libs);
    free(path);
    json_decref(recs);
    json_decref(sizes);
    json_decref(instances);
    compiler_free(&comp);
    gpu_close(&g);
    space_close(s);
    return rc;
}
