/* Small helpers shared by the CLI and the runner: growing strings, files,
 * paths and messages. No Lua, no CUDA. */
#ifndef BARTUNE_UTIL_H
#define BARTUNE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Exit codes, as jq names them: a usage error is 2, bad input 3. */
enum exit_code {
    EXIT_OK = 0,
    EXIT_FAILURE_ = 1, /* something failed at run time */
    EXIT_USAGE = 2,    /* the command line is wrong */
    EXIT_INPUT = 3,    /* a space, template or results file is wrong */
    EXIT_NO_GPU = 4,   /* the command needs a GPU and none answered */
    EXIT_INTERRUPTED = 130,
};

extern const char *progname;

/* Prints "bartune: message" on stderr. */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);

/* A growing NUL-terminated string. */
typedef struct {
    char *data;
    size_t len, cap;
} strbuf;
void sb_append(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *sb_take(strbuf *sb);

/* Whole-file read; NULL with errno set on failure. */
char *read_file(const char *path, size_t *len);
/* Writes to path.tmp.<pid>, fsyncs, renames: readers see old or new, never half. */
bool write_file_atomic(const char *path, const char *data, size_t len);
bool mkdir_p(const char *path);
bool file_exists(const char *path);
char *path_join(const char *a, const char *b);
/* Directory holding the running executable (from /proc/self/exe). */
char *self_dir(void);
double now_seconds(void);
/* Current UTC time as ISO 8601 ("2026-11-29T19:00:00Z"). */
void utc_timestamp(char out[32]);

#endif
