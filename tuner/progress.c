#include "progress.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int tty = -1;
static bool drawn;

static bool is_tty(void) {
    if (tty < 0) tty = isatty(2);
    return tty == 1;
}

void progress(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (is_tty()) {
        /* One line, cut to the terminal's width: a wrapped line breaks the
         * redraw. */
        char line[1024];
        struct winsize ws;
        int width = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 80;
        vsnprintf(line, sizeof line, fmt, ap);
        if (width - 1 < (int)sizeof line) line[width - 1] = '\0';
        fputs("\r\x1b[K", stderr);
        fputs(line, stderr);
        drawn = true;
    } else {
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
    fflush(stderr);
}

void progress_end(void) {
    if (drawn) fputs("\r\x1b[K", stderr);
    drawn = false;
}

void progress_note(const char *fmt, ...) {
    progress_end();
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
