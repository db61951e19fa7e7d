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

void (*runner_idle)(void *ctx);
void *runner_idle_ctx;

/* Pipes no child inherits (proc_pipe): a runner that held its own request
 * pipe's write end, or another runner's, would never see EOF when bartune
 * dies, and would live on holding the GPU. */
bool runner_start(runner_client *r, const char *path, int ordinal, const char *log) {
    return runner_start_under(r, NULL, path, ordinal, log);
}

bool runner_start_under(runner_client *r, const char *const *wrapper, const char *path, int ordinal,
                        const char *log) {
    int req[2], ans[2];
    r->pid = -1;
    r->len = 0;
    r->to = r->from = -1;
    r->failed = NULL;
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (logfd < 0 || !proc_pipe(req)) {
        if (logfd >= 0) close(logfd);
        return false;
    }
    if (!proc_pipe(ans)) {
        close(req[0]);
        close(req[1]);
        close(logfd);
        return false;
    }
    char ord[16];
    snprintf(ord, sizeof ord, "%d", ordinal);
    char *argv[16];
    int a = 0;
    for (int i = 0; wrapper && wrapper[i] && a < 13; i++)
        argv[a++] = (char *)wrapper[i];
    argv[a++] = (char *)path;
    argv[a++] = ord;
    argv[a] = NULL;
    int fds[5] = {-1, logfd, logfd, req[0], ans[1]};
    r->pid = proc_start_fds(argv, fds, 5);
    close(req[0]);
    close(ans[1]);
    close(logfd);
    r->to = req[1];
    r->from = ans[0];
    fcntl(r->from, F_SETFL, fcntl(r->from, F_GETFL) | O_NONBLOCK);
    return r->pid > 0;
}

static void close_pipes(runner_client *r) {
    if (r->to >= 0) close(r->to);
    if (r->from >= 0) close(r->from);
    r->to = r->from = -1;
}

void runner_stop(runner_client *r) {
    json_decref(r->failed);
    r->failed = NULL;
    if (r->pid <= 0) return;
    static const char quit[] = "{\"op\":\"quit\"}\n";
    if (write(r->to, quit, sizeof quit - 1) < 0) { /* it may be dead already */
    }
    close_pipes(r);
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

bool runner_finish(runner_client *r, double timeout, int *status) {
    if (r->pid <= 0) return false;
    static const char quit[] = "{\"op\":\"quit\"}\n";
    if (write(r->to, quit, sizeof quit - 1) < 0) {
    }
    close_pipes(r);
    for (double end = now_seconds() + timeout; now_seconds() < end;) {
        if (proc_poll(r->pid, status)) {
            r->pid = -1;
            return true;
        }
        usleep(20000);
    }
    proc_kill(r->pid);
    r->pid = -1;
    return false;
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
    close_pipes(r);
    r->pid = -1;
}

static json_t *status_answer(const char *status, const char *msg) {
    return json_pack("{s:b, s:s, s:s}", "ok", 0, "status", status, "message", msg);
}

static bool send_line(runner_client *r, json_t *request) {
    char *line = json_dumps(request, JSON_COMPACT);
    size_t len = strlen(line);
    line = xrealloc(line, len + 2);
    line[len++] = '\n';
    bool ok = r->pid > 0;
    for (size_t done = 0; ok && done < len;) {
        ssize_t w = write(r->to, line + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    free(line);
    return ok;
}

void runner_send(runner_client *r, json_t *request, double timeout) {
    json_decref(r->failed);
    r->failed = NULL;
    r->limit = timeout;
    r->deadline = now_seconds() + timeout;
    if (!send_line(r, request)) {
        if (r->pid > 0) kill_runner(r);
        r->failed = status_answer("crash", "the runner is not running");
    }
}

/* An answer line, a probe line (which moves the deadline) or noise. */
static bool take_answer(runner_client *r, runner_result *result, json_t **answer) {
    char *line;
    while ((line = take_line(r))) {
        json_t *j = json_loads(line, 0, NULL);
        free(line);
        json_t *probe = json_object_get(j, "probe_ms");
        if (json_is_number(probe)) {
            double left = (double)json_integer_value(json_object_get(j, "launches_left"));
            r->limit = 5.0 + left * json_number_value(probe) * 4e-3;
            r->deadline = now_seconds() + r->limit;
        } else if (json_is_boolean(json_object_get(j, "ok"))) {
            *answer = j;
            *result = json_is_true(json_object_get(j, "ok")) ? RUNNER_OK : RUNNER_FAIL;
            return true;
        }
        json_decref(j); /* not an answer: ignore */
    }
    return false;
}

/* The runner closed its end: it has ended (or is about to). */
static void ended(runner_client *r, json_t **answer) {
    int st = 0;
    while (r->pid > 0 && !proc_poll(r->pid, &st))
        usleep(1000);
    char why[64];
    char *msg = xasprintf("the runner ended without answering (%s)", proc_describe(st, why));
    *answer = status_answer("crash", msg);
    free(msg);
    close_pipes(r);
    r->pid = -1;
}

bool runner_receive(runner_client *r, runner_result *result, json_t **answer) {
    *answer = NULL;
    if (r->failed) {
        *answer = r->failed;
        r->failed = NULL;
        *result = RUNNER_DIED;
        return true;
    }
    for (;;) {
        if (take_answer(r, result, answer)) return true;
        if (proc_interrupted) {
            kill_runner(r);
            *answer = status_answer("interrupted", "interrupted");
            *result = RUNNER_INTERRUPTED;
            return true;
        }
        if (r->len + 1 >= sizeof r->buf) r->len = 0; /* absurdly long line: drop it */
        ssize_t got = read(r->from, r->buf + r->len, sizeof r->buf - r->len - 1);
        if (got > 0) {
            r->len += (size_t)got;
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            ended(r, answer);
            *result = RUNNER_DIED;
            return true;
        }
        break; /* nothing more yet */
    }
    if (now_seconds() < r->deadline) return false;
    kill_runner(r);
    char *msg = xasprintf("no answer within %.1f s: killed (hang or deadlock)", r->limit);
    *answer = status_answer("hang", msg);
    free(msg);
    *result = RUNNER_TIMEOUT;
    return true;
}

void runner_wait(runner_client *const *rs, int n, int ms) {
    if (runner_idle) runner_idle(runner_idle_ctx);
    struct pollfd p[64];
    int k = 0;
    double soonest = 1e300;
    for (int i = 0; i < n && k < 64; i++)
        if (rs[i] && rs[i]->from >= 0) {
            p[k++] = (struct pollfd){.fd = rs[i]->from, .events = POLLIN};
            if (rs[i]->deadline < soonest) soonest = rs[i]->deadline;
        }
    double left = soonest - now_seconds();
    if (left * 1000 < ms) ms = left > 0 ? (int)(left * 1000) + 1 : 0;
    if (poll(p, (nfds_t)k, ms) < 0 && errno != EINTR) usleep(1000);
}

runner_result runner_request(runner_client *r, json_t *request, double timeout, json_t **answer) {
    runner_send(r, request, timeout);
    runner_result result;
    while (!runner_receive(r, &result, answer))
        runner_wait(&r, 1, 200);
    return result;
}
