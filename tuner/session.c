#include "session.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "proc.h"
#include "record.h"
#include "results.h"
#include "sanitize.h"
#include "util.h"

space *session_open_space(const options *o) {
    char *err = NULL;
    space *s = space_open(o->space_path, o->root, o->templates, &err);
    if (!s) {
        msg_error("%s", err);
        free(err);
    }
    return s;
}

bool session_arch_device(const options *o, device_info *d) {
    const char *arch = o->arch ? o->arch : "sm_90";
    if (device_for_arch(arch, d)) return true;
    msg_error("unknown architecture '%s' (use the form sm_90; known: sm_70 sm_75 sm_80 sm_86 "
              "sm_87 sm_89 sm_90 sm_100 sm_120)",
              arch);
    return false;
}

bool session_variants(space *s, const options *o, const device_info *d, variant_set *out) {
    char *err = NULL;
    if (!space_variants(s, d, o->overrides, o->n_overrides, out, &err)) {
        msg_error("%s", err);
        free(err);
        return false;
    }
    if (out->count == 0) {
        msg_error("%s: the constraints leave no variant for %s (%d combinations; rejected %s); "
                  "relax a constraint or the k=v values%s",
                  space_file(s), d->name, out->total, out->rejected[0] ? out->rejected : "none",
                  out->total == 0 && o->n_overrides
                      ? " (does a k=v name a parameter whose `when` excludes those variants, "
                        "or a value its `allow` closes to the others?)"
                      : "");
        variant_set_free(out);
        return false;
    }
    return true;
}

/* The instance's sizes list as an object. */
json_t *session_sizes_of(json_t *instance) {
    json_t *o = json_object(), *z;
    size_t i;
    json_array_foreach(json_object_get(instance, "sizes"), i, z) json_object_set(
        o, json_string_value(json_object_get(z, "name")), json_object_get(z, "value"));
    return o;
}

/* One size tuple of the command line (--size's, or a --tuple's) as an object. */
static json_t *sizes_object(const struct size_override *sizes, int n) {
    json_t *one = json_object();
    for (int i = 0; i < n; i++)
        json_object_set_new(one, sizes[i].name, json_integer(sizes[i].value));
    return one;
}

json_t *session_sizes(space *s, const options *o, json_t **instances) {
    json_t *given = json_array();
    if (o->n_sizes) {
        json_array_append_new(given, sizes_object(o->sizes, o->n_sizes));
    } else if (o->n_tuples) {
        for (int t = 0; t < o->n_tuples; t++)
            json_array_append_new(given, sizes_object(o->tuples[t].sizes, o->tuples[t].n));
    } else {
        json_array_extend(given, json_object_get(space_problem(s), "tune"));
    }
    json_t *out = json_array(), *sz;
    *instances = json_array();
    size_t i;
    json_array_foreach(given, i, sz) {
        char *err = NULL;
        json_t *inst = proc_interrupted ? NULL : space_instance(s, sz, false, &err);
        if (!inst && proc_interrupted) return NULL; /* exiting: freeing 10^5 sizes takes seconds */
        if (!inst) {
            msg_error("%s", err);
            free(err);
            json_decref(out);
            json_decref(*instances);
            json_decref(given);
            *instances = NULL;
            return NULL;
        }
        json_array_append_new(out, session_sizes_of(inst));
        json_array_append_new(*instances, inst);
    }
    json_decref(given);
    return out;
}

static bool is_launch(const void *ctx, const char *name) {
    return space_is_launch_param((const space *)ctx, name);
}

/* `c` in the space's declaration order (records keep keys sorted). */
static void in_declared_order(space *s, config *c) {
    const config *names = space_params(s);
    config out = {0};
    for (int i = 0; i < names->count; i++) {
        const char *v = config_get(c, names->items[i].name);
        if (v) config_set(&out, names->items[i].name, v);
    }
    for (int i = 0; i < c->count; i++)
        if (!config_get(&out, c->items[i].name))
            config_set(&out, c->items[i].name, c->items[i].value);
    config_free(c);
    *c = out;
}

void session_split(space *s, json_t *config_obj, config *params, config *launch) {
    memset(params, 0, sizeof *params);
    memset(launch, 0, sizeof *launch);
    config_from_json(config_obj, is_launch, s, params, launch);
    in_declared_order(s, params);
    in_declared_order(s, launch);
}

bool session_current(space *s, json_t *rec) {
    device_info d;
    record_device(rec, &d);
    config params, launch;
    session_split(s, json_object_get(rec, "config"), &params, &launch);
    char *err = NULL, hash[17];
    char *src = render_for_cubin(s, &d, &params, &err);
    bool same = false;
    if (src) {
        text_hash(src, hash);
        same = !strcmp(hash, json_string_value(json_object_get(rec, "source_hash")));
    } else {
        char *invalid = NULL;
        /* a variant the space accepts: the template's fault, not the record's */
        if (space_validate(s, &d, &params, false, &invalid)) {
            char *desc = config_describe(&params);
            space_template_failed(s, desc, err ? err : "no message");
            free(desc);
        }
        free(invalid);
    }
    free(src);
    free(err);
    config_free(&params);
    config_free(&launch);
    return same;
}

/* The runner's checks as of this version: three input sets, views, check
 * sizes. Records verified before it was raised are not current. */
static const char VERIFY_VERSION[] = "bartune-verify-3";

void verification_digest(json_t *instance, char out[17]) {
    json_t *copy = json_deep_copy(instance);
    const char *cost[] = {"bytes", "fma", "mma", "floor_ms"};
    json_t *c;
    size_t k;
    for (size_t i = 0; i < sizeof cost / sizeof cost[0];
         i++) { /* a better floor re-verifies nothing */
        json_object_del(copy, cost[i]);
        json_array_foreach(json_object_get(copy, "checks"), k, c)
            json_object_del(json_object_get(c, "instance"), cost[i]);
    }
    char *text = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
    char *all = xasprintf("%s|%s", VERIFY_VERSION, text ? text : "");
    text_hash(all, out);
    free(all);
    free(text);
    json_decref(copy);
}

void session_digest_at(space *s, json_t *sizes, char out[17]) {
    char *err = NULL;
    json_t *inst = space_instance(s, sizes, true, &err);
    out[0] = '\0';
    if (inst) verification_digest(inst, out);
    json_decref(inst);
    free(err);
}

json_t *best_current(space *s, json_t *records, json_t *sizes, json_t *part, passed_over *p) {
    return best_current_as(s, records, sizes, part, p, true);
}

/* Does the space as it is now expand this record's config, launch values
 * included (values it declares, constraints that pass)? */
bool session_expands(space *s, json_t *rec) {
    device_info d;
    record_device(rec, &d);
    config params, launch, values;
    session_split(s, json_object_get(rec, "config"), &params, &launch);
    config_merge(&values, &params, &launch);
    char *err = NULL;
    json_t *geo = space_geometry(s, &d, &values, json_object_get(rec, "sizes"), NULL, &err);
    bool ok = geo != NULL;
    json_decref(geo);
    free(err);
    config_free(&params);
    config_free(&launch);
    config_free(&values);
    return ok;
}

bool session_rankable(space *s, json_t *rec, const char *digest, passed_over *p) {
    /* a rejected record timed once and never ran its check sizes: it cannot
     * be a best, even once the faster ones are stale or gone */
    if (json_is_true(json_object_get(rec, "rejected"))) return false;
    if (!session_expands(s, rec)) {
        p->gone++;
        return false;
    }
    const char *verified = json_string_value(json_object_get(rec, "verified"));
    if ((!digest || (verified && !strcmp(verified, digest))) && session_current(s, rec))
        return true;
    p->remeasured++;
    return false;
}

json_t *best_current_as(space *s, json_t *records, json_t *sizes, json_t *part, passed_over *p,
                        bool checked) {
    json_t *ranked = results_ranked(records, sizes), *rec, *best = NULL;
    size_t i;
    *p = (passed_over){0};
    char digest[17];
    session_digest_at(s, sizes, digest);
    json_array_foreach(ranked, i, rec) {
        json_t *cfg = json_object_get(rec, "config");
        const char *k;
        json_t *v;
        bool matches = true;
        json_object_foreach(part, k, v) matches = matches && json_equal(json_object_get(cfg, k), v);
        if (!matches || sanitizer_flagged(records, rec)) continue;
        if (session_rankable(s, rec, checked ? digest : NULL, p)) {
            best = rec;
            break;
        }
    }
    json_decref(ranked); /* records still holds best */
    return best;
}

void passed_over_warn(const char *path, space *s, const passed_over *p) {
    if (p->remeasured)
        msg_warn("%s: %d faster record(s) were measured with an earlier version of %s or "
                 "verified under other checks (its check sizes, views, input sets); bartune run "
                 "measures them again",
                 path, p->remeasured, space_file(s));
    if (p->gone)
        msg_warn("%s: %d faster record(s) are of variants %s no longer has (a value it no longer "
                 "declares, or a constraint that now rules them out): passed over, and never "
                 "measured again",
                 path, p->gone, space_file(s));
}

char *render_for_cubin(space *s, const device_info *d, const config *params, char **err) {
    config extra = {0};
    char *desc = config_describe(params);
    config_set(&extra, "ns", "bartune_variant");
    config_set(&extra, "kernel_name", "bartune_kernel");
    config_set(&extra, "kernel_linkage", "extern \"C\"");
    config_set(&extra, "emit", "false");
    config_set(&extra, "describe", desc);
    char *src = space_render(s, d, params, &extra, false, err);
    free(desc);
    config_free(&extra);
    return src;
}

char *render_held(space *s, const device_info *d, const config *params, size_t *held, char **err) {
    static const size_t LIMIT = (size_t)2 << 30;
    char *src = render_for_cubin(s, d, params, err);
    if (!src) return NULL;
    *held += strlen(src);
    if (*held <= LIMIT) return src;
    free(src);
    *err = xasprintf("the variants' sources would take more than %zu MiB at once: narrow the "
                     "space with k=v, or search it with --strategy",
                     LIMIT >> 20);
    return NULL;
}

void job_key(space *s, const device_info *d, const config *params, const compiler *comp,
             compile_job *job) {
    space_compile_arch(s, d, params, job->arch);
    compile_key(comp, job);
}

void text_hash(const char *text, char out[17]) {
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(text, strlen(text)));
}

bool session_sizes_match(const options *o, json_t *sizes) {
    for (int i = 0; i < o->n_sizes; i++) {
        json_t *v = json_object_get(sizes, o->sizes[i].name);
        if (!json_is_integer(v) || json_integer_value(v) != o->sizes[i].value) return false;
    }
    return true;
}
