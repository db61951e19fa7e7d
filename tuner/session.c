#include "session.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "results.h"
#include "util.h"

space *session_open_space(const options *o) {
    char *lib = path_join(o->root, "gen/lib");
    char *templates = o->templates ? xstrdup(o->templates) : path_join(o->root, "templates");
    char *err = NULL;
    space *s = space_open(o->space_path, lib, templates, &err);
    if (!s) {
        msg_error("%s", err);
        free(err);
    }
    free(lib);
    free(templates);
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
                  "relax a constraint or the k=v values",
                  space_file(s), d->name, out->total, out->rejected[0] ? out->rejected : "none");
        variant_set_free(out);
        return false;
    }
    return true;
}

json_t *config_json(const config *c) {
    json_t *o = json_object();
    for (int i = 0; i < c->count; i++) {
        const char *v = c->items[i].value;
        char *end;
        long long x = strtoll(v, &end, 10);
        json_object_set_new(o, c->items[i].name,
                            *v && !*end ? json_integer(x) : json_string(v));
    }
    return o;
}

void config_from_json(json_t *obj, const space *s, config *params, config *launch) {
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char buf[32];
        const char *text = json_string_value(v);
        if (json_is_integer(v)) {
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
            text = buf;
        }
        config_set(s && space_is_launch_param(s, k) ? launch : params, k, text ? text : "");
    }
}

json_t *best_current(space *s, json_t *records, long long n, json_t *part, int *older) {
    json_t *ranked = results_ranked(records, n), *rec, *best = NULL;
    const config *params = space_params(s);
    size_t i;
    *older = 0;
    json_array_foreach(ranked, i, rec) {
        json_t *cfg = json_object_get(rec, "config");
        const char *k;
        json_t *v;
        bool matches = true;
        json_object_foreach(part, k, v) matches = matches && json_equal(json_object_get(cfg, k), v);
        if (!matches) continue;
        bool complete = true;
        for (int p = 0; p < params->count && complete; p++)
            complete = json_object_get(cfg, params->items[p].name) != NULL;
        if (complete) {
            best = rec;
            break;
        }
        (*older)++;
    }
    json_decref(ranked); /* records still holds best */
    return best;
}

char *render_for_cubin(space *s, const device_info *d, const config *params, char **err) {
    config extra = {0};
    char *desc = config_describe(params);
    config_set(&extra, "ns", "bartune_variant");
    config_set(&extra, "kernel_name", "bartune_kernel");
    config_set(&extra, "emit", "false");
    config_set(&extra, "describe", desc);
    char *src = space_render(s, d, params, &extra, err);
    free(desc);
    config_free(&extra);
    return src;
}

void text_hash(const char *text, char out[17]) {
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(text, strlen(text)));
}
