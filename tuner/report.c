/* bartune report: a picture of the search per device, drawn by gnuplot
 * (results/<device>/report.svg and .png): the time of every verified
 * variant, grouped by its first parameter (and the `group` names the space
 * declares), the baselines as lines; below, the best found against measured
 * configurations for each shipped strategy, replayed on the same records.
 *
 * Records, labels and folder names are not trusted in gnuplot's script
 * (backquotes and system() run commands there): gnuplot runs inside a fresh
 * folder beside the report, reads its data files and writes its pictures
 * there under fixed names, every text in the script is single-quoted and
 * plain, and the pictures are renamed into place (a symlink in their place
 * is replaced, not followed). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "proc.h"
#include "record.h"
#include "results.h"
#include "session.h"
#include "strategy.h"
#include "util.h"

static const char *const STRATEGIES[] = {"ils", "ga", "random", "exhaustive"};

/* The group label of a config: its values of the space's `group`
 * parameters (default: the first parameter), "-" where one does not apply. */
static void group_of(space *s, json_t *cfg, char *out, size_t size) {
    json_t *names = json_object_get(space_problem(s), "group"), *name;
    size_t i, o = 0;
    out[0] = '\0';
    json_array_foreach(names, i, name) {
        json_t *v = json_object_get(cfg, json_string_value(name));
        char buf[32];
        const char *t =
            !v ? "-"
            : json_is_integer(v)
                ? (snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v)), buf)
                : json_string_value(v);
        o += (size_t)snprintf(out + o, o < size ? size - o : 0, "%s%s", i ? "/" : "", t);
        if (o >= size) break;
    }
}

/* landscape.dat: group index, jitter, ms; groups.dat: index, label. */
static int write_landscape(space *s, json_t *recs, json_t *sizes, const char *dir, json_t *groups) {
    char *path = xasprintf("%s/landscape.dat", dir);
    FILE *f = fopen(path, "wx");
    free(path);
    if (!f) return 0;
    json_t *ranked = results_ranked(recs, sizes), *rec;
    size_t i;
    int n = 0;
    json_array_foreach(ranked, i, rec) {
        if (!session_current(s, rec)) continue;
        char g[128];
        group_of(s, json_object_get(rec, "config"), g, sizeof g);
        json_t *idx = json_object_get(groups, g);
        if (!idx)
            json_object_set_new(groups, g,
                                idx = json_integer((json_int_t)json_object_size(groups)));
        double jitter = (double)((i * 2654435761u) % 1000) / 1000.0 * 0.6 - 0.3;
        fprintf(f, "%lld %.3f %.6f\n", (long long)json_integer_value(idx), jitter,
                json_number_value(json_object_get(rec, "median_ms")));
        n++;
    }
    json_decref(ranked);
    fclose(f);
    return n;
}

/* curve_<strategy>.dat from a replay of 30 seeds with a budget of 300. */
static bool write_curves(space *s, const options *o, json_t *all, json_t *sizes, const char *dir) {
    json_t *recs = results_at(all, sizes); /* a landscape is one size tuple */
    bool ok = true;
    device_info d;
    record_device(json_array_get(recs, 0), &d);
    for (size_t k = 0; k < sizeof STRATEGIES / sizeof STRATEGIES[0]; k++) {
        options so = *o;
        so.strategy = STRATEGIES[k];
        char *chunk = NULL, *err = NULL, *text = strategy_load(&so, &chunk);
        json_t *res = text ? space_replay(s, &d, recs, NULL, false, text, chunk, 30, 300, &err) : NULL;
        free(text);
        free(chunk);
        if (!res) {
            if (err) msg_error("%s", err);
            free(err);
            ok = false;
            break;
        }
        char *path = xasprintf("%s/curve_%s.dat", dir, STRATEGIES[k]);
        FILE *f = fopen(path, "wx");
        free(path);
        json_t *pt;
        size_t i;
        json_array_foreach(json_object_get(res, "curve"), i, pt) if (f)
            fprintf(f, "%lld %.6f\n", (long long)json_integer_value(json_array_get(pt, 0)),
                    100 * json_number_value(json_array_get(pt, 1)) + 0.01);
        if (f) fclose(f);
        json_decref(res);
    }
    json_decref(recs);
    return ok;
}

/* Text for a single-quoted gnuplot string: letters, digits and plain
 * punctuation; anything else (quotes, backquotes, @, newlines) as '_'. */
static char *gnuplot_string(const char *text) {
    strbuf b = {0};
    for (const char *p = text ? text : ""; *p; p++)
        sb_printf(&b, "%c", isalnum((unsigned char)*p) || strchr(" _.,:=+-/()x%#", *p) ? *p : '_');
    return sb_take(&b);
}

/* The gnuplot script: two panels, to report.svg and report.png in the
 * folder it runs in, from the data files there. */
static char *script(space *s, json_t *recs, json_t *sizes, json_t *groups, double floor_ms,
                    json_t *host) {
    strbuf b = {0};
    json_t *first = json_array_get(recs, 0);
    char *dev = gnuplot_string(
        json_string_value(json_object_get(json_object_get(first, "device"), "name")));
    char *sizes_text = sizes_describe(sizes), *at = gnuplot_string(sizes_text);
    free(sizes_text);
    for (int term = 0; term < 2; term++) {
        sb_printf(&b, "%s\nset output '%s'\n",
                  term ? "set terminal pngcairo noenhanced size 1400,1100 font ',11'"
                       : "set terminal svg noenhanced size 1400,1100 dynamic font 'sans,11'",
                  term ? "report.png" : "report.svg");
        sb_printf(&b, "set multiplot layout 2,1 title 'bartune: %s on %s at %s'\n", space_name(s),
                  dev, at);
        sb_printf(&b, "set title 'time of every verified variant (median ms), by kind; lines: the "
                      "floor and the baselines'\n"
                      "set ylabel 'ms'\nset logscale y\nset grid ytics\nset key outside right "
                      "top\nset xtics rotate by -30\n");
        sb_printf(&b, "set xtics (");
        const char *k;
        json_t *v;
        int n = 0;
        json_object_foreach(groups, k, v) {
            char *label = gnuplot_string(k);
            sb_printf(&b, "%s'%s' %lld", n++ ? ", " : "", label, (long long)json_integer_value(v));
            free(label);
        }
        sb_printf(&b, ")\nset xrange [-0.6:%.1f]\n", (double)json_object_size(groups) - 0.4);
        sb_printf(&b, "plot 'landscape.dat' using ($1+$2):3 with points pt 7 ps 0.4 lc rgb "
                      "'#3060a0' title 'variants'");
        if (floor_ms > 0)
            sb_printf(&b,
                      ", %.6f with lines lw 2 dt 2 lc rgb 'black' title 'floor (bench) %.4f ms'",
                      floor_ms, floor_ms);
        json_t *h;
        size_t hi;
        json_array_foreach(host, hi, h) {
            char *label = gnuplot_string(json_string_value(json_object_get(h, "label")));
            double t = json_number_value(json_object_get(h, "median_ms"));
            sb_printf(&b, ", %.6f with lines lw 2 dt 4 title '%s (bench) %.4f ms'", t, label, t);
            free(label);
        }
        int count;
        const named_config *named = space_named(s, &count);
        for (int i = 0; i < count; i++) {
            if (named[i].portable) continue;
            json_t *part = config_json(&named[i].cfg);
            passed_over older;
            json_t *r =
                best_current_as(s, recs, sizes, part, &older, false); /* a landscape: any checks */
            json_decref(part);
            if (!r) continue;
            char *label = gnuplot_string(named[i].label);
            sb_printf(&b, ", %.6f with lines lw 1.5 title '%s %.4f ms'",
                      json_number_value(json_object_get(r, "median_ms")), label,
                      json_number_value(json_object_get(r, "median_ms")));
            free(label);
        }
        sb_printf(&b, "\nunset xtics\nset xtics\nset xrange [1:300]\nset logscale x\n"
                      "set title 'best found against configurations measured (median over 30 "
                      "seeds, replayed on these records)'\n"
                      "set xlabel 'measured configurations'\nset ylabel '%% above the best "
                      "recorded (0 drawn at 0.01)'\n");
        sb_printf(&b, "plot ");
        for (size_t i = 0; i < sizeof STRATEGIES / sizeof STRATEGIES[0]; i++)
            sb_printf(&b, "%s'curve_%s.dat' using 1:2 with steps lw 2 title '%s'", i ? ", " : "",
                      STRATEGIES[i], STRATEGIES[i]);
        sb_printf(&b, "\nunset multiplot\nunset logscale\nunset xlabel\n");
    }
    free(dev);
    free(at);
    return sb_take(&b);
}

/* What a bench saved beside the records for these sizes: the floor (0 if
 * none) and the host baselines' times (a new array of {label, median_ms}). */
static double saved_bench(space *s, const char *dir, json_t *sizes, json_t **host) {
    char *path = xasprintf("%s/%s.bench.json", dir, space_name(s));
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je), *f;
    free(path);
    double ms = 0;
    size_t i;
    *host = json_array();
    json_array_foreach(json_object_get(j, "floors"), i, f) {
        double v = json_number_value(json_object_get(f, "floor_ms"));
        if (!json_equal(json_object_get(f, "sizes"), sizes)) continue;
        if (v > 0 && v < 1e9) ms = v;
        json_t *h;
        size_t k;
        json_array_foreach(json_object_get(f, "host_baselines"), k, h) {
            double t = json_number_value(json_object_get(h, "median_ms"));
            if (json_is_string(json_object_get(h, "label")) && t > 0 && t < 1e9)
                json_array_append(*host, h);
        }
    }
    json_decref(j);
    return ms;
}

/* report.svg/png for the first size tuple, report-<sizes>.svg/png for each
 * other: "M=1024 N=1024" -> "report-M1024-N1024". */
static char *report_base(const char *out_dir, json_t *sizes, bool first) {
    if (first) return path_join(out_dir, "report");
    char *at = sizes_describe(sizes);
    strbuf b = {0};
    sb_printf(&b, "%s/report-", out_dir);
    for (const char *p = at; *p; p++)
        if (*p == ' ')
            sb_printf(&b, "-");
        else if (*p != '=')
            sb_printf(&b, "%c",
                      (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                              (*p >= 'A' && *p <= 'Z') || *p == '_'
                          ? *p
                          : '_');
    free(at);
    return sb_take(&b);
}

/* The files gnuplot's folder holds (write_landscape, write_curves, the
 * script and its pictures), removed with it (no shell). */
static void remove_work(const char *dir) {
    const char *names[] = {"landscape.dat", "report.gp", "report.svg", "report.png"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = path_join(dir, names[i]);
        unlink(p);
        free(p);
    }
    for (size_t k = 0; k < sizeof STRATEGIES / sizeof STRATEGIES[0]; k++) {
        char *p = xasprintf("%s/curve_%s.dat", dir, STRATEGIES[k]);
        unlink(p);
        free(p);
    }
    rmdir(dir);
}

/* gnuplot over report.gp in dir; the pictures renamed to base.svg/.png. */
static bool draw(const char *dir, const char *base) {
    char *argv[] = {(char *)"gnuplot", (char *)"report.gp", NULL};
    pid_t pid = proc_start_in(argv, dir);
    int st = 0;
    bool ok = pid > 0 && proc_wait(pid, &st) && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!ok) {
        msg_error("gnuplot failed on %s/report.gp (install gnuplot-nox: .ci/install-deps does)",
                  dir);
        return false;
    }
    const char *ext[] = {"svg", "png"};
    for (int i = 0; i < 2 && ok; i++) {
        char *from = xasprintf("%s/report.%s", dir, ext[i]), *to = xasprintf("%s.%s", base, ext[i]);
        ok = rename(from, to) == 0;
        if (!ok) msg_error("cannot write %s: %s", to, strerror(errno));
        free(from);
        free(to);
    }
    return ok;
}

/* One size tuple's report: data files and the script in a fresh folder
 * beside it, then gnuplot there. */
static bool report_at(space *s, const options *o, json_t *recs, json_t *sizes, const char *out_dir,
                      const char *base) {
    char *tmpl = path_join(out_dir, ".report-XXXXXX");
    char *dir = mkdtemp(tmpl);
    if (!dir) msg_error("cannot make a folder in %s for the report: %s", out_dir, strerror(errno));
    json_t *groups = json_object();
    bool ok = dir && write_landscape(s, recs, sizes, dir, groups) > 0 &&
              write_curves(s, o, recs, sizes, dir);
    if (ok) {
        json_t *host;
        double floor_ms = saved_bench(s, out_dir, sizes, &host);
        char *text = script(s, recs, sizes, groups, floor_ms, host);
        json_decref(host);
        char *spath = path_join(dir, "report.gp");
        ok = write_file_atomic(spath, text, strlen(text)) && draw(dir, base);
        if (ok) fprintf(stderr, "bartune: wrote %s.svg and %s.png\n", base, base);
        free(text);
        free(spath);
    }
    if (dir) remove_work(dir);
    free(tmpl);
    json_decref(groups);
    return ok;
}

static bool report_file(space *s, const options *o, const char *path, const char *out_dir) {
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(path, NULL, &dropped, &err);
    if (!recs || !json_array_size(recs)) {
        msg_error("%s", recs ? "no records" : err);
        free(err);
        json_decref(recs);
        return false;
    }
    json_t *all = results_sizes(recs), *sizes;
    size_t i;
    bool ok = true;
    json_array_foreach(all, i, sizes) {
        if (proc_interrupted) {
            ok = false;
            break;
        }
        char *base = report_base(out_dir, sizes, i == 0);
        ok = report_at(s, o, recs, sizes, out_dir, base) && ok;
        free(base);
    }
    json_decref(all);
    json_decref(recs);
    return ok;
}

struct report_walk {
    space *s;
    const options *o;
};

/* One device's records: the report goes into the device's folder. */
static bool report_each(void *ctx, const char *key, const char *path) {
    struct report_walk *w = ctx;
    char *dir = path_join(w->o->results, key);
    bool ok = report_file(w->s, w->o, path, dir);
    free(dir);
    return ok;
}

int cmd_report(const options *o) {
    space *s = session_open_space(o);
    if (!s) return EXIT_INPUT;
    bool ok = true;
    int shown = 0;
    if (o->records) {
        char *dir = xstrdup(o->records), *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        ok = report_file(s, o, o->records, slash ? dir : ".");
        free(dir);
        shown = 1;
    } else {
        struct report_walk w = {s, o};
        shown = results_each_device(o->results, space_name(s), true, report_each, &w, &ok);
    }
    if (!shown) msg_error("no results for %s under %s", space_name(s), o->results);
    space_close(s);
    return ok && shown ? EXIT_OK : EXIT_INPUT;
}
