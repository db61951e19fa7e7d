/* The CLI's end of a runner child: requests out, answer lines in, and a
 * watchdog that kills a runner whose kernel hangs. */
#ifndef BARTUNE_RUNNER_CLIENT_H
#define BARTUNE_RUNNER_CLIENT_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct {
    const char *path;
    int ordinal;
    pid_t pid;
    int to, from;
    char buf[16384];
    size_t len;
} runner_client;

typedef enum {
    RUNNER_OK,          /* answer starts with "ok " */
    RUNNER_FAIL,        /* answer starts with "fail " */
    RUNNER_TIMEOUT,     /* no answer in time: the runner was killed */
    RUNNER_DIED,        /* the runner ended without answering */
    RUNNER_INTERRUPTED, /* Ctrl-C */
} runner_result;

bool runner_start(runner_client *r, const char *path, int ordinal);
void runner_stop(runner_client *r);
/* Sends `request` and waits for its answer (without "ok "/"fail ").
 * `timeout` covers the wait up to a "probe MS" line; after one, the limit
 * becomes 5 s + `launches_after_probe` x MS x 4. */
runner_result runner_request(runner_client *r, const char *request, double timeout,
                             int launches_after_probe, char **answer);

#endif
