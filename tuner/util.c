#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *progname = "bartune";

static void vmsg(const char *prefix, const char *fmt, va_list ap) {
    fprintf(stderr, "%s: %s", progname, prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void msg_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void msg_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        msg_error("out of memory (%zu bytes)", n);
        abort();
    }
    return p;
}

void *xrealloc(void *p, size_t n) {
    p = realloc(p, n ? n : 1);
    if (!p) {
        msg_error("out of memory (%zu bytes)", n);
        abort();
    }
    return p;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

char *xvasprintf(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void sb_append(strbuf *sb, const char *s, size_t n) {
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 256;
        while (cap < sb->len + n + 1)
            cap *= 2;
        sb->data = xrealloc(sb->data, cap);
        sb->cap = cap;
    }
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void sb_puts(strbuf *sb, const char *s) {
    sb_append(sb, s, strlen(s));
}

void sb_printf(strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    sb_puts(sb, s);
    free(s);
}

char *sb_take(strbuf *sb) {
    char *s = sb->data ? sb->data : xstrdup("");
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return s;
}

/* Opened without waiting for a writer, then read blocking: a FIFO planted
 * at `path` reads as empty instead of hanging, while a pipe given as a path
 * (a shell's <(...)) still reads whole. */
char *read_file(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), flags;
    if (fd >= 0 &&
        ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)) {
        close(fd);
        return NULL;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    strbuf sb = {0};
    char buf[65536];
    size_t n;
    errno = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_append(&sb, buf, n);
    const int failed = ferror(f), why = errno; /* the read's own (a folder: EISDIR) */
    fclose(f);
    if (failed) {
        free(sb.data);
        errno = why ? why : EIO;
        return NULL;
    }
    if (len) *len = sb.len;
    return sb_take(&sb);
}

bool write_file_atomic(const char *path, const char *data, size_t len) {
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    /* Written fresh, never through a link planted at either name: a stale
     * tmp goes, O_EXCL | O_NOFOLLOW make it ours, rename replaces a link at
     * `path` rather than writing where it points. */
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool ok = fd >= 0;
    size_t done = 0;
    while (ok && done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    if (fd >= 0) {
        ok = ok && fsync(fd) == 0;
        ok = close(fd) == 0 && ok;
    }
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    free(tmp);
    return ok;
}

bool mkdir_p(const char *path) {
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return false;
        }
        *s = '/';
    }
    bool ok = mkdir(p, 0755) == 0 || errno == EEXIST;
    free(p);
    return ok;
}

bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

char *path_join(const char *a, const char *b) {
    if (b[0] == '/' || !a[0]) return xstrdup(b);
    size_t n = strlen(a);
    return xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

char *self_dir(void) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return xstrdup(".");
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    return xstrdup(buf);
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void utc_timestamp(char out[32]) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
