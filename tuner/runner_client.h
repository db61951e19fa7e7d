/* The CLI's end of a runner child: one JSON request per line out, one JSON
 * answer per line in, on a pair of pipes of their own (the runner's stdout
 * and stderr go to a log), and a watchdog that kills a runner whose kernel
 * hangs. */
#ifndef BARTUNE_RUNNER_CLIENT_H
#define BARTUNE_RUNNER_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#define RUNNER_PROTOCOL 4 /* 3: problem slots, check sizes in measures, three input sets; 4: scratch_zero_kept */
/* The most scratch memory a launch may ask (64 GiB: past any card's); the
 * CLI refuses more as launch_refused, the runner as a bad request. */
#define RUNNER_SCRATCH_MAX (1ll << 36)

typedef struct {
    pid_t pid;
    int to, from; /* from: non-blocking */
    char buf[65536];
    size_t len;
    double limit, deadline; /* of the request in flight */
    json_t *failed;         /* the answer of a request that could not be sent */
} runner_client;

typedef enum {
    RUNNER_OK,          /* {"ok": true, ...} */
    RUNNER_FAIL,        /* {"ok": false, "status": ..., "message": ...} */
    RUNNER_TIMEOUT,     /* no answer in time: the runner was killed */
    RUNNER_DIED,        /* the runner ended without answering */
    RUNNER_INTERRUPTED, /* Ctrl-C */
} runner_result;

/* Called every few milliseconds while a request waits for its answer:
 * run uses it to keep nvcc busy while the GPU measures. */
extern void (*runner_idle)(void *ctx);
extern void *runner_idle_ctx;

/* Starts `path` for GPU `ordinal`; its stdout and stderr append to `log`. */
bool runner_start(runner_client *r, const char *path, int ordinal, const char *log);
/* The same, with the runner's command line behind `wrapper` (a NULL-ended
 * argv such as compute-sanitizer's). */
bool runner_start_under(runner_client *r, const char *const *wrapper, const char *path, int ordinal,
                        const char *log);
void runner_stop(runner_client *r);
/* Asks the runner to quit and waits up to `timeout` s for its exit status
 * (a wrapper's verdict); false (runner killed) if it does not end. */
bool runner_finish(runner_client *r, double timeout, int *status);
/* Sends `request` and waits for its answer, which *answer receives (always
 * an object: on TIMEOUT and DIED one with "status" and "message").
 * `timeout` covers the wait up to a {"probe_ms", "launches_left"} line;
 * after one, the limit becomes 5 s + launches_left x probe x 4. */
runner_result runner_request(runner_client *r, json_t *request, double timeout, json_t **answer);

/* The same in steps, for several runners at once (one per GPU): send, then
 * call runner_receive until it returns true (the answer and result set), with
 * runner_wait between calls. */
void runner_send(runner_client *r, json_t *request, double timeout);
bool runner_receive(runner_client *r, runner_result *result, json_t **answer);
/* Waits up to `ms` for an answer from any of the n runners (NULLs skipped),
 * calling runner_idle first. */
void runner_wait(runner_client *const *rs, int n, int ms);

#endif
