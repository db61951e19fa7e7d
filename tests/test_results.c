/* The results store keeps every complete record through torn writes and
 * refuses files of another format. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static json_t *record(const char *status, double ms, long long n) {
    return json_pack("{s:s, s:s, s:f, s:I, s:{s:i}}", "format", RESULTS_FORMAT, "status", status,
                     "median_ms", ms, "n", (json_int_t)n, "config", "stages", (int)(ms * 10));
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

int main(void) {
    char dir[] = "/tmp/bartune-results-XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    results_store s;
    char *err = NULL;
    EXPECT(results_open(&s, dir, "sp", &err));
    EXPECT(json_array_size(s.records) == 0);
    EXPECT(append(&s, record("ok", 2.0, 100), &err));
    EXPECT(append(&s, record("ok", 1.0, 100), &err));
    EXPECT(append(&s, record("hang", 0.5, 100), &err));
    EXPECT(append(&s, record("ok", 0.7, 50), &err));
    char *path = xstrdup(s.path);
    results_close(&s);

    /* a writer killed mid-line */
    append_raw(path, "{\"format\":\"bartune-results-1\",\"status\":\"ok\",\"med");
    int dropped = 0;
    json_t *recs = results_load(path, &dropped, &err);
    EXPECT(recs && json_array_size(recs) == 4 && dropped == 1);
    /* best: least median among ok records of that n; hang is not a result */
    EXPECT(json_number_value(json_object_get(results_best(recs, 100), "median_ms")) == 1.0);
    EXPECT(json_number_value(json_object_get(results_best(recs, 0), "median_ms")) == 0.7);
    json_t *part = json_pack("{s:i}", "stages", 20);
    EXPECT(json_number_value(json_object_get(results_best_matching(recs, part, 0), "median_ms")) == 2.0);
    json_decref(part);
    json_decref(recs);

    /* reopening cuts the torn tail, so the next record starts a fresh line */
    EXPECT(results_open(&s, dir, "sp", &err));
    EXPECT(json_array_size(s.records) == 4);
    EXPECT(append(&s, record("ok", 3.0, 100), &err));
    results_close(&s);
    recs = results_load(path, &dropped, &err);
    EXPECT(recs && json_array_size(recs) == 5 && dropped == 0);
    json_decref(recs);

    /* a file of another format is refused with the file and line */
    append_raw(path, "{\"format\":\"something-else\"}\n");
    free(err);
    err = NULL;
    EXPECT(results_load(path, &dropped, &err) == NULL);
    EXPECT(err && strstr(err, ":6: not a bartune results record"));
    free(err);

    char *cmd = xasprintf("rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0);
    free(cmd);
    free(path);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
