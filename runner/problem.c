#include "problem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bartune_reference.h"
#include "driver.h"
#include "util.h"

static const struct {
    const char *name;
    size_t bytes;
    bool fp;
} TYPES[] = {{"float", 4, true},     {"double", 8, true},       {"int", 4, false},
             {"unsigned", 4, false}, {"long long", 8, false},   {"unsigned long long", 8, false},
             {"size_t", 8, false},   {"__nv_bfloat16", 2, true}};

static bool type_of(const char *name, size_t *bytes, bool *fp) {
    for (size_t i = 0; name && i < sizeof TYPES / sizeof TYPES[0]; i++)
        if (!strcmp(TYPES[i].name, name)) {
            *bytes = TYPES[i].bytes;
            *fp = TYPES[i].fp;
            return true;
        }
    return false;
}

/* float -> bf16 bits, rounded to nearest even (inputs are finite). */
static uint16_t bf16_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element i of an input: uniform in [lo, hi] (floats: 24 random bits), or
 * a constant. The same seed gives the same inputs on every machine. */
static void generate(rbuf *b, int index, uint64_t seed, size_t begin, size_t end) {
    const char *kind = json_string_value(json_object_get(b->init, "kind"));
    double lo = json_number_value(json_object_get(b->init, "lo"));
    double hi = json_number_value(json_object_get(b->init, "hi"));
    bool konst = kind && !strcmp(kind, "const");
    uint64_t stream = seed ^ ((uint64_t)(index + 1) * 0xd1b54a32d192ed03ull);
    for (size_t i = begin; i < end; i++) {
        uint64_t r = splitmix64(stream ^ (i * 0x2545f4914f6cdd1dull));
        double u = (double)(r >> 40) * (1.0 / 16777216.0);
        double v = konst   ? lo
                   : b->fp ? lo + (hi - lo) * u
                           : lo + (double)(r % (uint64_t)(hi - lo + 1));
        char *dst = (char *)b->host + i * b->elem;
        if (!strcmp(b->type, "float"))
            *(float *)dst = (float)v;
        else if (!strcmp(b->type, "double"))
            *(double *)dst = v;
        else if (b->fp) /* bf16 */
            *(uint16_t *)dst = bf16_bits((float)v);
        else if (b->elem == 4)
            *(int32_t *)dst = (int32_t)(long long)v;
        else
            *(int64_t *)dst = (int64_t)v;
    }
}

/* Work split over threads: inputs, then the reference. */
typedef struct {
    rproblem *p;
    bt_problem *view;
    bt_reference_fn ref;
    uint64_t seed;
    int part, parts, rc;
    char error[256];
} job;

static void *generate_part(void *arg) {
    job *j = arg;
    for (int b = 0; b < j->p->n_bufs; b++) {
        rbuf *buf = &j->p->bufs[b];
        if (!buf->host) continue;
        size_t begin = buf->length * (size_t)j->part / (size_t)j->parts;
        size_t end = buf->length * (size_t)(j->part + 1) / (size_t)j->parts;
        generate(buf, b, j->seed, begin, end);
    }
    return NULL;
}

static void *reference_part(void *arg) {
    job *j = arg;
    bt_problem local = *j->view; /* own error buffer */
    local.error[0] = '\0';
    j->rc = j->ref(&local, j->part, j->parts);
    if (j->rc) snprintf(j->error, sizeof j->error, "%s", local.error[0] ? local.error : "failed");
    return NULL;
}

/* Runs fn on every core; returns the first nonzero rc (message in *why). */
static bool run_parts(void *(*fn)(void *), job *proto, char **why) {
    enum { MAX_THREADS = 256 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    pthread_t th[MAX_THREADS];
    bool started[MAX_THREADS];
    job *jobs = calloc((size_t)t, sizeof *jobs);
    for (int i = 0; i < t; i++) {
        jobs[i] = *proto;
        jobs[i].part = i;
        jobs[i].parts = t;
        started[i] = pthread_create(&th[i], NULL, fn, &jobs[i]) == 0;
        if (!started[i]) fn(&jobs[i]); /* no thread: do it here */
    }
    bool ok = true;
    for (int i = 0; i < t; i++) {
        if (started[i]) pthread_join(th[i], NULL);
        if (jobs[i].rc && ok) {
            *why = xasprintf("the CPU reference failed: %s", jobs[i].error);
            ok = false;
        }
    }
    free(jobs);
    return ok;
}

static size_t expect_elem(const rproblem *p, const rbuf *b) {
    return p->bound_rule ? sizeof(double) : b->elem;
}

/* The reference cache: every expected array (and bound), one after
 * another, behind a header naming their byte counts. */
static const char CACHE_MAGIC[8] = "BTREF01\n";

static bool cache_load(rproblem *p, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char magic[8];
    bool ok = read(fd, magic, 8) == 8 && !memcmp(magic, CACHE_MAGIC, 8);
    for (int i = 0; ok && i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        if (!b->expect) continue;
        size_t want[2] = {b->length * expect_elem(p, b), b->bound ? b->length * sizeof(double) : 0};
        void *dst[2] = {b->expect, b->bound};
        for (int k = 0; ok && k < 2; k++) {
            uint64_t bytes;
            ok = read(fd, &bytes, 8) == 8 && bytes == want[k];
            for (size_t done = 0; ok && done < want[k];) {
                ssize_t r = read(fd, (char *)dst[k] + done, want[k] - done);
                ok = r > 0;
                if (ok) done += (size_t)r;
            }
        }
    }
    char extra;
    ok = ok && read(fd, &extra, 1) == 0;
    close(fd);
    return ok;
}

static void cache_store(rproblem *p, const char *path) {
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write(fd, CACHE_MAGIC, 8) == 8;
    for (int i = 0; ok && i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        if (!b->expect) continue;
        uint64_t bytes[2] = {b->length * expect_elem(p, b),
                             b->bound ? b->length * sizeof(double) : 0};
        const void *src[2] = {b->expect, b->bound};
        for (int k = 0; ok && k < 2; k++) {
            ok = write(fd, &bytes[k], 8) == 8;
            for (size_t done = 0; ok && done < bytes[k];) {
                ssize_t w = write(fd, (const char *)src[k] + done, bytes[k] - done);
                ok = w > 0;
                if (ok) done += (size_t)w;
            }
        }
    }
    if (fd >= 0) ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) unlink(tmp); /* a cache is only a cache */
    free(tmp);
}

static bt_reference_fn find_reference(const char *lib, const char *name, char **why) {
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        *why = xasprintf("cannot load the CPU reference %s: %s", lib, dlerror());
        return NULL;
    }
    const bt_reference *table = dlsym(h, "bartune_references");
    for (int i = 0; table && table[i].name && i < 1024; i++)
        if (!strcmp(table[i].name, name) && table[i].reference) return table[i].reference;
    *why =
        xasprintf("%s has no entry '%s' in bartune_references (see templates/bartune_reference.h)",
                  lib, name);
    return NULL;
}

/* Reads the buffers of the request; allocates their host memory. */
static bool read_buffers(rproblem *p, json_t *list, char **why) {
    p->n_bufs = (int)json_array_size(list);
    p->bufs = calloc((size_t)(p->n_bufs ? p->n_bufs : 1), sizeof *p->bufs);
    for (int i = 0; i < p->n_bufs; i++) {
        json_t *j = json_array_get(list, (size_t)i);
        rbuf *b = &p->bufs[i];
        const char *name = json_string_value(json_object_get(j, "name"));
        const char *type = json_string_value(json_object_get(j, "type"));
        const char *role = json_string_value(json_object_get(j, "role"));
        json_int_t len = json_integer_value(json_object_get(j, "length"));
        b->name = xstrdup(name ? name : "?");
        b->type = xstrdup(type ? type : "?");
        b->role = role && !strcmp(role, "in")      ? ROLE_IN
                  : role && !strcmp(role, "inout") ? ROLE_INOUT
                                                   : ROLE_OUT;
        if (!name || !role || !type_of(type, &b->elem, &b->fp) || len < 1 ||
            (uint64_t)len > (1ull << 40) / b->elem) {
            *why = xasprintf("buffer %d of the request is malformed", i);
            return false;
        }
        b->length = (size_t)len;
        size_t bytes = b->length * b->elem;
        if (b->role != ROLE_OUT) {
            b->init = json_incref(json_object_get(j, "init"));
            b->host = malloc(bytes);
        }
        if (b->role != ROLE_IN) {
            b->expect = malloc(b->length * expect_elem(p, b));
            if (p->bound_rule) b->bound = malloc(b->length * sizeof(double));
            if (b->role == ROLE_INOUT && !p->bound_rule) memset(b->expect, 0, bytes);
        }
        if ((b->role != ROLE_OUT && !b->host) || (b->role != ROLE_IN && !b->expect) ||
            (p->bound_rule && b->role != ROLE_IN && !b->bound)) {
            *why = xasprintf("out of host memory for buffer '%s' (%zu bytes)", b->name, bytes);
            return false;
        }
    }
    return true;
}

/* Kernel arguments by name: a buffer, or a size/scalar with its type. */
static bool read_args(rproblem *p, json_t *req, char **why) {
    json_t *args = json_object_get(req, "args");
    p->n_args = (int)json_array_size(args);
    p->args = calloc((size_t)(p->n_args ? p->n_args : 1), sizeof *p->args);
    p->arg_ptrs = calloc((size_t)(p->n_args ? p->n_args : 1), sizeof *p->arg_ptrs);
    for (int i = 0; i < p->n_args; i++) {
        json_t *a = json_array_get(args, (size_t)i);
        const char *buf = json_string_value(json_object_get(a, "buffer"));
        rarg *r = &p->args[i];
        if (buf) {
            for (int b = 0; b < p->n_bufs; b++)
                if (!strcmp(p->bufs[b].name, buf)) r->buffer = &p->bufs[b];
            if (!r->buffer) {
                *why = xasprintf("argument %d names unknown buffer '%s'", i, buf);
                return false;
            }
            p->arg_ptrs[i] = &r->buffer->data;
            continue;
        }
        const char *type = json_string_value(json_object_get(a, "type"));
        json_t *v = json_object_get(a, "value");
        size_t bytes;
        bool fp;
        if (!type_of(type, &bytes, &fp) || bytes < 4 || !json_is_number(v)) {
            *why = xasprintf("argument %d has no buffer, or no known type and value", i);
            return false;
        }
        if (!strcmp(type, "float"))
            r->v.f32 = (float)json_number_value(v);
        else if (!strcmp(type, "double"))
            r->v.f64 = json_number_value(v);
        else if (bytes == 4)
            r->v.i32 = (int)json_integer_value(v);
        else
            r->v.i64 = (long long)json_integer_value(v);
        p->arg_ptrs[i] = &r->v;
    }
    return true;
}

/* The reference's view of the problem: sizes, scalars, buffers. */
static bt_problem *make_view(rproblem *p, json_t *req) {
    bt_problem *v = calloc(1, sizeof *v);
    json_t *sizes = json_object_get(req, "sizes"), *scalars = json_object_get(req, "scalars");
    v->n_sizes = (int)json_array_size(sizes);
    const char **sn = calloc((size_t)v->n_sizes + 1, sizeof *sn);
    long long *sv = calloc((size_t)v->n_sizes + 1, sizeof *sv);
    for (int i = 0; i < v->n_sizes; i++) {
        json_t *z = json_array_get(sizes, (size_t)i);
        sn[i] = json_string_value(json_object_get(z, "name"));
        sv[i] = (long long)json_integer_value(json_object_get(z, "value"));
    }
    v->n_scalars = (int)json_array_size(scalars);
    const char **cn = calloc((size_t)v->n_scalars + 1, sizeof *cn);
    double *cv = calloc((size_t)v->n_scalars + 1, sizeof *cv);
    for (int i = 0; i < v->n_scalars; i++) {
        json_t *z = json_array_get(scalars, (size_t)i);
        cn[i] = json_string_value(json_object_get(z, "name"));
        cv[i] = json_number_value(json_object_get(z, "value"));
    }
    v->size_names = sn;
    v->sizes = sv;
    v->scalar_names = cn;
    v->scalars = cv;
    v->n_buffers = p->n_bufs;
    v->buffers = calloc((size_t)p->n_bufs, sizeof *v->buffers);
    for (int i = 0; i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        v->buffers[i] = (bt_buffer){
            b->name,   b->type, b->role == ROLE_IN ? "in" : b->role == ROLE_OUT ? "out" : "inout",
            b->length, b->host, b->expect,
            b->bound};
    }
    return v;
}

static void free_view(bt_problem *v) {
    free((void *)v->size_names);
    free((void *)v->sizes);
    free((void *)v->scalar_names);
    free((void *)v->scalars);
    free(v->buffers);
    free(v);
}

bool problem_setup(rproblem *p, json_t *req, bool *cached, char **why) {
    memset(p, 0, sizeof *p);
    *cached = false;
    const char *name = json_string_value(json_object_get(req, "name"));
    const char *lib = json_string_value(json_object_get(req, "reference"));
    const char *verify = json_string_value(json_object_get(req, "verify"));
    const char *cache = json_string_value(json_object_get(req, "cache"));
    if (!name || !lib || !verify) {
        *why = xstrdup("the problem request lacks name, reference or verify");
        return false;
    }
    p->name = xstrdup(name);
    p->bound_rule = !strcmp(verify, "bound");
    if (!read_buffers(p, json_object_get(req, "buffers"), why) || !read_args(p, req, why))
        return false;
    bt_reference_fn ref = find_reference(lib, name, why);
    if (!ref) return false;
    job proto = {.p = p, .seed = (uint64_t)json_integer_value(json_object_get(req, "seed"))};
    run_parts(generate_part, &proto, why);
    /* inout: the reference sees the initial values in expect as well */
    for (int i = 0; i < p->n_bufs; i++)
        if (p->bufs[i].role == ROLE_INOUT && !p->bound_rule)
            memcpy(p->bufs[i].expect, p->bufs[i].host, p->bufs[i].length * p->bufs[i].elem);
    if (cache && cache_load(p, cache)) {
        *cached = true;
        return true;
    }
    bt_problem *view = make_view(p, req);
    proto.view = view;
    proto.ref = ref;
    double t0 = now_seconds();
    bool ok = run_parts(reference_part, &proto, why);
    free_view(view);
    if (ok && cache && now_seconds() - t0 > 1.0) cache_store(p, cache);
    return ok;
}

static CUresult alloc_copy(CUdeviceptr *d, const void *host, size_t bytes) {
    CUresult r = drv.cuMemAlloc(d, bytes);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyHtoD(*d, host, bytes);
    return r;
}

CUresult problem_upload(rproblem *p, checksum_fn sum) {
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < p->n_bufs && r == CUDA_SUCCESS; i++) {
        rbuf *b = &p->bufs[i];
        size_t bytes = b->length * b->elem;
        r = drv.cuMemAlloc(&b->base, bytes + 2 * GUARD_BYTES);
        if (r == CUDA_SUCCESS) r = drv.cuMemsetD8(b->base, GUARD_BYTE, bytes + 2 * GUARD_BYTES);
        b->data = b->base + GUARD_BYTES;
        if (r == CUDA_SUCCESS && i == 0) r = sum(b->base, GUARD_BYTES, &p->guard_sum);
        if (r == CUDA_SUCCESS) r = sum(b->data + bytes, GUARD_BYTES, &b->guard_after_sum);
        if (r == CUDA_SUCCESS && b->host) r = drv.cuMemcpyHtoD(b->data, b->host, bytes);
        if (r == CUDA_SUCCESS && b->role == ROLE_IN) r = sum(b->data, bytes, &b->sum_data);
        if (r == CUDA_SUCCESS && b->role == ROLE_INOUT)
            r = alloc_copy(&b->d_initial, b->host, bytes);
        if (r == CUDA_SUCCESS && b->expect) {
            size_t eb = b->length * expect_elem(p, b);
            r = alloc_copy(&b->d_expect, b->expect, eb);
            if (r == CUDA_SUCCESS) r = sum(b->d_expect, eb, &b->sum_expect);
        }
        if (r == CUDA_SUCCESS && b->bound) {
            r = alloc_copy(&b->d_bound, b->bound, b->length * sizeof(double));
            if (r == CUDA_SUCCESS) r = sum(b->d_bound, b->length * sizeof(double), &b->sum_bound);
        }
    }
    return r;
}

void problem_free(rproblem *p) {
    for (int i = 0; i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        CUdeviceptr d[] = {b->base, b->d_expect, b->d_bound, b->d_initial};
        for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
            if (d[k] && drv.cuMemFree) drv.cuMemFree(d[k]);
        free(b->name);
        free(b->type);
        free(b->host);
        free(b->expect);
        free(b->bound);
        json_decref(b->init);
    }
    free(p->bufs);
    free(p->args);
    free(p->arg_ptrs);
    free(p->name);
    memset(p, 0, sizeof *p);
}
