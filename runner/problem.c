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
    return bt_mix64(x + 0x9e3779b97f4a7c15ull);
}

/* Element i of an input: uniform in [lo, hi] (floats: 24 random bits), or
 * a constant. The same seed gives the same inputs on every machine. */
static void generate(rbuf *b, int index, int set, uint64_t seed, size_t begin, size_t end) {
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
        char *dst = (char *)b->host[set] + i * b->elem;
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
    int set, part, parts, rc;
    char error[256];
} job;

static void *generate_part(void *arg) {
    job *j = arg;
    for (int b = 0; b < j->p->n_bufs; b++) {
        rbuf *buf = &j->p->bufs[b];
        if (!buf->host[j->set]) continue;
        size_t begin = buf->length * (size_t)j->part / (size_t)j->parts;
        size_t end = buf->length * (size_t)(j->part + 1) / (size_t)j->parts;
        generate(buf, b, j->set, j->seed, begin, end);
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

size_t problem_expect_elem(const rproblem *p, const rbuf *b) {
    return p->bound_rule ? sizeof(double) : b->elem;
}

/* The arrays a buffer's reference fills for one set, with their bytes (0:
 * none): expected values, bounds, scales. */
static void reference_arrays(const rproblem *p, rbuf *b, int set, void *ptr[3], size_t bytes[3]) {
    ptr[0] = b->expect[set];
    ptr[1] = b->bound[set];
    ptr[2] = b->scale[set];
    bytes[0] = b->expect[set] ? b->length * problem_expect_elem(p, b) : 0;
    bytes[1] = b->bound[set] ? b->length * sizeof(double) : 0;
    bytes[2] = b->scale[set] ? b->length * sizeof(double) : 0;
}

/* The reference cache: for each set and buffer, every array the reference
 * fills, one after another, each behind its byte count. */
static const char CACHE_MAGIC[8] = "BTREF02\n";

static bool read_all(int fd, void *dst, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t r = read(fd, (char *)dst + done, n - done);
        if (r <= 0) return false;
        done += (size_t)r;
    }
    return true;
}

static bool write_all(int fd, const void *src, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, (const char *)src + done, n - done);
        if (w <= 0) return false;
        done += (size_t)w;
    }
    return true;
}

static bool cache_load(rproblem *p, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char magic[8];
    bool ok = read(fd, magic, 8) == 8 && !memcmp(magic, CACHE_MAGIC, 8);
    for (int set = 0; set < SETS; set++)
        for (int i = 0; ok && i < p->n_bufs; i++) {
            void *ptr[3];
            size_t want[3];
            reference_arrays(p, &p->bufs[i], set, ptr, want);
            for (int k = 0; ok && k < 3; k++) {
                uint64_t bytes;
                ok = read(fd, &bytes, 8) == 8 && bytes == want[k] && read_all(fd, ptr[k], want[k]);
            }
        }
    char extra;
    ok = ok && read(fd, &extra, 1) == 0;
    close(fd);
    return ok;
}

static void cache_store(rproblem *p, const char *path) {
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && write(fd, CACHE_MAGIC, 8) == 8;
    for (int set = 0; set < SETS; set++)
        for (int i = 0; ok && i < p->n_bufs; i++) {
            void *ptr[3];
            size_t bytes[3];
            reference_arrays(p, &p->bufs[i], set, ptr, bytes);
            for (int k = 0; ok && k < 3; k++) {
                uint64_t n = bytes[k];
                ok = write(fd, &n, 8) == 8 && write_all(fd, ptr[k], bytes[k]);
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
        if (b->role != ROLE_OUT) b->init = json_incref(json_object_get(j, "init"));
        bool ok = true;
        for (int set = 0; set < SETS; set++) {
            if (b->role != ROLE_OUT) ok = ok && (b->host[set] = malloc(bytes));
            if (b->role == ROLE_IN) continue;
            ok = ok && (b->expect[set] = calloc(b->length, problem_expect_elem(p, b)));
            if (p->bound_rule) ok = ok && (b->bound[set] = calloc(b->length, sizeof(double)));
            if (p->acc_rms > 0) ok = ok && (b->scale[set] = calloc(b->length, sizeof(double)));
        }
        if (!ok) {
            *why =
                xasprintf("out of host memory for buffer '%s' (%zu bytes, twice)", b->name, bytes);
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
static bt_problem *make_view(rproblem *p, json_t *req, int set) {
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
        v->buffers[i] =
            (bt_buffer){b->name,
                        b->type,
                        b->role == ROLE_IN ? "in" : b->role == ROLE_OUT ? "out" : "inout",
                        b->length,
                        b->host[set],
                        b->expect[set],
                        b->bound[set],
                        b->scale[set]};
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

/* Reads accuracy = {rms, max} (verify = bound only). */
static bool read_accuracy(rproblem *p, json_t *req, char **why) {
    json_t *a = json_object_get(req, "accuracy");
    if (!a) return true;
    p->acc_rms = json_number_value(json_object_get(a, "rms"));
    p->acc_max = json_number_value(json_object_get(a, "max"));
    if (!p->bound_rule || !(p->acc_rms > 0 && p->acc_rms < 1e6) ||
        !(p->acc_max >= p->acc_rms && p->acc_max < 1e9)) {
        *why = xstrdup("accuracy needs verify = \"bound\" and 0 < rms <= max");
        return false;
    }
    return true;
}

/* Every set's inputs, from its own seed. */
static uint64_t set_seed(uint64_t seed, int set) {
    return set ? splitmix64(seed ^ 0x6a09e667f3bcc909ull) : seed;
}

/* The references of both sets, on every core; then the scaled counts. */
static bool run_references(rproblem *p, json_t *req, bt_reference_fn ref, char **why) {
    bool ok = true;
    for (int set = 0; ok && set < SETS; set++) {
        bt_problem *view = make_view(p, req, set);
        job proto = {.p = p, .view = view, .ref = ref, .set = set};
        ok = run_parts(reference_part, &proto, why);
        free_view(view);
    }
    return ok;
}

static bool count_scaled(rproblem *p, char **why) {
    for (int i = 0; p->acc_rms > 0 && i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        for (int set = 0; set < SETS && b->scale[set]; set++) {
            b->scaled[set] = 0;
            for (size_t e = 0; e < b->length; e++) {
                double x = b->scale[set][e];
                if (!(x >= 0 && x < 1e300)) {
                    *why = xasprintf("the CPU reference gave '%s' a scale of %g at index %zu (a "
                                     "scale is an expected error: finite, >= 0)",
                                     b->name, x, e);
                    return false;
                }
                b->scaled[set] += x > 0;
            }
            if (!b->scaled[set]) {
                *why = xasprintf("the problem declares accuracy, but the CPU reference wrote no "
                                 "scale > 0 for '%s' (see templates/bartune_reference.h)",
                                 b->name);
                return false;
            }
        }
    }
    return true;
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
    if (!read_accuracy(p, req, why) || !read_buffers(p, json_object_get(req, "buffers"), why) ||
        !read_args(p, req, why))
        return false;
    bt_reference_fn ref = find_reference(lib, name, why);
    if (!ref) return false;
    uint64_t seed = (uint64_t)json_integer_value(json_object_get(req, "seed"));
    for (int set = 0; set < SETS; set++) {
        job proto = {.p = p, .seed = set_seed(seed, set), .set = set};
        run_parts(generate_part, &proto, why);
        /* inout: the reference sees the initial values in expect as well */
        for (int i = 0; i < p->n_bufs; i++)
            if (p->bufs[i].role == ROLE_INOUT && !p->bound_rule)
                memcpy(p->bufs[i].expect[set], p->bufs[i].host[set],
                       p->bufs[i].length * p->bufs[i].elem);
    }
    if (cache && cache_load(p, cache)) {
        *cached = true;
        return count_scaled(p, why);
    }
    double t0 = now_seconds();
    bool ok = run_references(p, req, ref, why) && count_scaled(p, why);
    if (ok && cache && now_seconds() - t0 > 1.0) cache_store(p, cache);
    return ok;
}

static CUresult alloc_copy(CUdeviceptr *d, const void *host, size_t bytes) {
    CUresult r = drv.cuMemAlloc(d, bytes);
    if (r == CUDA_SUCCESS) r = drv.cuMemcpyHtoD(*d, host, bytes);
    return r;
}

/* A device copy of host data and its hash. */
static CUresult upload(CUdeviceptr *d, const void *host, size_t bytes, checksum_fn sum,
                       unsigned long long *hash) {
    if (!host) return CUDA_SUCCESS;
    CUresult r = alloc_copy(d, host, bytes);
    if (r == CUDA_SUCCESS) r = sum(*d, bytes, hash);
    return r;
}

CUresult problem_upload(rproblem *p, checksum_fn sum) {
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; i < p->n_bufs && r == CUDA_SUCCESS; i++) {
        rbuf *b = &p->bufs[i];
        size_t bytes = b->length * b->elem, eb = b->length * problem_expect_elem(p, b),
               db = b->length * sizeof(double);
        r = drv.cuMemAlloc(&b->base, bytes + 2 * GUARD_BYTES);
        if (r == CUDA_SUCCESS) r = drv.cuMemsetD8(b->base, GUARD_BYTE, bytes + 2 * GUARD_BYTES);
        b->data = b->base + GUARD_BYTES;
        if (r == CUDA_SUCCESS && i == 0) r = sum(b->base, GUARD_BYTES, &p->guard_sum);
        if (r == CUDA_SUCCESS) r = sum(b->data + bytes, GUARD_BYTES, &b->guard_after_sum);
        for (int set = 0; set < SETS && r == CUDA_SUCCESS; set++) {
            r = upload(&b->d_src[set], b->host[set], bytes, sum, &b->sum_src[set]);
            if (r == CUDA_SUCCESS)
                r = upload(&b->d_expect[set], b->expect[set], eb, sum, &b->sum_expect[set]);
            if (r == CUDA_SUCCESS)
                r = upload(&b->d_bound[set], b->bound[set], db, sum, &b->sum_bound[set]);
            if (r == CUDA_SUCCESS)
                r = upload(&b->d_scale[set], b->scale[set], db, sum, &b->sum_scale[set]);
        }
        if (r == CUDA_SUCCESS && b->role == ROLE_IN)
            r = drv.cuMemcpyDtoD(b->data, b->d_src[0], bytes);
    }
    p->cur = 0;
    return r;
}

void problem_free(rproblem *p) {
    for (int i = 0; i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        for (int set = 0; set < SETS; set++) {
            CUdeviceptr d[] = {b->d_src[set], b->d_expect[set], b->d_bound[set], b->d_scale[set]};
            for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
                if (d[k] && drv.cuMemFree) drv.cuMemFree(d[k]);
            free(b->host[set]);
            free(b->expect[set]);
            free(b->bound[set]);
            free(b->scale[set]);
        }
        if (b->base && drv.cuMemFree) drv.cuMemFree(b->base);
        free(b->name);
        free(b->type);
        json_decref(b->init);
    }
    free(p->bufs);
    free(p->args);
    free(p->arg_ptrs);
    free(p->name);
    memset(p, 0, sizeof *p);
}
