#include "results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "record.h"
#include "util.h"

/* Sealed history (`bartune seal`): <space>.jsonl.gz holds the older records
 * (in git, 12-20x smaller than the plain text). It is read through gzip,
 * which every Debian and Ubuntu base system has, up to a bound: a planted
 * archive cannot fill memory (records inflate 20x; zeros, 1000x). */
enum { SEALED_RATIO = 64 };
#define SEALED_SLACK ((size_t)64 << 20)

char *results_sealed_path(const char *path) {
    return xasprintf("%s.gz", path);
}

char *results_inflate(const char *gz, size_t *len, char **err) {
    /* O_NONBLOCK: a FIFO planted there does not hang the open (and is refused) */
    int in = open(gz, O_RDONLY | O_CLOEXEC | O_NONBLOCK), p[2] = {-1, -1};
    struct stat st_in;
    bool regular = in >= 0 && fstat(in, &st_in) == 0 && S_ISREG(st_in.st_mode);
    if (!regular || !proc_pipe(p)) {
        *err = xasprintf("cannot read %s: %s", gz,
                         in >= 0 && !regular ? "not a regular file" : strerror(errno));
        if (in >= 0) close(in);
        return NULL;
    }
    char prog[] = "gzip", dc[] = "-dc", *argv[] = {prog, dc, NULL};
    pid_t pid = proc_start(argv, in, p[1], -1);
    close(in);
    close(p[1]);
    strbuf sb = {0};
    char buf[65536];
    bool over = false;
    const size_t max = SEALED_SLACK + SEALED_RATIO * (size_t)st_in.st_size;
    for (ssize_t n; pid > 0 && (n = read(p[0], buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || (over = sb.len + (size_t)n > max)) break;
        sb_append(&sb, buf, (size_t)n);
    }
    close(p[0]);
    int st = 0;
    bool ended = pid > 0 && !over && proc_wait(pid, &st);
    if (pid > 0 && !ended) proc_kill(pid);
    if (!ended || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        char why[64];
        if (over)
            *err = xasprintf("%s inflates to more than %zu MiB (%d times its size and 64 MiB): "
                             "not a sealed results history of bartune (move it away, or restore "
                             "it with git checkout)",
                             gz, max >> 20, SEALED_RATIO);
        else if (pid <= 0)
            *err = xasprintf("cannot start gzip to read %s: %s", gz, strerror(errno));
        else
            *err = xasprintf("%s: gzip -dc failed (%s): not a sealed results history, or a "
                             "damaged one (restore it with git checkout, or move it away)",
                             gz, ended ? proc_describe(st, why) : "interrupted");
        free(sb.data);
        return NULL;
    }
    *len = sb.len;
    return sb_take(&sb);
}

/* Appends the records of one file's text to `arr`: one device throughout
 * (first_key carries across the sealed and the plain part). */
static bool parse_records(const char *path, char *text, size_t len, const char *want_key,
                          json_t *arr, char first_key[160], int *dropped, char **err) {
    int lineno = 0;
    for (char *line = text, *next; line < text + len; line = next) {
        char *nl = memchr(line, '\n', (size_t)(text + len - line));
        next = nl ? nl + 1 : text + len;
        lineno++;
        if (nl) *nl = '\0';
        if (!*line) continue;
        json_error_t je;
        json_t *rec = json_loadb(line, (size_t)(next - line) - (nl ? 1 : 0), 0, &je);
        /* Whole lines are written in one write, so only the last can be torn
         * (then it does not parse, and is dropped); any other line that is
         * not a record means this is not a results file of this device. */
        char *why = rec ? record_check(rec, want_key) : NULL;
        if (rec && !why && !want_key) {
            device_info d;
            char key[160];
            record_device(rec, &d);
            device_key(&d, key);
            if (!first_key[0])
                snprintf(first_key, 160, "%s", key);
            else if (strcmp(key, first_key))
                why = xasprintf("a record of device %s after records of %s: a results file holds "
                                "one device's records (split it, or merge each device's apart)",
                                key, first_key);
        }
        if (!rec && !nl) {
            (*dropped)++;
            break;
        }
        if (!rec || why) {
            *err = xasprintf("%s:%d: %s; pass a results/<device>/<space>.jsonl file of this "
                             "bartune",
                             path, lineno, why ? why : "not a JSON record");
            free(why);
            json_decref(rec);
            return false;
        }
        json_array_append_new(arr, rec);
    }
    return true;
}

/* One part: a sealed .gz through gzip, or plain text (absent: no records). */
static bool load_part(const char *path, bool sealed, const char *want_key, json_t *arr,
                      char first_key[160], int *dropped, char **err) {
    size_t len = 0;
    char *text = sealed ? results_inflate(path, &len, err) : read_file(path, &len);
    if (!text && !sealed) {
        if (errno == ENOENT) return true;
        *err = xasprintf("cannot read %s: %s", path, strerror(errno));
    }
    bool ok = text && parse_records(path, text, len, want_key, arr, first_key, dropped, err);
    free(text);
    return ok;
}

json_t *results_load(const char *path, const char *want_key, int *dropped, char **err) {
    *dropped = 0;
    json_t *arr = json_array();
    char first_key[160] = ""; /* one file, one device: --records of several are refused */
    size_t n = strlen(path);
    bool ok;
    if (n > 3 && !strcmp(path + n - 3, ".gz")) {
        ok = load_part(path, true, want_key, arr, first_key, dropped, err);
    } else {
        char *gz = results_sealed_path(path);
        ok = (!file_exists(gz) || load_part(gz, true, want_key, arr, first_key, dropped, err)) &&
             load_part(path, false, want_key, arr, first_key, dropped, err);
        free(gz);
    }
    if (!ok) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

/* Makes the next append start on a fresh line: a torn last line (one that
 * does not parse) is cut; a complete record that lacks only its newline
 * gets one. */
static bool mend_tail(int fd) {
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0) return true;
    char last;
    if (pread(fd, &last, 1, size - 1) != 1) return false;
    if (last == '\n') return true;
    off_t pos = size;
    char buf[4096];
    off_t start = 0;
    while (pos > 0 && !start) {
        size_t chunk = pos > (off_t)sizeof buf ? sizeof buf : (size_t)pos;
        if (pread(fd, buf, chunk, pos - (off_t)chunk) != (ssize_t)chunk) return false;
        for (size_t i = chunk; i > 0 && !start; i--)
            if (buf[i - 1] == '\n') start = pos - (off_t)chunk + (off_t)i;
        pos -= (off_t)chunk;
    }
    size_t tail = (size_t)(size - start);
    char *text = xmalloc(tail + 1);
    bool whole = pread(fd, text, tail, start) == (ssize_t)tail;
    json_error_t je;
    json_t *rec = whole ? json_loadb(text, tail, 0, &je) : NULL;
    free(text);
    bool ok = rec ? write(fd, "\n", 1) == 1 : ftruncate(fd, start) == 0;
    json_decref(rec);
    return ok;
}

/* results_open's way out after a failure: nothing held (fds closed, the
 * lock released, memory freed), *s cleared. */
static bool open_failed(results_store *s) {
    if (s->fd >= 0) close(s->fd);
    if (s->lock_fd >= 0) close(s->lock_fd);
    free(s->path);
    json_decref(s->records);
    memset(s, 0, sizeof *s);
    s->fd = s->lock_fd = -1;
    return false;
}

bool results_open(results_store *s, const char *dir, const char *space, const char *key,
                  char **err) {
    memset(s, 0, sizeof *s);
    s->fd = s->lock_fd = -1;
    if (!mkdir_p(dir)) {
        *err = xasprintf("cannot create %s: %s", dir, strerror(errno));
        return false;
    }
    char *lock = xasprintf("%s/.%s.lock", dir, space);
    /* Children must not hold the lock; a symlink is not followed (the pid
     * written into the lock would land in its target). */
    s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (s->lock_fd < 0) {
        *err = xasprintf("cannot open the lock %s: %s", lock, strerror(errno));
        free(lock);
        return open_failed(s);
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char holder[32] = "";
        ssize_t n = pread(s->lock_fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        msg_warn("waiting for %s: another bartune (pid %s) is tuning into the same results", lock,
                 holder[0] ? holder : "?");
        if (flock(s->lock_fd, LOCK_EX) != 0) {
            *err = xasprintf("gave up waiting for the lock %s: %s", lock, strerror(errno));
            free(lock);
            return open_failed(s);
        }
    }
    char pid[32];
    int pl = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(s->lock_fd, 0) != 0 || pwrite(s->lock_fd, pid, (size_t)pl, 0) != pl) {
        /* the pid is only for the message above */
    }
    free(lock);
    s->path = xasprintf("%s/%s.jsonl", dir, space);
    /* Check before mending: a file that is not ours is refused untouched. */
    int dropped;
    s->records = results_load(s->path, key, &dropped, err);
    if (!s->records) return open_failed(s);
    s->fd = open(s->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
    struct stat st;
    if (s->fd >= 0 && (fstat(s->fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        *err = xasprintf("%s is not a regular file: move it away (records are appended there)",
                         s->path);
        return open_failed(s);
    }
    if (s->fd < 0 || !mend_tail(s->fd)) {
        *err = xasprintf("cannot open %s for appending: %s", s->path, strerror(errno));
        return open_failed(s);
    }
    if (dropped) msg_warn("%s: ignored %d unreadable line(s)", s->path, dropped);
    return true;
}

/* The new sealed history in a fresh file beside the old: its bytes, then one
 * more gzip member of the plain text (gzip reads members in a row as one
 * text). Read back and compared before it replaces the old. */
static bool write_sealed(const char *gz, const char *plain_path, const char *old, size_t old_len,
                         const char *plain, size_t plain_len, char **err) {
    char *tmp = xasprintf("%s.tmp.%ld", gz, (long)getpid());
    unlink(tmp);
    int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int in = open(plain_path, O_RDONLY | O_CLOEXEC);
    size_t raw_len = 0;
    char *raw = file_exists(gz) ? read_file(gz, &raw_len) : xstrdup("");
    bool ok = out >= 0 && in >= 0 && raw && write(out, raw, raw_len) == (ssize_t)raw_len;
    char prog[] = "gzip", best[] = "-9", noname[] = "-n", c[] = "-c";
    char *argv[] = {prog, best, noname, c, NULL};
    pid_t pid = ok ? proc_start(argv, in, out, -1) : -1;
    int st = 0;
    const bool waited = pid > 0 && proc_wait(pid, &st);
    const bool gzipped = waited && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    ok = gzipped && fsync(out) == 0;
    char why[64];
    if (waited && !gzipped)
        *err = xasprintf("cannot write %s: gzip ended with %s", tmp, proc_describe(st, why));
    else if (!ok)
        *err = xasprintf("cannot write %s: %s", tmp,
                         pid > 0 && !waited ? "interrupted" : strerror(errno));
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    free(raw);
    size_t back_len = 0;
    char *back = ok ? results_inflate(tmp, &back_len, err) : NULL;
    if (back && (back_len != old_len + plain_len || memcmp(back, old, old_len) ||
                 memcmp(back + old_len, plain, plain_len))) {
        *err = xasprintf("%s does not read back as the records it was written from: nothing "
                         "was changed",
                         tmp);
        ok = false;
    }
    ok = ok && back;
    if (ok && rename(tmp, gz) != 0) {
        *err = xasprintf("cannot replace %s: %s", gz, strerror(errno));
        ok = false;
    }
    if (!ok) unlink(tmp);
    free(back);
    free(tmp);
    return ok;
}

bool results_seal(results_store *s, int *moved, char **err) {
    *moved = 0;
    size_t plain_len = 0, old_len = 0;
    char *plain = read_file(s->path, &plain_len), *gz = results_sealed_path(s->path);
    char *old = !plain ? NULL : file_exists(gz) ? results_inflate(gz, &old_len, err) : xstrdup("");
    if (!plain) *err = xasprintf("cannot read %s: %s", s->path, strerror(errno));
    bool ok = plain && old;
    for (size_t i = 0; ok && i < plain_len; i++)
        *moved += plain[i] == '\n';
    /* A seal killed after its rename left the plain text at the history's
     * end: then only the emptying is left to do. */
    bool sealed_before =
        ok && old_len >= plain_len && !memcmp(old + old_len - plain_len, plain, plain_len);
    if (ok && plain_len && !sealed_before)
        ok = write_sealed(gz, s->path, old, old_len, plain, plain_len, err);
    if (ok && plain_len && (ftruncate(s->fd, 0) != 0 || fsync(s->fd) != 0)) {
        *err = xasprintf("cannot empty %s after sealing it: %s (its records are in %s too; "
                         "seal again)",
                         s->path, strerror(errno), gz);
        ok = false;
    }
    free(plain);
    free(old);
    free(gz);
    return ok;
}

bool results_append(results_store *s, json_t *record, char **err) {
    char *line = json_dumps(record, JSON_COMPACT | JSON_SORT_KEYS);
    size_t len = strlen(line);
    line = xrealloc(line, len + 2);
    line[len++] = '\n';
    /* One write of a whole line: O_APPEND keeps it in one piece. */
    bool ok = write(s->fd, line, len) == (ssize_t)len && fsync(s->fd) == 0;
    free(line);
    if (!ok) {
        *err = xasprintf("cannot append to %s: %s", s->path, strerror(errno));
        return false;
    }
    json_array_append(s->records, record);
    return true;
}

void results_close(results_store *s) {
    if (s->fd >= 0) close(s->fd);
    if (s->lock_fd >= 0) close(s->lock_fd); /* releases the flock */
    json_decref(s->records);
    free(s->path);
    memset(s, 0, sizeof *s);
    s->fd = s->lock_fd = -1;
}

static bool config_contains(json_t *cfg, json_t *part) {
    const char *k;
    json_t *v;
    json_object_foreach(part, k, v) {
        if (!json_equal(json_object_get(cfg, k), v)) return false;
    }
    return true;
}

/* What records are ranked by: the median time, or (--rank energy) the
 * joules a call in the sustained launches; one choice per process. */
static const char *rank_key = "median_ms";

void results_rank_by(const char *key) {
    rank_key = key;
}

bool results_by_energy(void) {
    return !strcmp(rank_key, "joules");
}

double results_rank_value(json_t *rec) {
    json_t *v = json_object_get(rec, rank_key);
    return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : -1;
}

const char *results_rank_status(json_t *rec) {
    const char *st = json_string_value(json_object_get(rec, "status"));
    return st && !strcmp(st, "ok") && results_rank_value(rec) <= 0 ? "rejected" : st;
}

json_t *results_best_matching(json_t *records, json_t *part, json_t *sizes) {
    json_t *best = NULL, *rec;
    size_t i;
    double best_v = 0;
    json_array_foreach(records, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "status"));
        if (!st || strcmp(st, "ok") != 0) continue;
        if (sizes && !json_equal(json_object_get(rec, "sizes"), sizes)) continue;
        if (part && !config_contains(json_object_get(rec, "config"), part)) continue;
        double v = results_rank_value(rec);
        if (v > 0 && (!best || v < best_v)) {
            best = rec;
            best_v = v;
        }
    }
    return best;
}

static int by_rank(const void *a, const void *b) {
    double x = results_rank_value(*(json_t *const *)a), y = results_rank_value(*(json_t *const *)b);
    return (x > y) - (x < y);
}

json_t *results_ranked(json_t *records, json_t *sizes) {
    size_t count = json_array_size(records), k = 0, i;
    json_t **ok = malloc(sizeof(json_t *) * (count ? count : 1)), *rec;
    json_array_foreach(records, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "status"));
        if (st && !strcmp(st, "ok") &&
            (!sizes || json_equal(json_object_get(rec, "sizes"), sizes)) &&
            results_rank_value(rec) > 0)
            ok[k++] = rec;
    }
    qsort(ok, k, sizeof *ok, by_rank);
    json_t *out = json_array();
    for (i = 0; i < k; i++)
        json_array_append(out, ok[i]);
    free(ok);
    return out;
}

json_t *results_best(json_t *records, json_t *sizes) {
    return results_best_matching(records, NULL, sizes);
}

json_t *results_sizes(json_t *records) {
    json_t *out = json_array(), *rec, *z;
    size_t i, k;
    json_array_foreach(records, i, rec) {
        bool seen = false;
        json_array_foreach(out, k, z) seen = seen || json_equal(z, json_object_get(rec, "sizes"));
        if (!seen) json_array_append(out, json_object_get(rec, "sizes"));
    }
    return out;
}

json_t *results_at(json_t *records, json_t *sizes) {
    json_t *out = json_array(), *rec;
    size_t i;
    json_array_foreach(records, i, rec) if (json_equal(json_object_get(rec, "sizes"), sizes))
        json_array_append(out, rec);
    return out;
}

/* How far apart two size tuples are: the sum over sizes of |log2(a / b)|
 * (a size either one lacks counts as far; results_landscapes_near can
 * fill in the declared defaults first). */
static double sizes_distance(json_t *a, json_t *b) {
    double d = 0;
    const char *k;
    json_t *v;
    json_object_foreach(a, k, v) {
        json_t *w = json_object_get(b, k);
        if (!json_is_integer(v) || !json_is_integer(w)) {
            d += 64;
            continue;
        }
        d += fabs(log2((double)(json_integer_value(v) + 1) / (double)(json_integer_value(w) + 1)));
    }
    json_object_foreach(b, k, v) if (!json_object_get(a, k)) d += 64;
    return d;
}

typedef struct {
    double distance;
    size_t order;
    json_t *records;
} landscape;

static int by_distance(const void *x, const void *y) {
    const landscape *a = x, *b = y;
    if (a->distance != b->distance) return a->distance < b->distance ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* The full size tuple of `sizes` (a new reference): full's, or a copy. */
static json_t *full_or_same(json_t *sizes, json_t *(*full)(void *, json_t *), void *ctx) {
    json_t *f = full ? full(ctx, sizes) : NULL;
    return f ? f : json_incref(sizes);
}

json_t *results_landscapes_near(json_t *records, json_t *sizes, bool skip_same,
                                json_t *(*full)(void *ctx, json_t *sizes), void *ctx) {
    json_t *raw = results_sizes(records), *lands = json_array(), *z, *rec;
    json_t *at = full_or_same(sizes, full, ctx);
    size_t nraw = json_array_size(raw), i, k;
    /* each recorded tuple's landscape: tuples equal when full are one, its
     * records in file order (a config measured again: the later record last) */
    size_t *land_of = xmalloc(sizeof *land_of * (nraw + 1));
    json_array_foreach(raw, i, z) {
        json_t *f = full_or_same(z, full, ctx), *l;
        land_of[i] = json_array_size(lands);
        json_array_foreach(lands, k, l) if (json_equal(l, f)) {
            land_of[i] = k;
            break;
        }
        if (land_of[i] == json_array_size(lands)) json_array_append(lands, f);
        json_decref(f);
    }
    size_t nl = json_array_size(lands);
    json_t **recs = xmalloc(sizeof *recs * (nl + 1));
    for (i = 0; i < nl; i++)
        recs[i] = json_array();
    json_array_foreach(records, k, rec) {
        json_t *rz = json_object_get(rec, "sizes");
        json_array_foreach(raw, i, z) if (json_equal(z, rz)) break;
        if (i < nraw) json_array_append(recs[land_of[i]], rec);
    }
    landscape *ls = xmalloc(sizeof *ls * (nl + 1));
    size_t n = 0;
    json_array_foreach(lands, i, z) {
        if (skip_same && json_equal(z, at))
            json_decref(recs[i]);
        else
            ls[n++] = (landscape){sizes_distance(z, at), i, recs[i]};
    }
    qsort(ls, n, sizeof *ls, by_distance);
    json_t *out = json_array();
    for (i = 0; i < n; i++)
        json_array_append_new(out, ls[i].records);
    free(ls);
    free(recs);
    free(land_of);
    json_decref(raw);
    json_decref(lands);
    json_decref(at);
    return out;
}

int results_each_device(const char *dir, const char *space, bool keep_going,
                        bool (*fn)(void *ctx, const char *key, const char *path), void *ctx,
                        bool *ok) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int files = 0;
    while (d && (keep_going || *ok) && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char *path = xasprintf("%s/%s/%s.jsonl", dir, e->d_name, space);
        char *gz = results_sealed_path(path);
        bool found = file_exists(path) || file_exists(gz);
        free(gz);
        if (found) {
            files++;
            *ok = fn(ctx, e->d_name, path) && *ok;
        }
        free(path);
    }
    if (d) closedir(d);
    return files;
}
