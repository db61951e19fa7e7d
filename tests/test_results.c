/* The results store keeps every complete record through torn writes, and
 * refuses records of another format, another device or the wrong types. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "results.h"
#include "util.h"

static int failures;
#define EXPECT(c)                                                                                  \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #c);                       \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static device_info dev = {
    .name = "Test GPU", .cc_major = 9, .cc_minor = 0, .sms = 4, .driver = "1.0"};
static const char *KEY = "test-gpu-sm90";

static json_t *record(const char *status, double ms, long long n) {
    config params = {0}, derived = {0}, launch = {0};
    char stages[32];
    snprintf(stages, sizeof stages, "%d", (int)(ms * 10));
    config_set(&params, "stages", stages);
    json_t *sizes = json_pack("{s:I}", "n", (json_int_t)n);
    record_base b = {.space = "sp",
                     .problem = "p",
                     .fingerprint = "fp",
                     .nvcc = "13.0",
                     .dev = &dev,
                     .sizes = sizes,
                     .seed = 1};
    char id[17];
    record_id(stages, &launch, sizes, id);
    json_t *rec = record_new(&b, &params, &derived, &launch, id, "key", "hash", status);
    json_t *ans = json_pack("{s:f, s:f, s:f, s:i}", "median_ms", ms, "min_ms", ms, "max_ms", ms,
                            "occupancy", 1);
    record_set_answer(rec, ans, !strcmp(status, "ok"));
    json_decref(ans);
    json_decref(sizes);
    config_free(&params);
    return rec;
}

/* results_append takes its own reference; drop ours. */
static bool append(results_store *s, json_t *rec, char **err) {
    bool ok = results_append(s, rec, err);
    json_decref(rec);
    return ok;
}

static void append_raw(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_APPEND);
    EXPECT(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static char *line_of(json_t *rec) {
    return json_dumps(rec, JSON_COMPACT);
}

/* A file holding `text` must be refused with a message containing `want`. */
static void expect_refused(const char *dir, const char *text, const char *want) {
    char *path = xasprintf("%s/bad.jsonl", dir);
    write_file_atomic(path, text, strlen(text));
    int dropped;
    char *err = NULL;
    json_t *recs = results_load(path, KEY, &dropped, &err);
    EXPECT(recs == NULL);
    if (!err || !strstr(err, want))
        fprintf(stderr, "message '%s' lacks '%s'\n", err ? err : "", want);
    EXPECT(err && strstr(err, want));
    json_decref(recs);
    free(err);
    free(path);
}

int main(void) {
    char dir[] = "/tmp/bartune-results-XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    results_store s;
    char *err = NULL;
    EXPECT(results_open(&s, dir, "sp", KEY, &err));
    EXPECT(json_array_size(s.records) == 0);
    EXPECT(append(&s, record("ok", 2.0, 100), &err));
    EXPECT(append(&s, record("ok", 1.0, 100), &err));
    EXPECT(append(&s, record("hang", 0.5, 100), &err));
    EXPECT(append(&s, record("ok", 0.7, 50), &err));
    char *path = xstrdup(s.path);
    results_close(&s);

    /* a writer killed mid-line */
    append_raw(path, "{\"format\":\"bartune-results-2\",\"status\":\"ok\",\"med");
    int dropped = 0;
    json_t *recs = results_load(path, KEY, &dropped, &err);
    EXPECT(recs && json_array_size(recs) == 4 && dropped == 1);
    /* best: least median among ok records at those sizes; hang is not a result */
    json_t *n100 = json_pack("{s:i}", "n", 100), *n50 = json_pack("{s:i}", "n", 50);
    EXPECT(json_number_value(json_object_get(results_best(recs, n100), "median_ms")) == 1.0);
    EXPECT(json_number_value(json_object_get(results_best(recs, n50), "median_ms")) == 0.7);
    EXPECT(json_number_value(json_object_get(results_best(recs, NULL), "median_ms")) == 0.7);
    json_t *part = json_pack("{s:i}", "stages", 20);
    EXPECT(json_number_value(
               json_object_get(results_best_matching(recs, part, NULL), "median_ms")) == 2.0);
    json_decref(part);
    json_decref(recs);

    /* reopening cuts the torn tail, so the next record starts a fresh line */
    EXPECT(results_open(&s, dir, "sp", KEY, &err));
    EXPECT(json_array_size(s.records) == 4);
    EXPECT(append(&s, record("ok", 3.0, 100), &err));
    results_close(&s);
    recs = results_load(path, KEY, &dropped, &err);
    EXPECT(recs && json_array_size(recs) == 5 && dropped == 0);
    json_decref(recs);

    /* a complete last record that lacks only its newline is kept */
    json_t *rec = record("ok", 4.0, 100);
    char *line = line_of(rec);
    append_raw(path, line);
    free(line);
    json_decref(rec);
    EXPECT(results_open(&s, dir, "sp", KEY, &err));
    EXPECT(json_array_size(s.records) == 6);
    EXPECT(append(&s, record("ok", 5.0, 100), &err));
    results_close(&s);
    recs = results_load(path, KEY, &dropped, &err);
    EXPECT(recs && json_array_size(recs) == 7 && dropped == 0);
    json_decref(recs);

    /* refused, with the line: another format, another version, another
     * device, a wrong type */
    expect_refused(dir, "{\"format\":\"something-else\"}\n", ":1: format 'something-else'");
    expect_refused(dir, "{\"format\":\"bartune-results-1\",\"status\":\"ok\"}\n",
                   "written by another version of bartune");
    rec = record("ok", 1.0, 100);
    json_object_set_new(json_object_get(rec, "device"), "name", json_string("Other GPU"));
    line = line_of(rec);
    char *text = xasprintf("%s\n", line);
    expect_refused(dir, text, "a record of device other-gpu-sm90 in the results of test-gpu-sm90");
    free(text);
    free(line);
    json_object_set_new(json_object_get(rec, "device"), "name", json_string("Test GPU"));
    json_object_set_new(rec, "median_ms", json_string("fast"));
    line = line_of(rec);
    text = xasprintf("%s\n", line);
    expect_refused(dir, text, "an ok record needs median_ms");
    free(text);
    free(line);
    json_object_set_new(rec, "median_ms", json_real(1.0));
    json_object_set_new(json_object_get(rec, "config"), "x", json_string("a;b"));
    line = line_of(rec);
    text = xasprintf("%s\n", line);
    expect_refused(dir, text, "config and derived must map names to integers or identifiers");
    free(text);
    free(line);
    json_decref(rec);

    /* a results file that is a symlink is not appended to */
    char *lnk = xasprintf("%s/ln", dir);
    EXPECT(mkdir_p(lnk));
    char *target = xasprintf("%s/sp.jsonl", lnk), *other = xasprintf("%s/outside", dir);
    write_file_atomic(other, "", 0);
    EXPECT(symlink(other, target) == 0);
    EXPECT(!results_open(&s, lnk, "sp", KEY, &err));
    results_close(&s);
    free(err);
    free(lnk);
    free(target);
    free(other);

    /* a foreign file is refused untouched, its unterminated last line too */
    const char *foreign = "not,a,record\nlast line without newline";
    char *fdir = xasprintf("%s/foreign", dir), *fpath = xasprintf("%s/foreign/sp.jsonl", dir);
    EXPECT(mkdir_p(fdir) && write_file_atomic(fpath, foreign, strlen(foreign)));
    err = NULL;
    EXPECT(!results_open(&s, fdir, "sp", KEY, &err));
    results_close(&s);
    free(err);
    size_t flen = 0;
    char *after = read_file(fpath, &flen);
    EXPECT(after && flen == strlen(foreign) && !memcmp(after, foreign, flen));
    free(after);
    /* a lock file that is a symlink is not followed */
    char *ldir = xasprintf("%s/lockln", dir), *lock = xasprintf("%s/lockln/.sp.lock", dir);
    EXPECT(mkdir_p(ldir) && symlink(fpath, lock) == 0);
    err = NULL;
    EXPECT(!results_open(&s, ldir, "sp", KEY, &err));
    results_close(&s);
    free(err);
    after = read_file(fpath, &flen);
    EXPECT(after && flen == strlen(foreign));
    free(after);
    free(fdir);
    free(fpath);
    free(ldir);
    free(lock);

    json_decref(n100);
    json_decref(n50);

    /* the landscapes a search at n=1000 starts from: the nearest size first,
     * its own left out (or kept, first, when asked) */
    json_t *lands = json_array();
    json_array_append_new(lands, record("ok", 1.0, 4000));
    json_array_append_new(lands, record("ok", 1.0, 1000));
    json_array_append_new(lands, record("ok", 2.0, 1100));
    json_array_append_new(lands, record("ok", 3.0, 4000));
    json_t *at = json_pack("{s:I}", "n", (json_int_t)1000);
    json_t *near = results_landscapes_near(lands, at, true, NULL, NULL);
    EXPECT(json_array_size(near) == 2);
    json_t *first = json_array_get(json_array_get(near, 0), 0);
    EXPECT(json_integer_value(json_object_get(json_object_get(first, "sizes"), "n")) == 1100);
    EXPECT(json_array_size(json_array_get(near, 1)) == 2); /* both records at n=4000 */
    json_decref(near);
    near = results_landscapes_near(lands, at, false, NULL, NULL);
    EXPECT(json_array_size(near) == 3);
    first = json_array_get(json_array_get(near, 0), 0);
    EXPECT(json_integer_value(json_object_get(json_object_get(first, "sizes"), "n")) == 1000);
    json_decref(near);
    json_decref(at);
    json_decref(lands);

    char *cmd = xasprintf("rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0);
    free(cmd);
    free(path);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
