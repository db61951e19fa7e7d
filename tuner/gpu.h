/* A GPU to measure on: the runner child, the device it reports, the problem
 * set up at one size tuple, and one measurement of a compiled variant at one
 * launch configuration. Shared by run and bench. */
#ifndef BARTUNE_GPU_H
#define BARTUNE_GPU_H

#include <jansson.h>

#include "config.h"
#include "device.h"
#include "options.h"
#include "runner_client.h"
#include "space.h"

typedef struct {
    const options *o;
    space *s;
    device_info dev;
    char key[160], fingerprint[320];
    int ordinal, devices; /* this GPU's number; how many the driver sees */
    runner_client runner;
    char *log;           /* the runner's stdout and stderr: kernels' printf lands here */
    char *reference_lib; /* the problem's CPU reference, built */
    char ref_key[17];
    json_t *sizes;    /* set up at these (object), or NULL */
    json_t *instance; /* the space's instance at them */
    bool cpu_only;    /* gpu_open_cpu: problems set up on the CPU alone */
    double sustain_s; /* measures also call back to back this long (bench's rows; 0: not) */
} gpu;

/* The protocol's opening: the runner's version checked, its device read
 * (and in *devices, when not NULL, how many GPUs the driver sees).
 * False with *why (owned) if the runner does not answer as one. */
bool gpu_hello(runner_client *r, double timeout, device_info *d, int *devices, char **why);
/* Where GPU ordinal's runner writes its stdout and stderr: runner.log for
 * GPU 0 (and a run on one GPU), runner-gpuN.log beside it for the others. */
char *gpu_log_path(const options *o, int ordinal);
/* Starts a runner on GPU `ordinal`, learns its device and builds the
 * problem's reference. Prints why not and returns an exit code other than
 * EXIT_OK on failure. */
int gpu_open(gpu *g, const options *o, space *s, int ordinal);
/* A runner for the CPU half of a problem (inputs and reference, as bartune
 * check runs them), GPU or not; `dev` is the device the space is expanded
 * for. Same returns as gpu_open. */
int gpu_open_cpu(gpu *g, const options *o, space *s, const device_info *dev);
void gpu_close(gpu *g);
/* Sets up the problem at `sizes` with `instance` (see space_instance). */
bool gpu_problem(gpu *g, json_t *sizes, json_t *instance);
/* Verifies and times `cubin` at config `values` (compile-time and launch
 * values; reject_ms > 0: one timed launch if it is slower than that): the runner's answer in
 * *answer, the launch geometry used in *geometry (NULL when launch() failed: then false is returned
 * and the error printed; the run must stop). */
bool gpu_measure(gpu *g, const char *cubin, const config *values, double reject_ms,
                 runner_result *r, json_t **answer, json_t **geometry);
/* gpu_measure's request, sent without waiting: the answer comes through
 * runner_receive(&g->runner, ...). False (printed) as gpu_measure. When
 * launch() gives a geometry no GPU launches (0, or 2^31 and more), nothing
 * is sent and *refused gets the launch_refused answer (else NULL): a record
 * of that configuration, and the run goes on. gpu_measure answers it the
 * same way (RUNNER_FAIL). */
bool gpu_measure_send(gpu *g, const char *cubin, const config *values, double reject_ms,
                      json_t **geometry, json_t **refused);
/* The same on another runner (one under compute-sanitizer): set up the
 * current problem; measure with `sanitize` (one checked launch, no timing). */
bool gpu_problem_on(gpu *g, runner_client *r);
bool gpu_measure_on(gpu *g, runner_client *rc, const char *cubin, const config *values,
                    bool sanitize, double reject_ms, double timeout, runner_result *r,
                    json_t **answer, json_t **geometry);
/* Verifies and times a host baseline's library (host_baseline_build) on
 * the problem set up now, as a kernel would be; true when it answered ok. */
bool gpu_measure_host(gpu *g, const char *lib, runner_result *r, json_t **answer);
/* After a crash, hang or sticky error: a new runner with the same problem. */
bool gpu_restart(gpu *g);

#endif
