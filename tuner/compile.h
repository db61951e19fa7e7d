/* nvcc, several at once, through a content-addressed cache: the key covers
 * the rendered source, the flags and nvcc's version, so a second run of the
 * same space compiles nothing. */
#ifndef BARTUNE_COMPILE_H
#define BARTUNE_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { COMPILE_PENDING, COMPILE_OK, COMPILE_ERROR, COMPILE_TIMEOUT } compile_status;

typedef struct {
    int registers, smem_static, stack, spill_stores, spill_loads;
} resources;

typedef struct {
    const char *source; /* rendered .cu (not owned) */
    char arch[16];      /* this variant's architecture ("sm_90a"); "": the compiler's */
    char key[33];       /* hex of the 128-bit content hash */
    char *cubin;        /* cache/<key>.cubin once compiled */
    compile_status status;
    char *log; /* nvcc's output: errors or ptxas' report */
    resources res;
    bool cached;
} compile_job;

typedef struct {
    const char *nvcc;
    const char *cache_dir;
    const char *arch; /* "sm_90" */
    int jobs;
    double timeout;
    char *version; /* filled by compiler_init */
} compiler;

/* Finds nvcc's version; false with a message if nvcc does not run. */
bool compiler_init(compiler *c);
void compiler_free(compiler *c);
/* Sets job->key from the source, flags, architecture and version. */
void compile_key(const compiler *c, compile_job *job);
/* nvcc's flag for `arch`: -arch=sm_90, or -gencode=...,code=sm_90a. */
void compile_arch_flag(const char *arch, char *out, size_t size);
typedef void (*compile_tick_fn)(void *ctx, const compile_job *job, int done, int total);
/* Compiles every job not in the cache; calls `tick` after each one ends.
 * Returns false only when interrupted (Ctrl-C). */
bool compile_all(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick, void *ctx);

/* The same in the background, for compiling while the runner measures:
 * start it, poll it whenever there is a moment (it starts nvcc in free
 * slots and collects finished ones; false once all are done or on Ctrl-C),
 * wait until the first `upto` jobs are done (others keep going), free it
 * (kills what still runs). Jobs are taken in order. */
typedef struct compile_pool compile_pool;
compile_pool *compile_pool_start(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick,
                                 void *ctx);
bool compile_pool_poll(compile_pool *p);
/* A pool with nothing queued; compile_pool_push queues a job (once), and
 * compile_pool_wait_job waits for one (queueing it if need be). */
compile_pool *compile_pool_open(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick,
                                void *ctx);
void compile_pool_push(compile_pool *p, int job);
bool compile_pool_wait_job(compile_pool *p, int job);
bool compile_pool_wait(compile_pool *p, int upto);
void compile_pool_free(compile_pool *p);
void compile_job_free(compile_job *job);
/* Parses ptxas -v output. */
void parse_ptxas(const char *log, resources *r);
const char *compile_status_name(compile_status s);

#endif
