#include "problem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

/* The largest magnitude an element type holds (integers: what a double
 * counts exactly, so ranges stay exact). */
static double type_max(const rbuf *b) {
    if (!strcmp(b->type, "float")) return 3.4028234663852886e38;
    if (!strcmp(b->type, "__nv_bfloat16")) return 3.3895313892515355e38;
    if (!strcmp(b->type, "double")) return 8.98846567431158e307; /* hi - lo stays finite */
    return b->elem == 4 && !strcmp(b->type, "unsigned") ? 4294967295.0
           : b->elem == 4                               ? 2147483647.0
                                                        : 9007199254740992.0;
}

/* Whether init = {kind, lo, hi} is one the generator can draw from for b:
 * finite numbers inside the type, lo <= hi (logmag: 0 < lo), integers for
 * integer types; else why not (static). */
static const char *bad_init(const rbuf *b, json_t *init) {
    const char *kind = json_string_value(json_object_get(init, "kind"));
    json_t *jl = json_object_get(init, "lo"), *jh = json_object_get(init, "hi");
    double lo = json_number_value(jl), hi = json_number_value(jh), max = type_max(b);
    if (!kind || (strcmp(kind, "uniform") && strcmp(kind, "const") && strcmp(kind, "logmag")))
        return "its kind is not uniform, const or logmag";
    if (!json_is_number(jl) || !json_is_number(jh) || !(lo <= hi)) return "it needs lo <= hi";
    if (!(fabs(lo) <= max && fabs(hi) <= max)) return "its values lie outside the element type";
    if (!b->fp && (lo != floor(lo) || hi != floor(hi))) return "an integer type needs integers";
    if (!b->fp && !strcmp(b->type, "unsigned") && lo < 0) return "unsigned values are >= 0";
    if (!strcmp(kind, "logmag") && !(lo > 0 && b->fp))
        return "logmag draws magnitudes: floating types, 0 < lo";
    return NULL;
}

/* One value of the distribution `init` from 64 random bits r: uniform in
 * [lo, hi] (floats: 24 random bits), a constant, or logmag (a random sign,
 * the magnitude's logarithm uniform in [log lo, log hi]: every scale). */
static double draw(const rbuf *b, json_t *init, uint64_t r) {
    const char *kind = json_string_value(json_object_get(init, "kind"));
    double lo = json_number_value(json_object_get(init, "lo"));
    double hi = json_number_value(json_object_get(init, "hi"));
    double u = (double)(r >> 40) * (1.0 / 16777216.0);
    if (!strcmp(kind, "const")) return lo;
    if (!strcmp(kind, "logmag")) {
        double m = exp(log(lo) + u * (log(hi) - log(lo)));
        return (r & 1) ? -fmin(m, hi) : fmin(m, hi);
    }
    if (b->fp) return fmin(lo + (hi - lo) * u, hi);
    return lo + (double)(r % (uint64_t)(hi - lo + 1));
}

/* Writes v as element i of one of b's host arrays. */
static void put(const rbuf *b, void *host, size_t i, double v) {
    char *dst = (char *)host + i * b->elem;
    if (!strcmp(b->type, "float"))
        *(float *)dst = (float)v;
    else if (!strcmp(b->type, "double"))
        *(double *)dst = v;
    else if (b->fp) /* bf16 */
        *(uint16_t *)dst = bf16_bits((float)v);
    else if (b->elem == 4)
        *(uint32_t *)dst = (uint32_t)(long long)v;
    else
        *(int64_t *)dst = (int64_t)v;
}

static bool padding(const rbuf *b, size_t i) {
    return b->ld && i % b->ld >= b->cols;
}

/* Elements [begin, end) of an input of set 0 or 1, from that set's seed and
 * distribution; a view's padding holds the pattern. The same seed gives the
 * same inputs on every machine. */
static void generate(rbuf *b, int index, int set, uint64_t seed, size_t begin, size_t end) {
    json_t *init = set == 1 && b->init2 ? b->init2 : b->init;
    uint64_t stream = seed ^ ((uint64_t)(index + 1) * 0xd1b54a32d192ed03ull);
    for (size_t i = begin; i < end; i++) {
        if (padding(b, i)) {
            memcpy((char *)b->host[set] + i * b->elem, &b->pattern, b->elem);
            continue;
        }
        put(b, b->host[set], i, draw(b, init, splitmix64(stream ^ (i * 0x2545f4914f6cdd1dull))));
    }
}

/* Set 2: set 0 with max(1, length / 1024) values drawn anew at positions
 * from the secret (not the seed: a kernel cannot know them). */
static void perturb(rproblem *p, rbuf *b, int index) {
    memcpy(b->host[2], b->host[0], b->length * b->elem);
    size_t n = b->length / 1024 ? b->length / 1024 : 1;
    uint64_t stream = p->secret ^ ((uint64_t)(index + 1) * 0x9fb21c651e98df25ull);
    for (size_t j = 0; j < n; j++) {
        uint64_t r = splitmix64(stream ^ (j * 0xc2b2ae3d27d4eb4full));
        size_t i = (size_t)(r % b->length);
        if (!padding(b, i)) put(b, b->host[2], i, draw(b, b->init, splitmix64(r)));
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
static const char CACHE_MAGIC[8] = "BTREF03\n";

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

/* The padding's bits for an element type: a finite value far from any
 * input (-1e30, -1e300 for double), or 0x5A... for integers. */
static unsigned long long pattern_of(const rbuf *b) {
    if (!strcmp(b->type, "float")) {
        float f = -1e30f;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    if (!strcmp(b->type, "double")) {
        double d = -1e300;
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    if (b->fp) return bf16_bits(-1e30f);
    return 0x5A5A5A5A5A5A5A5Aull >> (64 - 8 * b->elem);
}

/* The pattern as the number a bound check compares with. */
static double pattern_value(const rbuf *b) {
    if (!strcmp(b->type, "float")) return (double)-1e30f;
    if (!strcmp(b->type, "double")) return -1e300;
    if (b->fp) {
        uint32_t u = (uint32_t)b->pattern << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    return (double)b->pattern;
}

/* A buffer's view {rows, cols, ld} and offset, checked against its length:
 * false with *why set. */
static bool read_layout(rbuf *b, json_t *j, char **why) {
    json_t *view = json_object_get(j, "view");
    json_int_t off = json_integer_value(json_object_get(j, "offset"));
    if (off < 0 || (unsigned long long)off * b->elem > (1u << 20)) {
        *why = xasprintf("buffer '%s': offset %lld is not 0..1 MiB", b->name, (long long)off);
        return false;
    }
    b->offset = (size_t)off;
    if (!view) return true;
    json_int_t rows = json_integer_value(json_object_get(view, "rows"));
    json_int_t cols = json_integer_value(json_object_get(view, "cols"));
    json_int_t ld = json_integer_value(json_object_get(view, "ld"));
    /* (rows - 1) ld + cols <= length, by division: no product to wrap */
    if (rows < 1 || cols < 1 || ld < cols || (size_t)cols > b->length ||
        (size_t)(rows - 1) > (b->length - (size_t)cols) / (size_t)ld) {
        *why = xasprintf("buffer '%s': view rows %lld, cols %lld, ld %lld does not fit its %zu "
                         "elements (1 <= cols <= ld, (rows - 1) ld + cols <= length)",
                         b->name, (long long)rows, (long long)cols, (long long)ld, b->length);
        return false;
    }
    b->cols = (size_t)cols;
    b->ld = ld > cols ? (size_t)ld : 0; /* no padding: no view to check */
    return true;
}

/* init and init2 of an input, each checked (the runner trusts no script). */
static bool read_inits(rbuf *b, json_t *j, char **why) {
    if (b->role == ROLE_OUT) return true;
    b->init = json_incref(json_object_get(j, "init"));
    json_t *i2 = json_object_get(j, "init2");
    b->init2 = i2 ? json_incref(i2) : NULL;
    const char *bad = bad_init(b, b->init), *bad2 = b->init2 ? bad_init(b, b->init2) : NULL;
    if (bad || bad2) {
        *why = xasprintf("buffer '%s' (%s): init%s cannot be drawn from: %s", b->name, b->type,
                         bad ? "" : "2", bad ? bad : bad2);
        return false;
    }
    return true;
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
        b->pattern = pattern_of(b);
        if (!read_layout(b, j, why) || !read_inits(b, j, why)) return false;
        json_t *unset = json_object_get(j, "unset_when_zero");
        if (unset && (!json_is_string(unset) || b->role == ROLE_OUT || !b->fp)) {
            *why = xasprintf("buffer '%s' (%s): unset_when_zero must name a scalar, on a "
                             "floating-point input (in or inout)",
                             b->name, b->type);
            return false;
        }
        b->unset_when_zero = unset ? xstrdup(json_string_value(unset)) : NULL;
        size_t bytes = b->length * b->elem;
        bool ok = true;
        for (int set = 0; set < SETS; set++) {
            if (b->role != ROLE_OUT) ok = ok && (b->host[set] = malloc(bytes));
            if (b->role == ROLE_IN) continue;
            ok = ok && (b->expect[set] = calloc(b->length, problem_expect_elem(p, b)));
            if (p->bound_rule) ok = ok && (b->bound[set] = calloc(b->length, sizeof(double)));
            if (p->acc_rms > 0) ok = ok && (b->scale[set] = calloc(b->length, sizeof(double)));
        }
        if (!ok) {
            *why = xasprintf("out of host memory for buffer '%s' (%zu bytes, %d times)", b->name,
                             bytes, SETS);
            return false;
        }
    }
    return true;
}

/* A scalar's value in set 1: its `pick`-th special value (cycling) when the
 * request gives one, else uniform in its range, else its value. */
static double second_value(json_t *z, int index, uint64_t seed, bool integer) {
    json_t *special = json_object_get(z, "special"), *range = json_object_get(z, "range");
    json_int_t pick = json_integer_value(json_object_get(z, "pick"));
    size_t ns = json_array_size(special);
    if (ns && json_is_integer(json_object_get(z, "pick")) && pick >= 0)
        return json_number_value(json_array_get(special, (size_t)pick % ns));
    if (json_array_size(range) != 2) return json_number_value(json_object_get(z, "value"));
    double lo = json_number_value(json_array_get(range, 0));
    double hi = json_number_value(json_array_get(range, 1));
    uint64_t r = splitmix64(seed ^ ((uint64_t)(index + 1) * 0x8cb92ba72f3d8dd7ull));
    if (integer) return lo + (double)(r % (uint64_t)(hi - lo + 1));
    return fmin(lo + (hi - lo) * ((double)(r >> 40) * (1.0 / 16777216.0)), hi);
}

/* The request's scalars, each with its value in every set, checked: finite,
 * inside its type (a float rounded to one), integral for integer types. */
static bool read_scalars(rproblem *p, json_t *req, uint64_t seed1, char **why) {
    json_t *list = json_object_get(req, "scalars");
    p->n_scalars = (int)json_array_size(list);
    p->scalars = calloc((size_t)p->n_scalars + 1, sizeof *p->scalars);
    for (int i = 0; i < p->n_scalars; i++) {
        json_t *z = json_array_get(list, (size_t)i);
        rscalar *c = &p->scalars[i];
        const char *name = json_string_value(json_object_get(z, "name"));
        const char *type = json_string_value(json_object_get(z, "type"));
        size_t bytes;
        bool fp;
        c->name = xstrdup(name ? name : "?");
        c->type = xstrdup(type ? type : "?");
        if (!name || !type_of(type, &bytes, &fp) || bytes < 4) {
            *why = xasprintf("scalar %d of the request is malformed", i);
            return false;
        }
        rbuf shape = {.type = c->type, .elem = bytes, .fp = fp};
        double max = type_max(&shape);
        json_t *range = json_object_get(z, "range"), *special = json_object_get(z, "special");
        double lo = json_number_value(json_array_get(range, 0));
        double hi = json_number_value(json_array_get(range, 1));
        if (range && !(json_array_size(range) == 2 && lo <= hi && fabs(lo) <= max &&
                       fabs(hi) <= max && (fp || (lo == floor(lo) && hi == floor(hi))))) {
            *why = xasprintf("scalar '%s' (%s): range must be [lo, hi], lo <= hi, inside the "
                             "type",
                             c->name, c->type);
            return false;
        }
        double v[SETS] = {json_number_value(json_object_get(z, "value")),
                          second_value(z, i, seed1, !fp), 0};
        v[2] = v[0];
        for (size_t k = 0; k < json_array_size(special); k++)
            if (!json_is_number(json_array_get(special, k))) v[1] = NAN;
        for (int set = 0; set < SETS; set++) {
            if (!(fabs(v[set]) <= max) || (!fp && v[set] != floor(v[set]))) {
                *why = xasprintf("scalar '%s' (%s): value %g of input set %d is not a %s", c->name,
                                 c->type, v[set], set, c->type);
                return false;
            }
            c->value[set] = !strcmp(c->type, "float") ? (double)(float)v[set] : v[set];
        }
    }
    return true;
}

static rscalar *scalar_named(const rproblem *p, const char *name) {
    for (int i = 0; name && i < p->n_scalars; i++)
        if (!strcmp(p->scalars[i].name, name)) return &p->scalars[i];
    return NULL;
}

static void set_value(rarg *r, const char *type, size_t bytes, double v, json_t *jv) {
    if (!strcmp(type, "float"))
        r->v.f32 = (float)v;
    else if (!strcmp(type, "double"))
        r->v.f64 = v;
    else if (bytes == 4)
        r->v.i32 = (int)(jv ? json_integer_value(jv) : (long long)v);
    else
        r->v.i64 = jv ? (long long)json_integer_value(jv) : (long long)v;
}

/* Kernel arguments by name, one list per input set: a buffer, a size (the
 * same in every set) or a scalar (its value in that set). */
static bool read_args(rproblem *p, json_t *req, char **why) {
    json_t *args = json_object_get(req, "args");
    p->n_args = (int)json_array_size(args);
    for (int set = 0; set < SETS; set++) {
        p->args[set] = calloc((size_t)(p->n_args ? p->n_args : 1), sizeof *p->args[set]);
        p->arg_ptrs[set] = calloc((size_t)(p->n_args ? p->n_args : 1), sizeof *p->arg_ptrs[set]);
    }
    for (int i = 0; i < p->n_args; i++) {
        json_t *a = json_array_get(args, (size_t)i);
        const char *buf = json_string_value(json_object_get(a, "buffer"));
        rbuf *b = NULL;
        for (int k = 0; buf && k < p->n_bufs; k++)
            if (!strcmp(p->bufs[k].name, buf)) b = &p->bufs[k];
        if (buf && !b) {
            *why = xasprintf("argument %d names unknown buffer '%s'", i, buf);
            return false;
        }
        const char *type = json_string_value(json_object_get(a, "type"));
        json_t *v = json_object_get(a, "value");
        rscalar *sc = scalar_named(p, json_string_value(json_object_get(a, "name")));
        size_t bytes = 0;
        bool fp;
        if (!b && (!type_of(type, &bytes, &fp) || bytes < 4 || !json_is_number(v))) {
            *why = xasprintf("argument %d has no buffer, or no known type and value", i);
            return false;
        }
        for (int set = 0; set < SETS; set++) {
            rarg *r = &p->args[set][i];
            if (b) {
                r->buffer = b;
                p->arg_ptrs[set][i] = &b->data;
                continue;
            }
            if (sc)
                set_value(r, type, bytes, sc->value[set], NULL);
            else
                set_value(r, type, bytes, json_number_value(v), v);
            p->arg_ptrs[set][i] = &r->v;
        }
    }
    return true;
}

/* The reference's view of the problem: sizes, scalars, buffers. */
static bt_problem *make_view(rproblem *p, json_t *req, int set) {
    bt_problem *v = calloc(1, sizeof *v);
    json_t *sizes = json_object_get(req, "sizes");
    v->n_sizes = (int)json_array_size(sizes);
    const char **sn = calloc((size_t)v->n_sizes + 1, sizeof *sn);
    long long *sv = calloc((size_t)v->n_sizes + 1, sizeof *sv);
    for (int i = 0; i < v->n_sizes; i++) {
        json_t *z = json_array_get(sizes, (size_t)i);
        sn[i] = json_string_value(json_object_get(z, "name"));
        sv[i] = (long long)json_integer_value(json_object_get(z, "value"));
    }
    v->n_scalars = p->n_scalars;
    const char **cn = calloc((size_t)v->n_scalars + 1, sizeof *cn);
    double *cv = calloc((size_t)v->n_scalars + 1, sizeof *cv);
    for (int i = 0; i < v->n_scalars; i++) {
        cn[i] = p->scalars[i].name;
        cv[i] = p->scalars[i].value[set];
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

/* What a view's padding must hold after a launch: the pattern, exactly. */
static void expect_padding(rproblem *p) {
    for (int i = 0; i < p->n_bufs; i++) {
        rbuf *b = &p->bufs[i];
        if (b->role == ROLE_IN || !b->ld) continue;
        double v = pattern_value(b);
        for (int set = 0; set < SETS; set++)
            for (size_t e = 0; e < b->length; e++) {
                if (!padding(b, e)) continue;
                if (p->bound_rule)
                    ((double *)b->expect[set])[e] = v;
                else
                    memcpy((char *)b->expect[set] + e * b->elem, &b->pattern, b->elem);
                if (b->bound[set]) b->bound[set][e] = 0;
                if (b->scale[set]) b->scale[set][e] = 0;
            }
    }
}

/* Every unset_when_zero names a scalar of the request. */
static bool check_unset(rproblem *p, char **why) {
    for (int i = 0; i < p->n_bufs; i++) {
        const rbuf *b = &p->bufs[i];
        if (b->unset_when_zero && !scalar_named(p, b->unset_when_zero)) {
            *why = xasprintf("buffer '%s': unset_when_zero names '%s', not a scalar of the request",
                             b->name, b->unset_when_zero);
            return false;
        }
    }
    return true;
}

/* Whether b's unset_when_zero scalar is 0 in input set `set`. */
static bool unset_in(const rproblem *p, const rbuf *b, int set) {
    const rscalar *z = b->unset_when_zero ? scalar_named(p, b->unset_when_zero) : NULL;
    return z && z->value[set] == 0;
}

const rbuf *problem_unset_in(const rproblem *p, int set) {
    for (int i = 0; i < p->n_bufs; i++)
        if (unset_in(p, &p->bufs[i], set)) return &p->bufs[i];
    return NULL;
}

/* NaN in every element (not the padding) of an input whose unset_when_zero
 * scalar is 0 in that set: a kernel that reads it anyway fails there. */
static void unset_where_zero(rproblem *p) {
    for (int set = 0; set < SETS; set++)
        for (int i = 0; i < p->n_bufs; i++) {
            rbuf *b = &p->bufs[i];
            if (!b->host[set] || !unset_in(p, b, set)) continue;
            for (size_t e = 0; e < b->length; e++)
                if (!padding(b, e)) put(b, b->host[set], e, NAN);
        }
}

/* The inputs of every set (see SETS). */
static void generate_sets(rproblem *p, uint64_t seed, char **why) {
    for (int set = 0; set < 2; set++) {
        job proto = {.p = p, .seed = set_seed(seed, set), .set = set};
        run_parts(generate_part, &proto, why);
    }
    for (int i = 0; i < p->n_bufs; i++)
        if (p->bufs[i].host[2]) perturb(p, &p->bufs[i], i);
    unset_where_zero(p);
    /* inout: the reference sees the initial values in expect as well */
    for (int set = 0; set < SETS; set++)
        for (int i = 0; i < p->n_bufs; i++)
            if (p->bufs[i].role == ROLE_INOUT && !p->bound_rule)
                memcpy(p->bufs[i].expect[set], p->bufs[i].host[set],
                       p->bufs[i].length * p->bufs[i].elem);
}

bool problem_setup(rproblem *p, json_t *req, bool *cached, char **why) {
    memset(p, 0, sizeof *p);
    *cached = false;
    const char *name = json_string_value(json_object_get(req, "name"));
    const char *lib = json_string_value(json_object_get(req, "reference"));
    const char *verify = json_string_value(json_object_get(req, "verify"));
    const char *cache = json_string_value(json_object_get(req, "cache"));
    const char *where = json_string_value(json_object_get(req, "where"));
    p->where = xstrdup(where ? where : "");
    if (!name || !lib || !verify) {
        *why = xstrdup("the problem request lacks name, reference or verify");
        return false;
    }
    p->name = xstrdup(name);
    p->bound_rule = !strcmp(verify, "bound");
    uint64_t seed = (uint64_t)json_integer_value(json_object_get(req, "seed"));
    json_t *secret = json_object_get(req, "secret");
    p->secret = secret ? (uint64_t)json_integer_value(secret) : splitmix64(~seed);
    if (!read_accuracy(p, req, why) || !read_buffers(p, json_object_get(req, "buffers"), why) ||
        !read_scalars(p, req, set_seed(seed, 1), why) || !check_unset(p, why) ||
        !read_args(p, req, why))
        return false;
    bt_reference_fn ref = find_reference(lib, name, why);
    if (!ref) return false;
    generate_sets(p, seed, why);
    if (cache && cache_load(p, cache)) {
        *cached = true;
        return count_scaled(p, why);
    }
    double t0 = now_seconds();
    bool ok = run_references(p, req, ref, why);
    if (ok) expect_padding(p);
    ok = ok && count_scaled(p, why);
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
               db = b->length * sizeof(double), before = problem_guard_before(b);
        r = drv.cuMemAlloc(&b->base, before + bytes + GUARD_BYTES);
        if (r == CUDA_SUCCESS)
            r = drv.cuMemsetD8(b->base, GUARD_BYTE, before + bytes + GUARD_BYTES);
        b->data = b->base + before;
        if (r == CUDA_SUCCESS) r = sum(b->base, before, &b->guard_before_sum);
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

size_t problem_guard_before(const rbuf *b) {
    return GUARD_BYTES + b->offset * b->elem;
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
        free(b->unset_when_zero);
        json_decref(b->init);
        json_decref(b->init2);
    }
    for (int i = 0; i < p->n_scalars; i++) {
        free(p->scalars[i].name);
        free(p->scalars[i].type);
    }
    for (int set = 0; set < SETS; set++) {
        free(p->args[set]);
        free(p->arg_ptrs[set]);
    }
    free(p->scalars);
    free(p->bufs);
    free(p->name);
    free(p->where);
    memset(p, 0, sizeof *p);
}
