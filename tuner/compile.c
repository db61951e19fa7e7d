#include "compile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "proc.h"
#include "util.h"

/* -Xptxas -v: registers, shared memory and spills land in the log. */
static const char *const FLAGS[] = {"-cubin", "-O3", "-std=c++17", "-Xptxas", "-v"};
enum { N_FLAGS = sizeof FLAGS / sizeof FLAGS[0] };

const char *compile_status_name(compile_status s) {
    switch (s) {
    case COMPILE_OK:
        return "ok";
    case COMPILE_ERROR:
        return "compile_error";
    case COMPILE_TIMEOUT:
        return "compile_timeout";
    default:
        return "pending";
    }
}

/* Removes partial outputs (*.tmp.<pid>) that a killed bartune left behind;
 * those of a bartune still running stay. */
static void sweep_partial_outputs(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *t = strstr(e->d_name, ".tmp.");
        if (!t) continue;
        char *end;
        long pid = strtol(t + 5, &end, 10);
        if (*end || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
            char *path = path_join(dir, e->d_name);
            unlink(path);
            free(path);
        }
    }
    if (d) closedir(d);
}

/* `nvcc --version`'s output, read through a pipe (no shell: --nvcc is a
 * path, never a command line); NULL if it could not run. */
static FILE *version_output(const char *nvcc, pid_t *pid) {
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    char *argv[] = {(char *)nvcc, (char *)"--version", NULL};
    *pid = proc_start(argv, -1, fds[1], fds[1]);
    close(fds[1]);
    if (*pid < 0) {
        close(fds[0]);
        return NULL;
    }
    return fdopen(fds[0], "r");
}

bool compiler_init(compiler *c) {
    pid_t pid = -1;
    FILE *p = version_output(c->nvcc, &pid);
    char line[256], *version = NULL;
    while (p && fgets(line, sizeof line, p)) {
        char *r = strstr(line, "release ");
        char *v = r ? strstr(r, ", V") : NULL;
        if (v) {
            v += 3;
            v[strcspn(v, " \r\n")] = '\0';
            version = xstrdup(v);
        }
    }
    if (p) fclose(p);
    int st;
    if (pid > 0) proc_wait(pid, &st);
    if (!version) {
        msg_error("cannot run nvcc (%s --version); install the CUDA toolkit or pass --nvcc PATH",
                  c->nvcc);
        return false;
    }
    c->version = version;
    if (!mkdir_p(c->cache_dir)) {
        msg_error("cannot create the cache folder %s: %s", c->cache_dir, strerror(errno));
        return false;
    }
    sweep_partial_outputs(c->cache_dir);
    if (c->jobs <= 0) c->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (c->jobs <= 0) c->jobs = 1;
    return true;
}

void compiler_free(compiler *c) {
    free(c->version);
    c->version = NULL;
}

static const char *job_arch(const compiler *c, const compile_job *job) {
    return job->arch[0] ? job->arch : c->arch;
}

void compile_key(const compiler *c, compile_job *job) {
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    XXH3_128bits_update(st, job->source, strlen(job->source) + 1);
    for (int i = 0; i < N_FLAGS; i++)
        XXH3_128bits_update(st, FLAGS[i], strlen(FLAGS[i]) + 1);
    const char *arch = job_arch(c, job);
    XXH3_128bits_update(st, arch, strlen(arch) + 1);
    XXH3_128bits_update(st, c->version, strlen(c->version) + 1);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(job->key, sizeof job->key, "%016llx%016llx", (unsigned long long)h.high64,
             (unsigned long long)h.low64);
}

static int field_before(const char *log, const char *label) {
    /* "... 40 registers" -> 40: the number just before `label`. */
    const char *p = strstr(log, label);
    if (!p) return 0;
    while (p > log && p[-1] == ' ')
        p--;
    while (p > log && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return atoi(p);
}

void parse_ptxas(const char *log, resources *r) {
    memset(r, 0, sizeof *r);
    r->registers = field_before(log, " registers");
    r->smem_static = field_before(log, " bytes smem");
    r->stack = field_before(log, " bytes stack frame");
    r->spill_stores = field_before(log, " bytes spill stores");
    r->spill_loads = field_before(log, " bytes spill loads");
}

static char *cache_path(const compiler *c, const compile_job *job, const char *ext) {
    char *name = xasprintf("%s.%s", job->key, ext);
    char *p = path_join(c->cache_dir, name);
    free(name);
    return p;
}

/* A cubin (with its ptxas log) or a recorded compile error is a hit. */
static bool from_cache(const compiler *c, compile_job *job) {
    char *cubin = cache_path(c, job, "cubin"), *log = cache_path(c, job, "log");
    char *err = cache_path(c, job, "err");
    bool hit = false;
    if (file_exists(cubin) && file_exists(log)) {
        job->status = COMPILE_OK;
        job->log = read_file(log, NULL);
        job->cubin = cubin;
        cubin = NULL;
        hit = true;
    } else if (file_exists(err)) {
        job->status = COMPILE_ERROR;
        job->log = read_file(err, NULL);
        hit = true;
    }
    if (hit) {
        if (!job->log) job->log = xstrdup("");
        parse_ptxas(job->log, &job->res);
        job->cached = true;
    }
    free(cubin);
    free(log);
    free(err);
    return hit;
}

typedef struct {
    compile_job *job;
    pid_t pid;
    double start;
    char *tmp_cubin, *tmp_log;
} running;

static bool start_one(const compiler *c, compile_job *job, running *r) {
    char *src = cache_path(c, job, "cu");
    if (!file_exists(src) && !write_file_atomic(src, job->source, strlen(job->source))) {
        msg_error("cannot write %s: %s", src, strerror(errno));
        free(src);
        return false;
    }
    r->job = job;
    r->tmp_cubin = xasprintf("%s/%s.cubin.tmp.%ld", c->cache_dir, job->key, (long)getpid());
    r->tmp_log = xasprintf("%s/%s.log.tmp.%ld", c->cache_dir, job->key, (long)getpid());
    int fd = open(r->tmp_log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    char arch[64];
    compile_arch_flag(job_arch(c, job), arch, sizeof arch);
    char *argv[N_FLAGS + 8];
    int a = 0;
    argv[a++] = (char *)c->nvcc;
    for (int i = 0; i < N_FLAGS; i++)
        argv[a++] = (char *)FLAGS[i];
    argv[a++] = arch;
    argv[a++] = (char *)"-o";
    argv[a++] = r->tmp_cubin;
    argv[a++] = src;
    argv[a] = NULL;
    r->pid = proc_start(argv, -1, fd, fd);
    if (fd >= 0) close(fd);
    r->start = now_seconds();
    free(src);
    return r->pid > 0;
}

void compile_arch_flag(const char *arch, char *out, size_t size) {
    size_t n = strlen(arch);
    if (n > 3 && arch[n - 1] == 'a') /* the -arch=sm_90a shorthand also runs a plain pass */
        snprintf(out, size, "-gencode=arch=compute_%s,code=%s", arch + 3, arch);
    else
        snprintf(out, size, "-arch=%s", arch);
}

static void finish_one(const compiler *c, running *r, int status, bool timed_out) {
    compile_job *job = r->job;
    job->log = read_file(r->tmp_log, NULL);
    if (!job->log) job->log = xstrdup("");
    bool ok = !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) {
        char *cubin = cache_path(c, job, "cubin"), *log = cache_path(c, job, "log");
        /* The log first: a cubin is only trusted with its log beside it. */
        rename(r->tmp_log, log);
        rename(r->tmp_cubin, cubin);
        job->cubin = cubin;
        job->status = COMPILE_OK;
        free(log);
    } else if (timed_out) {
        job->status = COMPILE_TIMEOUT;
        char *m = xasprintf("%snvcc ran past the %.0f s compile limit and was killed\n", job->log,
                            c->timeout);
        free(job->log);
        job->log = m;
    } else {
        char why[64];
        char *m = xasprintf("%snvcc failed: %s\n", job->log, proc_describe(status, why));
        free(job->log);
        job->log = m;
        job->status = COMPILE_ERROR;
        char *err = cache_path(c, job, "err");
        write_file_atomic(err, job->log, strlen(job->log));
        free(err);
    }
    parse_ptxas(job->log, &job->res);
    unlink(r->tmp_cubin);
    unlink(r->tmp_log);
    free(r->tmp_cubin);
    free(r->tmp_log);
    r->job = NULL;
}

static void abandon(running *r) {
    proc_kill(r->pid);
    unlink(r->tmp_cubin);
    unlink(r->tmp_log);
    free(r->tmp_cubin);
    free(r->tmp_log);
    r->job = NULL;
}

struct compile_pool {
    const compiler *c;
    compile_job *jobs;
    int n, next, done, active;
    int *order, queued; /* jobs in the order they are to be compiled */
    bool *in_queue;
    running *slots;
    compile_tick_fn tick;
    void *ctx;
};

compile_pool *compile_pool_open(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick,
                                void *ctx) {
    compile_pool *p = xmalloc(sizeof *p);
    *p = (compile_pool){.c = c, .jobs = jobs, .n = n, .tick = tick, .ctx = ctx};
    p->order = xmalloc(sizeof(int) * (size_t)(n ? n : 1));
    p->in_queue = xmalloc(sizeof(bool) * (size_t)(n ? n : 1));
    memset(p->in_queue, 0, sizeof(bool) * (size_t)(n ? n : 1));
    p->slots = xmalloc(sizeof(running) * (size_t)c->jobs);
    memset(p->slots, 0, sizeof(running) * (size_t)c->jobs);
    return p;
}

void compile_pool_push(compile_pool *p, int job) {
    if (job < 0 || job >= p->n || p->in_queue[job]) return;
    p->in_queue[job] = true;
    p->order[p->queued++] = job;
    compile_pool_poll(p);
}

compile_pool *compile_pool_start(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick,
                                 void *ctx) {
    compile_pool *p = compile_pool_open(c, jobs, n, tick, ctx);
    for (int i = 0; i < n; i++) {
        p->in_queue[i] = true;
        p->order[p->queued++] = i;
    }
    compile_pool_poll(p);
    return p;
}

bool compile_pool_poll(compile_pool *p) {
    const compiler *c = p->c;
    if (proc_interrupted) return false;
    /* Fill free slots; cache hits finish at once. */
    for (int i = 0; i < c->jobs && p->next < p->queued; i++) {
        if (p->slots[i].job) continue;
        compile_job *job = &p->jobs[p->order[p->next++]];
        if (job->status != COMPILE_PENDING || from_cache(c, job)) {
            p->done++;
            if (p->tick) p->tick(p->ctx, job, p->done, p->n);
            i--;
            continue;
        }
        if (!start_one(c, job, &p->slots[i])) {
            job->status = COMPILE_ERROR;
            job->log = xstrdup("could not start nvcc\n");
            p->done++;
            if (p->tick) p->tick(p->ctx, job, p->done, p->n);
            continue;
        }
        p->active++;
    }
    bool progressed = false;
    for (int i = 0; i < c->jobs; i++) {
        running *r = &p->slots[i];
        if (!r->job) continue;
        int status = 0;
        bool ended = proc_poll(r->pid, &status);
        bool timed_out = !ended && now_seconds() - r->start > c->timeout;
        if (timed_out) proc_kill(r->pid);
        if (!ended && !timed_out) continue;
        compile_job *job = r->job;
        finish_one(c, r, status, timed_out);
        p->active--;
        p->done++;
        progressed = true;
        if (p->tick) p->tick(p->ctx, job, p->done, p->n);
    }
    if (progressed) compile_pool_poll(p); /* refill the freed slots at once */
    return p->done < p->queued;
}

bool compile_pool_wait_job(compile_pool *p, int job) {
    compile_pool_push(p, job);
    while (p->jobs[job].status == COMPILE_PENDING) {
        if (proc_interrupted) return false;
        compile_pool_poll(p);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return !proc_interrupted;
}

bool compile_pool_wait(compile_pool *p, int upto) {
    while (p->done < p->n) {
        bool ready = true;
        for (int i = 0; i < upto && ready; i++)
            ready = p->jobs[i].status != COMPILE_PENDING;
        if (ready) return true;
        if (proc_interrupted) return false;
        compile_pool_poll(p);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return !proc_interrupted;
}

void compile_pool_free(compile_pool *p) {
    if (!p) return;
    for (int i = 0; i < p->c->jobs; i++)
        if (p->slots[i].job) abandon(&p->slots[i]);
    free(p->slots);
    free(p->order);
    free(p->in_queue);
    free(p);
}

bool compile_all(const compiler *c, compile_job *jobs, int n, compile_tick_fn tick, void *ctx) {
    compile_pool *p = compile_pool_start(c, jobs, n, tick, ctx);
    bool ok = compile_pool_wait(p, n);
    compile_pool_free(p);
    return ok;
}

void compile_job_free(compile_job *job) {
    free(job->cubin);
    free(job->log);
    job->cubin = job->log = NULL;
}
