/* bartune show, and the summary tables run prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "proc.h"
#include "record.h"
#include "results.h"
#include "session.h"
#include "summary.h"
#include "util.h"

static void print_row(json_t *rec, const char *label, double best) {
    double med = json_number_value(json_object_get(rec, "median_ms"));
    char *cfg = json_dumps(json_object_get(rec, "config"), JSON_COMPACT | JSON_SORT_KEYS);
    char energy[32] = "";
    json_t *j = json_object_get(rec, "joules");
    if (results_by_energy() && json_is_number(j)) /* what the ranking sees */
        snprintf(energy, sizeof energy, " %9.3f", json_number_value(j) * 1e3);
    else if (results_by_energy())
        snprintf(energy, sizeof energy, " %9s", "-");
    printf("  %-26s %9.4f %9.4f %9.4f %7.2fx%s  %s\n", label, med,
           json_number_value(json_object_get(rec, "min_ms")),
           json_number_value(json_object_get(rec, "max_ms")), best > 0 ? med / best : 0, energy,
           cfg);
    free(cfg);
}

/* Records of earlier versions of the space are left out: the same config
 * may render to another kernel now. */
void print_summary(space *s, json_t *records, json_t *sizes, const char *devname) {
    char *at = sizes_describe(sizes);
    passed_over older;
    json_t *best = best_current(s, records, sizes, NULL, &older);
    bool earlier = false; /* showing records verified before the current checks */
    if (!best) {
        best = best_current_as(s, records, sizes, NULL, &older, false);
        earlier = best != NULL;
        if (!best) {
            printf("no variant verified on %s at %s%s\n", devname, at,
                   results_by_energy() ? " with its energy measured (bartune run --rank energy)"
                                       : "");
            free(at);
            return;
        }
        printf("\nno record at %s was verified under the current checks of %s (its check sizes, "
               "views, input sets); below, the records verified before them, which emit leaves "
               "out and bartune run measures again\n",
               at, space_file(s));
    }
    double b = json_number_value(json_object_get(best, "median_ms"));
    printf("\n%s, %s: median/min/max ms over timed launches; x = time / best%s\n", devname, at,
           results_by_energy() ? "; ranked by the energy a call in sustained launches" : "");
    free(at);
    printf("  %-26s %9s %9s %9s %8s%s  %s\n", "", "median", "min", "max", "x",
           results_by_energy() ? "   mJ/call" : "", "config");
    json_t *ranked = results_ranked(records, sizes), *rec;
    size_t i;
    int shown = 0;
    passed_over left = {0};
    char digest[17];
    session_digest_at(s, sizes, digest);
    json_array_foreach(ranked, i, rec) {
        if (shown == 5) break;
        if (!session_rankable(s, rec, earlier ? NULL : digest, &left)) continue;
        char label[32];
        snprintf(label, sizeof label, "#%d", ++shown);
        print_row(rec, label, b);
    }
    json_decref(ranked);
    int count;
    const named_config *named = space_named(s, &count);
    for (int k = 0; k < count; k++) {
        if (named[k].portable) continue;
        json_t *part = config_json(&named[k].cfg);
        passed_over o;
        json_t *r = best_current_as(s, records, sizes, part, &o, !earlier);
        left.remeasured += o.remeasured;
        left.gone += o.gone;
        if (r)
            print_row(r, named[k].label, b);
        else
            printf("  %-26s (no record of it for the space as it is now)\n", named[k].label);
        json_decref(part);
    }
    if (left.remeasured)
        printf("  (%d faster record(s) measured with an earlier version of %s%s left out)\n",
               left.remeasured, space_file(s), earlier ? "" : " or verified under other checks");
    if (left.gone)
        printf("  (%d faster record(s) of variants %s no longer has left out)\n", left.gone,
               space_file(s));
}

void count_statuses(json_t *records) {
    json_t *counts = json_object(), *rec;
    size_t i;
    int rejected = 0;
    json_array_foreach(records, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "status"));
        json_t *c = json_object_get(counts, st);
        json_object_set_new(counts, st, json_integer(c ? json_integer_value(c) + 1 : 1));
        rejected += json_is_true(json_object_get(rec, "rejected"));
    }
    const char *k;
    json_t *v;
    printf("records by status:");
    json_object_foreach(counts, k, v) printf(" %s %lld", k, (long long)json_integer_value(v));
    if (rejected) printf(" (of the ok, %d rejected early on one timed launch)", rejected);
    printf("\n");
    json_decref(counts);
}

/* Whether `records` hold a measurement (of any status) of `cfg` at `sizes`. */
static bool measured(json_t *records, json_t *sizes, json_t *cfg) {
    json_t *at = results_at(records, sizes), *rec;
    size_t i;
    bool found = false;
    json_array_foreach(at, i, rec) {
        if ((found = json_equal(json_object_get(rec, "config"), cfg))) break;
    }
    json_decref(at);
    return found;
}

/* A results file as show reads it, once: {"records", "dropped"} or {"error"}. */
static json_t *load_file(const char *path, const char *key) {
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(path, key, &dropped, &err);
    json_t *loaded = recs ? json_pack("{s:o, s:i}", "records", recs, "dropped", dropped)
                          : json_pack("{s:s}", "error", err);
    free(err);
    return loaded;
}

/* Another device's best at these sizes that this device never measured: a
 * card tuned before another found a better kind at a shape keeps serving its
 * own worse one (the H100's tall-K ran 2.2x the H200's kind there; NOTES,
 * thirtieth session). `all`: every device's load_file, by folder. */
static void print_unmeasured(space *s, json_t *records, json_t *sizes, const char *key,
                             json_t *all) {
    const char *other;
    json_t *loaded;
    json_object_foreach(all, other, loaded) {
        json_t *recs = json_object_get(loaded, "records");
        if (!recs || !strcmp(other, key)) continue;
        passed_over p;
        json_t *best = best_current(s, recs, sizes, NULL, &p);
        json_t *cfg = best ? json_object_get(best, "config") : NULL;
        if (!cfg || measured(records, sizes, cfg)) continue;
        char *c = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS), *at = sizes_describe(sizes);
        printf("  never measured on this device: %s's best at these sizes (%.4f ms there) %s\n"
               "    (bartune run %s --tuple '%s' --strategy ils --budget N --warm-from %s "
               "measures it first)\n",
               other, json_number_value(json_object_get(best, "median_ms")), c, space_file(s), at,
               other);
        free(at);
        free(c);
    }
}

/* Prints one results file's summary (`loaded`: its load_file), at the size
 * tuples --size picks (all without it). `key`: the device folder it is in;
 * `all`: every device's load_file by folder (NULL with --records). */
static bool show_file(space *s, const options *o, const char *path, json_t *loaded, const char *key,
                      json_t *all, int *shown) {
    json_t *recs = json_object_get(loaded, "records");
    if (!recs) {
        msg_error("%s", json_string_value(json_object_get(loaded, "error")));
        return false;
    }
    json_t *first = json_array_get(recs, 0);
    const char *name =
        first ? json_string_value(json_object_get(json_object_get(first, "device"), "name")) : NULL;
    printf("== %s (%zu records%s)\n", path, json_array_size(recs),
           json_integer_value(json_object_get(loaded, "dropped")) ? ", torn line dropped" : "");
    json_t *sizes = results_sizes(recs), *z;
    size_t i;
    int here = 0;
    json_array_foreach(sizes, i, z) {
        if (proc_interrupted) break; /* a long list of sizes: Ctrl-C ends it */
        if (!session_sizes_match(o, z)) continue;
        print_summary(s, recs, z, name ? name : "?");
        if (all) print_unmeasured(s, recs, z, key, all);
        here++;
    }
    *shown += here;
    if (!here && o->n_sizes)
        printf("no records at the --size values given (bartune show without --size lists every "
               "size tuple recorded)\n");
    count_statuses(recs);
    json_decref(sizes);
    return true;
}

typedef struct {
    space *s;
    const options *o;
    json_t *all; /* every device's load_file, by folder */
    int shown;   /* size tuples shown, over every device */
} show_ctx;

static bool load_each(void *ctx, const char *key, const char *path) {
    show_ctx *c = ctx;
    json_object_set_new(c->all, key, load_file(path, key));
    return true;
}

static bool show_each(void *ctx, const char *key, const char *path) {
    show_ctx *c = ctx;
    return show_file(c->s, c->o, path, json_object_get(c->all, key), key, c->all, &c->shown);
}

int cmd_show(const options *o) {
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    bool ok = true;
    show_ctx c = {s, o, json_object(), 0};
    if (o->records) {
        json_t *loaded = load_file(o->records, NULL);
        ok = show_file(s, o, o->records, loaded, NULL, NULL, &c.shown);
        json_decref(loaded);
    } else if (!results_each_device(o->results, space_name(s), true, load_each, &c, &ok) ||
               !results_each_device(o->results, space_name(s), true, show_each, &c, &ok)) {
        printf("no results for %s under %s\n", space_name(s), o->results);
        c.shown = 1; /* nothing to show is not bad input */
    }
    if (ok && o->n_sizes && !c.shown) {
        msg_error("no device's records of %s hold the --size values given", space_name(s));
        ok = false;
    }
    json_decref(c.all);
    space_close(s);
    return ok ? EXIT_OK : EXIT_INPUT;
}
