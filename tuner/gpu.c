#include "gpu.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "progress.h"
#include "reference_lib.h"
#include "session.h"
#include "util.h"

bool gpu_hello(runner_client *r, double timeout, device_info *d, int *devices, char **why) {
    json_t *req = json_pack("{s:s, s:i}", "op", "hello", "version", RUNNER_PROTOCOL), *ans;
    runner_result res = runner_request(r, req, timeout, &ans);
    json_decref(req);
    bool ok = res == RUNNER_OK && device_from_json(json_object_get(ans, "device"), d);
    json_int_t n = json_integer_value(json_object_get(ans, "devices"));
    if (devices) *devices = n >= 1 && n <= 1024 ? (int)n : 1;
    if (!ok) {
        const char *m = json_string_value(json_object_get(ans, "message"));
        *why = xstrdup(m ? m : "the runner gave no device");
    }
    json_decref(ans);
    return ok;
}

char *gpu_log_path(const options *o, int ordinal) {
    char name[32];
    snprintf(name, sizeof name, ordinal ? "runner-gpu%d.log" : "runner.log", ordinal);
    return path_join(o->cache, name);
}

static bool build_reference(gpu *g) {
    char *api = path_join(g->o->root, "templates");
    g->reference_lib = reference_lib_build(BARTUNE_CC, space_reference_source(g->s),
                                           space_reference_dir(g->s), api, g->o->cache, g->ref_key);
    free(api);
    return g->reference_lib != NULL;
}

static bool start(gpu *g, char **why) {
    if (!runner_start(&g->runner, g->o->runner, g->ordinal, g->log)) {
        *why = xasprintf("cannot start %s (log %s)", g->o->runner, g->log);
        return false;
    }
    return gpu_hello(&g->runner, 60, &g->dev, &g->devices, why);
}

/* What gpu_open and gpu_open_cpu share: a cleared g, the cache folder, the
 * runner's log. False (said) when the cache folder cannot be made. */
static bool prepare(gpu *g, const options *o, space *s, int ordinal) {
    memset(g, 0, sizeof *g);
    g->o = o;
    g->s = s;
    g->ordinal = ordinal;
    if (!mkdir_p(o->cache)) {
        msg_error("cannot create the cache folder %s", o->cache);
        return false;
    }
    g->log = gpu_log_path(o, ordinal);
    return true;
}

int gpu_open(gpu *g, const options *o, space *s, int ordinal) {
    if (!prepare(g, o, s, ordinal)) return EXIT_FAILURE_;
    /* run: sustained launches after each measure where --rank energy or
     * --sustain asks (1 s unless --sustain says); bench sets its own */
    if (!strcmp(o->command, "run"))
        g->sustain_s = o->sustain_s >= 0 ? o->sustain_s : o->rank_energy ? 1 : 0;
    char *why = NULL;
    if (!start(g, &why)) {
        msg_error(
            "no GPU to measure on (GPU %d): %s\n(list, render, compile and emit work without one)",
            ordinal, why);
        free(why);
        gpu_close(g);
        return EXIT_NO_GPU;
    }
    device_key(&g->dev, g->key);
    device_fingerprint(&g->dev, g->fingerprint);
    return build_reference(g) ? EXIT_OK : EXIT_INPUT;
}

int gpu_open_cpu(gpu *g, const options *o, space *s, const device_info *dev) {
    if (!prepare(g, o, s, 0)) return EXIT_FAILURE_;
    g->dev = *dev;
    g->cpu_only = true;
    if (!runner_start(&g->runner, o->runner, 0, g->log)) {
        msg_error("cannot start %s (log %s)", o->runner, g->log);
        gpu_close(g);
        return EXIT_FAILURE_;
    }
    return build_reference(g) ? EXIT_OK : EXIT_INPUT;
}

void gpu_close(gpu *g) {
    runner_stop(&g->runner);
    free(g->log);
    free(g->reference_lib);
    json_decref(g->sizes);
    json_decref(g->instance);
    memset(g, 0, sizeof *g);
}

/* The kernel's arguments at instance `inst`, by the problem's args list:
 * buffers by name, sizes and scalars as typed values. */
static json_t *kernel_args(gpu *g, json_t *inst) {
    json_t *problem = space_problem(g->s), *args = json_array(), *name;
    size_t i;
    json_array_foreach(json_object_get(problem, "args"), i, name) {
        const char *n = json_string_value(name);
        json_t *arg = NULL, *e;
        size_t k;
        json_array_foreach(json_object_get(inst, "buffers"), k,
                           e) if (!strcmp(json_string_value(json_object_get(e, "name")), n)) arg =
            json_pack("{s:s}", "buffer", n);
        const char *lists[] = {"sizes", "scalars"};
        for (int l = 0; l < 2 && !arg; l++)
            json_array_foreach(json_object_get(inst, lists[l]), k,
                               e) if (!arg &&
                                      !strcmp(json_string_value(json_object_get(e, "name")), n))
                arg = json_pack("{s:O, s:O, s:O}", "name", json_object_get(e, "name"), "type",
                                json_object_get(e, "type"), "value", json_object_get(e, "value"));
        json_array_append_new(args, arg ? arg : json_null());
    }
    return args;
}

/* cache/refs/<problem>-<hash>.bin: the reference at these sizes and seed. */
static char *reference_cache(gpu *g, json_t *req) {
    char *text = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
    char *key = xasprintf("%s|%s", g->ref_key, text);
    char *dir = path_join(g->o->cache, "refs");
    char *path = mkdir_p(dir) ? xasprintf("%s/%s-%016llx.bin", dir,
                                          json_string_value(json_object_get(req, "name")),
                                          (unsigned long long)XXH3_64bits(key, strlen(key)))
                              : NULL;
    free(text);
    free(key);
    free(dir);
    return path;
}

/* The secret that picks where input set 2 differs from set 0: drawn once
 * per cache folder (cache/secret, mode 0600) so that references stay
 * cached, and never in reach of a kernel (which runs on the GPU, and is
 * compiled from sources that do not name it). 0 when none can be kept:
 * then the runner derives one from the seed. */
static json_int_t secret(const options *o) {
    char *path = path_join(o->cache, "secret");
    unsigned long long k = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (rnd >= 0 && read(rnd, &k, sizeof k) != (ssize_t)sizeof k) k = 0;
        if (rnd >= 0) close(rnd);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 && write(fd, &k, sizeof k) != (ssize_t)sizeof k) k = 0;
        if (fd >= 0) close(fd);
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC); /* another writer may have won */
    }
    if (fd >= 0 && read(fd, &k, sizeof k) != (ssize_t)sizeof k) k = 0;
    if (fd >= 0) close(fd);
    free(path);
    return (json_int_t)(k & 0x7fffffffffffffffull);
}

/* One problem request: `inst` (the tuned sizes' instance, or a check's) in
 * runner slot `slot`, named in messages by `where`. */
static bool setup_one(gpu *g, runner_client *rc, json_t *inst, int slot, const char *label) {
    json_t *problem = space_problem(g->s);
    json_t *req =
        json_pack("{s:s, s:O, s:s, s:I, s:O, s:O, s:O, s:o}", "op", "problem", "name",
                  json_object_get(problem, "name"), "reference", g->reference_lib, "seed",
                  (json_int_t)(g->o->seed & 0x7fffffffffffffffull), "verify",
                  json_object_get(problem, "verify"), "sizes", json_object_get(inst, "sizes"),
                  "buffers", json_object_get(inst, "buffers"), "args", kernel_args(g, inst));
    json_object_set_new(req, "scalars", json_deep_copy(json_object_get(inst, "scalars")));
    json_object_set_new(req, "secret", json_integer(secret(g->o)));
    if (slot) {
        char *where = xasprintf("at check sizes %s: ", label);
        json_object_set_new(req, "slot", json_integer(slot));
        json_object_set_new(req, "where", json_string(where));
        free(where);
    }
    json_t *acc = json_object_get(problem, "accuracy");
    if (acc) json_object_set_new(req, "accuracy", json_deep_copy(acc));
    char *cache = reference_cache(g, req);
    if (cache) json_object_set_new(req, "cache", json_string(cache));
    if (g->cpu_only) json_object_set_new(req, "cpu_only", json_true()); /* same cache key */
    free(cache);
    const char *name = json_string_value(json_object_get(problem, "name"));
    progress("preparing %s at %s%s (inputs and CPU reference)", name, slot ? "check sizes " : "",
             label);
    json_t *ans;
    const double t0 = now_seconds();
    runner_result r = runner_request(rc, req, g->o->reference_timeout, &ans);
    const double took = now_seconds() - t0;
    progress_end();
    /* a slow one said with its time: what a tune of that size costs before it measures */
    if (r == RUNNER_OK && took >= 5)
        progress_note("prepared %s at %s%s in %.0f s", name, slot ? "check sizes " : "", label,
                      took);
    if (r == RUNNER_TIMEOUT)
        msg_error("problem '%s' at %s%s: the inputs and CPU reference took more than %.0f s "
                  "(--reference-timeout; is the reference stuck in a loop?)",
                  name, slot ? "check sizes " : "", label, g->o->reference_timeout);
    else if (r != RUNNER_OK)
        msg_error("the runner could not set up problem '%s' at %s%s: %s", name,
                  slot ? "check sizes " : "", label,
                  json_string_value(json_object_get(ans, "message")));
    json_decref(ans);
    json_decref(req);
    return r == RUNNER_OK;
}

/* The tuned sizes in slot 0, then their check sizes in slots 1... */
static bool setup_on(gpu *g, runner_client *rc) {
    char *desc = json_dumps(g->sizes, JSON_COMPACT);
    bool ok = setup_one(g, rc, g->instance, 0, desc);
    free(desc);
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(g->instance, "checks"), i, c) {
        if (!ok) break;
        ok = setup_one(g, rc, json_object_get(c, "instance"), (int)i + 1,
                       json_string_value(json_object_get(c, "label")));
    }
    return ok;
}

static bool setup(gpu *g) {
    return setup_on(g, &g->runner);
}

bool gpu_problem_on(gpu *g, runner_client *r) {
    return setup_on(g, r);
}

bool gpu_problem(gpu *g, json_t *sizes, json_t *instance) {
    if (g->sizes && json_equal(g->sizes, sizes)) return true;
    json_decref(g->sizes);
    json_decref(g->instance);
    g->sizes = json_incref(sizes);
    g->instance = json_incref(instance);
    return setup(g);
}

bool gpu_restart(gpu *g) {
    runner_stop(&g->runner);
    device_info keep = g->dev;
    char *why = NULL;
    if (!start(g, &why)) {
        msg_error("could not restart the runner: %s", why);
        free(why);
        return false;
    }
    g->dev = keep;
    return setup(g);
}

/* Integers the runner can take (whether the device takes them is the
 * runner's to say: launch_refused); else what is wrong with launch(). */
/* What is wrong with tensor map m (index i) of launch() on the buffers of
 * `instance`, or NULL: dims in 1..2^32, strides multiples of 16 in
 * 16..2^40-1, a box of 1..256, and no element past the buffer (by
 * division: nothing wraps). An optional map with a stride the copy engine
 * cannot take is not encoded (the runner passes zeros): only its dims and
 * box are checked. */
static char *check_map(json_t *m, size_t i, json_t *instance) {
    const char *name = json_string_value(json_object_get(m, "buffer"));
    json_t *b = NULL, *e;
    size_t k;
    json_array_foreach(json_object_get(instance, "buffers"), k,
                       e) if (name && !strcmp(json_string_value(json_object_get(e, "name")), name))
        b = e;
    json_t *dims = json_object_get(m, "dims"), *strides = json_object_get(m, "strides"),
           *box = json_object_get(m, "box");
    bool zeros = false; /* optional, and a stride the copy engine cannot take */
    for (size_t j = 0; json_is_true(json_object_get(m, "optional")) && j < json_array_size(strides);
         j++)
        zeros = zeros || json_integer_value(json_array_get(strides, j)) % 16;
    size_t rank = json_array_size(dims);
    unsigned long long elem = (unsigned long long)json_integer_value(json_object_get(b, "elem"));
    if (!b || !elem || rank < 1 || rank > 5 || json_array_size(strides) != rank - 1 ||
        json_array_size(box) != rank)
        return xasprintf("launch().tensor_maps[%zu]: needs a buffer of the problem, 1 to 5 dims, "
                         "strides of dims 2.. and a box",
                         i + 1);
    unsigned long long bytes =
        (unsigned long long)json_integer_value(json_object_get(b, "length")) * elem;
    unsigned long long last = 0;
    for (size_t d = 0; d < rank; d++) {
        json_int_t n = json_integer_value(json_array_get(dims, d));
        json_int_t bx = json_integer_value(json_array_get(box, d));
        json_int_t st = d ? json_integer_value(json_array_get(strides, d - 1)) : (json_int_t)elem;
        if (n < 1 || n > (1ll << 32))
            return xasprintf("launch().tensor_maps[%zu].dims[%zu] = %lld, outside 1..2^32", i + 1,
                             d + 1, (long long)n);
        if (bx < 1 || bx > 256)
            return xasprintf("launch().tensor_maps[%zu].box[%zu] = %lld, outside 1..256", i + 1,
                             d + 1, (long long)bx);
        if (zeros) continue;
        if (d && (st < 16 || st >= (1ll << 40) || st % 16))
            return xasprintf("launch().tensor_maps[%zu].strides[%zu] = %lld: the copy engine "
                             "takes multiples of 16 in 16..2^40-1 bytes",
                             i + 1, d, (long long)st);
        if (last >= bytes ||
            (unsigned long long)(n - 1) > (bytes - 1 - last) / (unsigned long long)st)
            return xasprintf("launch().tensor_maps[%zu] reaches past the %llu bytes of buffer "
                             "'%s' at these sizes",
                             i + 1, bytes, name);
        last += (unsigned long long)(n - 1) * (unsigned long long)st;
    }
    return NULL;
}

/* A launch's arguments after the problem's, from its geometry into a
 * runner request: the tensor maps, then the scratch memory. */
static void add_extras(json_t *req, json_t *geo) {
    json_t *maps = json_object_get(geo, "tensor_maps"), *scratch = json_object_get(geo, "scratch");
    if (json_array_size(maps)) json_object_set(req, "tensor_maps", maps);
    if (scratch) json_object_set(req, "scratch", scratch);
    json_t *zero = json_object_get(geo, "scratch_zero");
    if (scratch && zero) json_object_set(req, "scratch_zero", zero);
    json_t *kept = json_object_get(geo, "scratch_zero_kept");
    if (scratch && json_is_true(kept)) json_object_set(req, "scratch_zero_kept", kept);
    json_t *cluster = json_object_get(geo, "cluster");
    if (cluster) json_object_set(req, "cluster", cluster);
    json_t *persistent = json_object_get(geo, "persistent");
    if (json_is_true(persistent)) json_object_set(req, "persistent", persistent);
    json_t *together = json_object_get(geo, "together");
    if (together) json_object_set(req, "together", together);
}

static char *check_geometry(json_t *geo, json_t *instance) {
    const char *dims[] = {"grid", "block"};
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < 3; i++) {
            json_t *v = json_array_get(json_object_get(geo, dims[d]), i);
            long long x = json_integer_value(v);
            if (!json_is_integer(v) || x < 1 || x > 0x7fffffff)
                return xasprintf("launch() gave %s[%zu] = %lld, outside 1..2^31-1", dims[d], i + 1,
                                 x);
        }
    long long smem = json_integer_value(json_object_get(geo, "smem"));
    if (smem < 0 || smem > 0x7fffffff) return xasprintf("launch() gave smem = %lld", smem);
    json_t *scratch = json_object_get(geo, "scratch");
    if (scratch && (!json_is_integer(scratch) || json_integer_value(scratch) < 0 ||
                    json_integer_value(scratch) > RUNNER_SCRATCH_MAX))
        return xasprintf("launch() gave scratch = %lld bytes, outside 0..2^36",
                         (long long)json_integer_value(scratch));
    json_t *zero = json_object_get(geo, "scratch_zero");
    if (zero && (!scratch || !json_is_integer(zero) || json_integer_value(zero) < 0 ||
                 json_integer_value(zero) > json_integer_value(scratch)))
        return xasprintf("launch() gave scratch_zero = %lld bytes, outside 0..scratch (%lld)",
                         (long long)json_integer_value(zero),
                         (long long)json_integer_value(scratch));
    json_t *m;
    size_t i;
    json_array_foreach(json_object_get(geo, "tensor_maps"), i, m) {
        char *bad = check_map(m, i, instance);
        if (bad) return bad;
    }
    return NULL;
}

/* How long a measure may go before its probe line: --timeout for the first
 * launch, and 10 s for loading the cubin and preparing the buffers. */
static double first_answer_timeout(const gpu *g) {
    return g->o->timeout + 10;
}

/* The check sizes' launches of a measure request (runner slots 1...): each
 * geometry at its sizes. False when launch() failed there (printed, and
 * *geometry cleared: the run stops) or its geometry is out of range
 * (*refused: a launch_refused answer naming the check sizes). */
static bool add_checks(gpu *g, json_t *req, const config *values, json_t **geometry,
                       json_t **refused) {
    json_t *list = json_array(), *c;
    size_t i;
    json_array_foreach(json_object_get(g->instance, "checks"), i, c) {
        char *err = NULL;
        const char *label = json_string_value(json_object_get(c, "label"));
        json_t *cs = session_sizes_of(json_object_get(c, "instance"));
        json_t *geo = space_geometry(g->s, &g->dev, values, cs, NULL, &err);
        json_decref(cs);
        char *bad = geo ? check_geometry(geo, json_object_get(c, "instance")) : NULL;
        if (!geo || bad) {
            if (!geo) {
                msg_error("at check sizes %s: %s", label, err);
                json_decref(*geometry);
                *geometry = NULL;
            } else {
                char *why = xasprintf("at check sizes %s: %s (fix the space's launch function)",
                                      label, bad);
                *refused = json_pack("{s:b, s:s, s:s}", "ok", 0, "status", "launch_refused",
                                     "message", why);
                free(why);
            }
            free(err);
            free(bad);
            json_decref(geo);
            json_decref(list);
            return false;
        }
        json_t *e =
            json_pack("{s:i, s:O, s:O, s:O, s:O}", "slot", (int)i + 1, "grid",
                      json_object_get(geo, "grid"), "block", json_object_get(geo, "block"), "smem",
                      json_object_get(geo, "smem"), "resident", json_object_get(geo, "resident"));
        add_extras(e, geo);
        json_array_append_new(list, e);
        json_decref(geo);
    }
    if (json_array_size(list)) json_object_set(req, "checks", list);
    json_decref(list);
    return true;
}

/* The measure request for `values` on g's problem; NULL (printed) when
 * the space's launch() failed, or (*refused: the answer) when its geometry
 * is out of range. */
static json_t *measure_request(gpu *g, const char *cubin, const config *values, bool sanitize,
                               double reject_ms, json_t **geometry, json_t **refused) {
    char *err = NULL;
    *refused = NULL;
    *geometry = space_geometry(g->s, &g->dev, values, g->sizes, NULL, &err);
    if (!*geometry) {
        msg_error("%s", err);
        free(err);
        return NULL;
    }
    char *bad = check_geometry(*geometry, g->instance);
    if (bad) {
        char *why = xasprintf("%s (fix the space's launch function)", bad);
        *refused =
            json_pack("{s:b, s:s, s:s}", "ok", 0, "status", "launch_refused", "message", why);
        free(why);
        free(bad);
        return NULL;
    }
    json_t *req =
        json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:i}", "op", "measure", "cubin", cubin,
                  "kernel", "bartune_kernel", "grid", json_object_get(*geometry, "grid"), "block",
                  json_object_get(*geometry, "block"), "smem", json_object_get(*geometry, "smem"),
                  "resident", json_object_get(*geometry, "resident"), "reps", g->o->reps);
    add_extras(req, *geometry);
    if (sanitize) json_object_set_new(req, "sanitize", json_true());
    if (reject_ms > 0) json_object_set_new(req, "reject_ms", json_real(reject_ms));
    if (g->o->gate) json_object_set_new(req, "gate", json_true());
    if (g->sustain_s > 0 && !sanitize)
        json_object_set_new(req, "sustain_s", json_real(g->sustain_s));
    if (!sanitize && !add_checks(g, req, values, geometry, refused)) {
        json_decref(req);
        return NULL;
    }
    return req;
}

bool gpu_measure_send(gpu *g, const char *cubin, const config *values, double reject_ms,
                      json_t **geometry, json_t **refused) {
    json_t *req = measure_request(g, cubin, values, false, reject_ms, geometry, refused);
    if (req) runner_send(&g->runner, req, first_answer_timeout(g));
    json_decref(req);
    return req != NULL || *refused;
}

bool gpu_measure(gpu *g, const char *cubin, const config *values, double reject_ms,
                 runner_result *r, json_t **answer, json_t **geometry) {
    return gpu_measure_on(g, &g->runner, cubin, values, false, reject_ms, first_answer_timeout(g),
                          r, answer, geometry);
}

bool gpu_measure_on(gpu *g, runner_client *rc, const char *cubin, const config *values,
                    bool sanitize, double reject_ms, double timeout, runner_result *r,
                    json_t **answer, json_t **geometry) {
    *answer = NULL;
    json_t *req = measure_request(g, cubin, values, sanitize, reject_ms, geometry, answer);
    if (*answer) *r = RUNNER_FAIL;
    if (!req) return *answer != NULL;
    *r = runner_request(rc, req, timeout, answer);
    json_decref(req);
    return true;
}

bool gpu_measure_host(gpu *g, const char *lib, runner_result *r, json_t **answer) {
    json_t *req = json_pack("{s:s, s:s, s:i}", "op", "measure", "host", lib, "reps", g->o->reps);
    if (g->sustain_s > 0) json_object_set_new(req, "sustain_s", json_real(g->sustain_s));
    if (g->o->gate) json_object_set_new(req, "gate", json_true());
    *r = runner_request(&g->runner, req, first_answer_timeout(g), answer);
    json_decref(req);
    return *r == RUNNER_OK;
}
