#include "runner_client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

/* A pipe no child inherits (dup2 onto 0/1 clears the flag for the runner's
 * own ends): a runner that held its own stdin's write end, or another
 * runner's, would never see EOF when bartune dies, and would live on
 * holding the GPU. */
static bool private_pipe(int fds[2]) {
    if (pipe(fds) != 0) return false;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return true;
}

bool runner_start(runner_client *r, const char *path, int ordinal) {
    int in[2], out[2];
    r->pid = -1;
    r->len = 0;
    if (!private_pipe(in)) return false;
    if (!private_pipe(out)) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    char ord[16];
    snprintf(ord, sizeof ord, "%d", ordinal);
    char *argv[] = {(char *)path, ord, NULL};
    r->pid = proc_start(argv, in[0], out[1], -1);
    close(in[0]);
    close(out[1]);
    r->to = in[1];
    r->from = out[0];
    r->path = path;
    r->ordinal = ordinal;
    return r->pid > 0;
}

void runner_stop(runner_client *r) {
    if (r->pid <= 0) return;
    if (write(r->to, "quit\n", 5) < 0) { /* it may be dead already */
    }
    close(r->to);
    close(r->from);
    /* Give it a moment to free the GPU, then make sure. */
    for (int i = 0; i < 100; i++) {
        int st;
        if (proc_poll(r->pid, &st)) {
            r->pid = -1;
            return;
        }
        usleep(10000);
    }
    proc_kill(r->pid);
    r->pid = -1;
}

/* Takes one line out of the buffer, if a whole one is there. */
static char *take_line(runner_client *r) {
    char *nl = memchr(r->buf, '\n', r->len);
    if (!nl) return NULL;
    size_t n = (size_t)(nl - r->buf);
    char *line = xmalloc(n + 1);
    memcpy(line, r->buf, n);
    line[n] = '\0';
    memmove(r->buf, nl + 1, r->len - n - 1);
    r->len -= n + 1;
    return line;
}

static void kill_runner(runner_client *r) {
    proc_kill(r->pid);
    close(r->to);
    close(r->from);
    r->pid = -1;
}

runner_result runner_request(runner_client *r, const char *request, double timeout,
                             int launches_after_probe, char **answer) {
    *answer = NULL;
    size_t len = strlen(request);
    if (r->pid <= 0 || write(r->to, request, len) != (ssize_t)len || write(r->to, "\n", 1) != 1) {
        if (r->pid > 0) kill_runner(r);
        *answer = xstrdup("the runner is not running");
        return RUNNER_DIED;
    }
    double limit = timeout, deadline = now_seconds() + timeout;
    for (;;) {
        char *line;
        while ((line = take_line(r))) {
            double ms;
            if (sscanf(line, "probe %lf", &ms) == 1) {
                limit = 5.0 + launches_after_probe * ms * 4e-3;
                deadline = now_seconds() + limit;
                free(line);
                continue;
            }
            bool ok = !strncmp(line, "ok", 2), fail = !strncmp(line, "fail", 4);
            if (ok || fail) {
                const char *rest = line + (ok ? 2 : 4);
                *answer = xstrdup(rest + (*rest == ' '));
                free(line);
                return ok ? RUNNER_OK : RUNNER_FAIL;
            }
            free(line); /* unknown chatter */
        }
        if (proc_interrupted) {
            kill_runner(r);
            return RUNNER_INTERRUPTED;
        }
        double left = deadline - now_seconds();
        if (left <= 0) {
            kill_runner(r);
            *answer = xasprintf("no answer within %.1f s: killed (hang or deadlock)", limit);
            return RUNNER_TIMEOUT;
        }
        struct pollfd p = {.fd = r->from, .events = POLLIN};
        int ms = left > 0.2 ? 200 : (int)(left * 1000) + 1;
        int pr = poll(&p, 1, ms);
        if (pr < 0 && errno != EINTR) {
            kill_runner(r);
            *answer = xstrdup("lost the runner's pipe");
            return RUNNER_DIED;
        }
        if (pr <= 0) continue;
        if (r->len + 1 >= sizeof r->buf) r->len = 0; /* absurdly long line: drop it */
        ssize_t got = read(r->from, r->buf + r->len, sizeof r->buf - r->len - 1);
        if (got > 0) {
            r->len += (size_t)got;
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        int st = 0;
        while (!proc_poll(r->pid, &st)) usleep(1000);
        char why[64];
        *answer = xasprintf("the runner ended without answering (%s)", proc_describe(st, why));
        close(r->to);
        close(r->from);
        r->pid = -1;
        return RUNNER_DIED;
    }
}
