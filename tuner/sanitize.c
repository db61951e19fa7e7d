#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "progress.h"
#include "results.h"
#include "session.h"
#include "util.h"

static const char *const TOOLS[] = {"memcheck", "racecheck", "synccheck"};
enum { ERROR_EXIT = 86, MIN_ROUNDS = 3 };
static const double SANITIZE_TIMEOUT = 900; /* one instrumented launch and its checks */

bool sanitizer_flagged(json_t *records, json_t *rec) {
    json_t *r;
    size_t i;
    json_array_foreach(records, i, r) {
        const char *st = json_string_value(json_object_get(r, "status"));
        if (st && !strcmp(st, "sanitizer_error") &&
            json_equal(json_object_get(r, "config"), json_object_get(rec, "config")) &&
            json_equal(json_object_get(r, "sizes"), json_object_get(rec, "sizes")) &&
            json_equal(json_object_get(r, "source_hash"), json_object_get(rec, "source_hash")))
            return true;
    }
    return false;
}

/* The report's error lines ("========= ..."), at most 4000 bytes. */
static char *excerpt(const char *log) {
    size_t len;
    char *text = read_file(log, &len);
    strbuf b = {0};
    for (char *line = text ? strtok(text, "\n") : NULL; line && b.len < 4000;
         line = strtok(NULL, "\n"))
        if (!strncmp(line, "=========", 9)) sb_printf(&b, "%.300s\n", line);
    free(text);
    return b.len ? sb_take(&b) : xstrdup("(no report lines)");
}

/* One tool on one compiled variant: the record's status and message. */
static const char *check(gpu *g, const char *tool, const char *cubin, const config *values,
                         const char *log, char **message) {
    const char *wrapper[] = {"compute-sanitizer", "--tool", tool, "--error-exitcode", "86",
                             "--print-limit",     "20",     NULL};
    unlink(log);
    runner_client rc;
    if (!runner_start_under(&rc, wrapper, g->o->runner, g->ordinal, log)) {
        *message = xstrdup("cannot start compute-sanitizer");
        return "sanitizer_failed";
    }
    json_t *ans = NULL, *geo = NULL;
    device_info d;
    char *unanswered = NULL; /* why the runner under the tool did not say hello */
    runner_result r = RUNNER_FAIL;
    bool ok = gpu_hello(&rc, 120, &d, NULL, &unanswered) && gpu_problem_on(g, &rc);
    if (ok) ok = gpu_measure_on(g, &rc, cubin, values, true, 0, SANITIZE_TIMEOUT, &r, &ans, &geo);
    int status = 0;
    bool ended = runner_finish(&rc, 120, &status);
    const char *verdict = "sanitizer_failed";
    if (ended && WIFEXITED(status) && WEXITSTATUS(status) == ERROR_EXIT) {
        verdict = "sanitizer_error";
        *message = excerpt(log);
    } else if (ok && r == RUNNER_OK && ended && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        verdict = "sanitizer_clean";
        *message = xstrdup("");
    } else {
        char why[64];
        const char *m =
            unanswered ? unanswered : json_string_value(json_object_get(ans, "message"));
        *message =
            xasprintf("%s%s%s (compute-sanitizer %s; is it on PATH?)", m ? m : "", m ? "; " : "",
                      ended ? "" : "did not end", ended ? proc_describe(status, why) : "");
    }
    free(unanswered);
    json_decref(ans);
    json_decref(geo);
    return verdict;
}

/* Every tool on one variant (its best record `rec`). */
static bool check_variant(gpu *g, compiler *comp, json_t *records, json_t *rec,
                          const record_base *base, append_fn append, void *ctx) {
    config params, launch, values, derived = {0};
    session_split(g->s, json_object_get(rec, "config"), &params, &launch);
    config_merge(&values, &params, &launch);
    config_from_json(json_object_get(rec, "derived"), NULL, NULL, &derived, NULL);
    char *err = NULL, *src = render_for_cubin(g->s, &g->dev, &params, &err);
    compile_job job = {.source = src};
    bool go_on = true;
    if (src) {
        job_key(g->s, &g->dev, &params, comp, &job);
        compile_all(comp, &job, 1, NULL, NULL);
    }
    char *unfit = NULL; /* why racecheck's report would mean nothing here */
    char *blind = NULL;
    long long rounds = -1;
    if (!space_reuse(g->s, &g->dev, &values, g->sizes, &rounds, &blind, &err)) {
        unfit = err;
        err = NULL;
    } else if (blind) {
        unfit = xasprintf("racecheck cannot judge this variant's synchronisation (the space's "
                          "racecheck_blind()): %s",
                          blind);
    } else if (rounds >= 0 && rounds < MIN_ROUNDS) {
        char *at = sizes_describe(g->sizes);
        unfit =
            xasprintf("at %s each block goes round its ring %lld time(s) (the space's reuse()): "
                      "no stage is reused %d times, so racecheck has nothing to see; sanitize "
                      "at a --size where reuse() gives %d or more",
                      at, rounds, MIN_ROUNDS - 1, MIN_ROUNDS);
        free(at);
    }
    for (size_t t = 0; job.status == COMPILE_OK && t < sizeof TOOLS / sizeof TOOLS[0] && go_on;
         t++) {
        char key[64], id[17];
        snprintf(key, sizeof key, "%s:%s", job.key, TOOLS[t]);
        record_id(key, &launch, g->sizes, id);
        bool done = false;
        json_t *r;
        size_t i;
        json_array_foreach(records, i, r) done =
            done || !strcmp(json_string_value(json_object_get(r, "id")), id);
        if (done) continue;
        char *desc = config_describe(&values),
             *log = xasprintf("%s/sanitize-%s.log", g->o->cache, id);
        progress("compute-sanitizer --tool %s: %s", TOOLS[t], desc);
        char *message = NULL;
        const char *status = "sanitizer_failed";
        if (unfit && !strcmp(TOOLS[t], "racecheck"))
            message = xstrdup(unfit); /* no opinion: a clean report here would mean nothing */
        else
            status = check(g, TOOLS[t], job.cubin, &values, log, &message);
        progress_note("%s (%s): %s", status, TOOLS[t], desc);
        json_t *out = record_new(base, &params, &derived, &launch, id, job.key,
                                 json_string_value(json_object_get(rec, "source_hash")), status);
        json_object_set_new(out, "tool", json_string(TOOLS[t]));
        json_object_set_new(out, "message", json_string(message));
        json_object_set_new(out, "sanitizer_log", json_string(log));
        go_on = append(ctx, out);
        free(message);
        free(desc);
        free(log);
    }
    if (unfit) progress_note("bartune: racecheck not run: %s", unfit);
    free(unfit);
    free(blind);
    if (!src) {
        msg_error("%s", err);
        free(err);
    }
    compile_job_free(&job);
    free(src);
    config_free(&params);
    config_free(&launch);
    config_free(&values);
    config_free(&derived);
    return go_on;
}

bool sanitize_best(gpu *g, compiler *comp, json_t *records, const record_base *base,
                   append_fn append, void *ctx) {
    /* Until SANITIZE_BEST come out clean (a flagged one gives way to the
     * next, which may become the emitted best), trying 10 at most. */
    json_t *ranked = results_ranked(records, g->sizes), *rec;
    size_t i;
    int clean = 0, tried = 0;
    bool go_on = true;
    passed_over unused;
    json_array_foreach(ranked, i, rec) {
        if (clean == SANITIZE_BEST || tried == 10 || !go_on) break;
        /* the records a ranking may take (never a rejected one), as emit's */
        if (!session_rankable(g->s, rec, NULL, &unused) || sanitizer_flagged(records, rec))
            continue;
        go_on = check_variant(g, comp, records, rec, base, append, ctx);
        tried++;
        clean += !sanitizer_flagged(records, rec);
    }
    progress_end();
    json_decref(ranked);
    return go_on;
}
