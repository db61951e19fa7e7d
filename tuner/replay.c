/* bartune replay: a search strategy run against recorded results, with no
 * GPU and no nvcc; what it would have cost to come near the best. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "proc.h"
#include "record.h"
#include "results.h"
#include "session.h"
#include "strategy.h"
#include "util.h"

static int cmp_int(const void *a, const void *b) {
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median's 95% interval from the sorted vals[0..n): the order statistics
 * about 0.98 sqrt(n) ranks either side of the middle (the sign test's
 * interval), so that two strategies' medians are compared with their spread
 * over seeds: on a 20-candidate landscape one seed more or less moves it. */
static void median_interval(const int *vals, int n, int *lo, int *hi) {
    const double half = 0.98 * sqrt((double)n);
    int a = (int)floor(n / 2.0 - half), b = (int)ceil(n / 2.0 + half);
    *lo = vals[a < 0 ? 0 : a];
    *hi = vals[b > n - 1 ? n - 1 : b];
}

/* Median over the seeds that got there, how many did ("-" if none), and the
 * median's 95% interval. */
static void print_within(json_t *runs, const char *pct) {
    int vals[1024], n = 0;
    json_t *r;
    size_t i;
    json_array_foreach(runs, i, r) {
        json_t *v = json_object_get(json_object_get(r, "within"), pct);
        if (json_is_integer(v) && n < 1024) vals[n++] = (int)json_integer_value(v);
    }
    qsort(vals, (size_t)n, sizeof *vals, cmp_int);
    if (n) {
        int lo, hi;
        median_interval(vals, n, &lo, &hi);
        printf("  within %s%%: median %d measured (%d/%zu seeds), 95%% interval %d-%d\n", pct,
               vals[n / 2], n, json_array_size(runs), lo, hi);
    } else
        printf("  within %s%%: never (0/%zu seeds)\n", pct, json_array_size(runs));
}

static void print_at(json_t *runs) {
    printf("  best after");
    const char *marks[] = {"50", "100", "200", "500"};
    for (int m = 0; m < 4; m++) {
        double vals[1024];
        int n = 0;
        json_t *r;
        size_t i;
        json_array_foreach(runs, i, r) {
            json_t *v = json_object_get(json_object_get(r, "at"), marks[m]);
            if (json_is_number(v) && n < 1024) vals[n++] = json_number_value(v);
        }
        qsort(vals, (size_t)n, sizeof *vals, cmp_double);
        if (n)
            printf(" %s: +%.2f%%", marks[m], 100 * vals[n / 2]);
        else
            printf(" %s: -", marks[m]);
    }
    printf("  (median over seeds, above the recorded best)\n");
}

/* One size tuple's landscape replayed; its summary printed. */
static bool replay_at(space *s, const options *o, json_t *recs, json_t *warm, json_t *sizes,
                      const char *text, const char *chunkname) {
    device_info d;
    record_device(json_array_get(recs, 0), &d);
    char *err = NULL;
    json_t *at = results_at(recs, sizes);
    json_t *from = warm ? results_landscapes_near(warm, sizes, !strcmp(o->warm_from, o->records),
                                                  space_full_sizes, s)
                        : NULL;
    json_t *res = space_replay(s, &d, at, from, o->recorded, text, chunkname, o->seeds,
                               o->budget, &err);
    json_decref(at);
    size_t n_from = json_array_size(from);
    json_decref(from);
    char *where = sizes_describe(sizes);
    if (!res) {
        msg_error("%s (records at %s)", err, where);
        free(err);
        free(where);
        return false;
    }
    json_t *runs = json_object_get(res, "runs");
    printf("%s on %s at %s: %lld candidates (%lld ok), best %.4f ms; %d seeds, budget %d measured "
           "configurations\n",
           chunkname + 1, o->records, where,
           (long long)json_integer_value(json_object_get(res, "candidates")),
           (long long)json_integer_value(json_object_get(res, "ok")),
           json_number_value(json_object_get(res, "best")), o->seeds, o->budget);
    free(where);
    if (warm)
        printf("  warm: told the best of %zu other landscape(s) of %s first (space.elsewhere)\n",
               n_from, o->warm_from);
    print_within(runs, "1");
    print_within(runs, "2");
    print_within(runs, "5");
    int comp[1024], n = 0;
    json_t *r;
    size_t i;
    json_array_foreach(runs, i, r) {
        json_t *v = json_object_get(r, "compiled_at_2");
        if (json_is_integer(v) && n < 1024) comp[n++] = (int)json_integer_value(v);
    }
    qsort(comp, (size_t)n, sizeof *comp, cmp_int);
    if (n) printf("  variants compiled to get within 2%%: median %d\n", comp[n / 2]);
    print_at(runs);
    json_decref(res);
    return true;
}

int cmd_replay(const options *o) {
    if (!o->records) {
        msg_error("replay needs --records FILE (a results file of the space)");
        return EXIT_USAGE;
    }
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    int dropped, rc = EXIT_OK;
    char *err = NULL, *chunkname = NULL;
    json_t *recs = results_load(o->records, NULL, &dropped, &err), *warm = NULL;
    char *text = recs ? strategy_load(o, &chunkname) : NULL;
    if (!recs) msg_error("%s", err);
    if (!recs || !text) rc = EXIT_INPUT;
    if (rc == EXIT_OK && o->warm_from &&
        !(warm = results_load(o->warm_from, NULL, &dropped, &err))) {
        msg_error("--warm-from: %s", err);
        rc = EXIT_INPUT;
    } else if (rc == EXIT_OK && warm && !json_array_size(warm)) {
        msg_error("--warm-from: %s holds no records (is it a results file of this space?)",
                  o->warm_from);
        rc = EXIT_INPUT;
    }
    if (rc == EXIT_OK && !json_array_size(recs)) {
        msg_error("%s holds no records", o->records);
        rc = EXIT_INPUT;
    }
    /* A landscape is one size tuple: each in turn, or those --size picks. */
    json_t *all = rc == EXIT_OK ? results_sizes(recs) : json_array(), *sizes;
    size_t i;
    int replayed = 0;
    json_array_foreach(all, i, sizes) {
        if (proc_interrupted) rc = EXIT_INTERRUPTED;
        if (rc != EXIT_OK || !session_sizes_match(o, sizes)) continue;
        if (!replay_at(s, o, recs, warm, sizes, text, chunkname)) rc = EXIT_INPUT;
        replayed++;
    }
    if (rc == EXIT_OK && !replayed) {
        msg_error("%s holds no records at the --size values given", o->records);
        rc = EXIT_INPUT;
    }
    json_decref(all);
    free(err);
    free(text);
    free(chunkname);
    json_decref(recs);
    json_decref(warm);
    space_close(s);
    return rc;
}
