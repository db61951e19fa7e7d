#include "problems.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/reference.h"

static const problem problems[] = {
    {"pipeline", sizeof(float), pipeline_input, pipeline_reference},
};

const problem *problem_find(const char *name) {
    for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++)
        if (strcmp(problems[i].name, name) == 0) return &problems[i];
    return NULL;
}

typedef struct {
    const problem *p;
    float *in, *ref;
    size_t begin, end;
    uint64_t seed;
} slice;

static void *prepare_slice(void *arg) {
    slice *s = arg;
    s->p->input(s->in, s->begin, s->end, s->seed);
    s->p->reference(s->in, s->ref, s->begin, s->end);
    return NULL;
}

void problem_prepare(const problem *p, float *in, float *ref, size_t n, uint64_t seed) {
    enum { MAX_THREADS = 256 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (size_t)cores;
    if (n < t * 4096) t = 1;
    pthread_t th[MAX_THREADS];
    bool started[MAX_THREADS];
    slice sl[MAX_THREADS];
    for (size_t i = 0; i < t; i++) {
        sl[i] = (slice){p, in, ref, n * i / t, n * (i + 1) / t, seed};
        started[i] = pthread_create(&th[i], NULL, prepare_slice, &sl[i]) == 0;
        if (!started[i]) prepare_slice(&sl[i]); /* no thread: do it here */
    }
    for (size_t i = 0; i < t; i++)
        if (started[i]) pthread_join(th[i], NULL);
}
