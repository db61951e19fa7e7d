#include "record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "util.h"

json_t *config_json(const config *c) {
    json_t *o = json_object();
    for (int i = 0; i < c->count; i++) {
        const char *v = c->items[i].value;
        char *end;
        long long x = strtoll(v, &end, 10);
        json_object_set_new(o, c->items[i].name, *v && !*end ? json_integer(x) : json_string(v));
    }
    return o;
}

void config_from_json(json_t *obj, is_launch_fn is_launch, const void *ctx, config *params,
                      config *launch) {
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char buf[32];
        const char *text = json_string_value(v);
        if (json_is_integer(v)) {
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
            text = buf;
        }
        config_set(launch && is_launch && is_launch(ctx, k) ? launch : params, k, text ? text : "");
    }
}

char *sizes_describe(json_t *sizes) {
    strbuf sb = {0};
    const char *k;
    json_t *v;
    json_object_foreach(sizes, k, v)
        sb_printf(&sb, "%s%s=%lld", sb.len ? " " : "", k, (long long)json_integer_value(v));
    return sb_take(&sb);
}

void record_id(const char *key, const config *launch, json_t *sizes, char out[17]) {
    char *l = launch ? config_describe(launch) : xstrdup("*");
    char *z = json_dumps(sizes, JSON_COMPACT | JSON_SORT_KEYS);
    char *text = xasprintf("%s|%s|%s", key, l, z);
    snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(text, strlen(text)));
    free(text);
    free(z);
    free(l);
}

json_t *record_new(const record_base *b, const config *params, const config *derived,
                   const config *launch, const char *id, const char *key, const char *src_hash,
                   const char *status) {
    json_t *rec = json_object();
    config all;
    config_merge(&all, params, launch);
    char date[32], cc[16];
    utc_timestamp(date);
    snprintf(cc, sizeof cc, "%d.%d", b->dev->cc_major, b->dev->cc_minor);
    json_object_set_new(rec, "format", json_string(RESULTS_FORMAT));
    json_object_set_new(rec, "id", json_string(id));
    json_object_set_new(rec, "space", json_string(b->space));
    json_object_set_new(rec, "problem", json_string(b->problem));
    json_object_set_new(rec, "status", json_string(status));
    json_object_set_new(rec, "config", config_json(&all));
    json_object_set_new(rec, "derived", config_json(derived));
    json_object_set_new(rec, "sizes", json_deep_copy(b->sizes));
    json_object_set_new(rec, "key", json_string(key));
    json_object_set_new(rec, "source_hash", json_string(src_hash));
    json_object_set_new(rec, "seed", json_integer((json_int_t)(b->seed & 0x7fffffffffffffffull)));
    json_t *dev = device_json(b->dev);
    json_object_set_new(dev, "cc", json_string(cc));
    json_object_set_new(rec, "device", dev);
    json_object_set_new(rec, "fingerprint", json_string(b->fingerprint));
    json_object_set_new(rec, "nvcc", json_string(b->nvcc));
    if (b->runner_log) json_object_set_new(rec, "runner_log", json_string(b->runner_log));
    json_object_set_new(rec, "date", json_string(date));
    config_free(&all);
    return rec;
}

void record_set_answer(json_t *rec, json_t *ans, bool ok) {
    if (ok) {
        const char *k[] = {"median_ms",      "min_ms",    "max_ms",   "occupancy",
                           "timed_launches", "error_rms", "error_max"};
        for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
            if (json_object_get(ans, k[i])) json_object_set(rec, k[i], json_object_get(ans, k[i]));
        /* the runner's wall time for the whole measure and for its check
         * sizes: what verification costs a variant */
        const char *wall[] = {"measure_ms", "checks_ms"};
        for (size_t i = 0; i < 2; i++) {
            json_t *v = json_object_get(ans, wall[i]);
            if (json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) < 1e9)
                json_object_set(rec, wall[i], v);
        }
        /* sustained launches (bench, run --rank energy): time and energy a call */
        const char *sus[] = {"sustained_ms", "joules", "watts"};
        for (size_t i = 0; i < 3; i++) {
            json_t *v = json_object_get(ans, sus[i]);
            if (json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) < 1e9)
                json_object_set(rec, sus[i], v);
        }
        /* early rejection: timed once, hopeless next to the best so far */
        if (json_is_true(json_object_get(ans, "rejected")))
            json_object_set_new(rec, "rejected", json_true());
        return;
    }
    const char *status = json_string_value(json_object_get(ans, "status"));
    const char *msg = json_string_value(json_object_get(ans, "message"));
    /* A status is a name the runner chose from its list; anything else is
     * the runner misbehaving. */
    bool plain = status && *status && strlen(status) < 32 &&
                 strspn(status, "abcdefghijklmnopqrstuvwxyz_") == strlen(status);
    json_object_set_new(rec, "status", json_string(plain ? status : "runner_error"));
    json_object_set_new(rec, "message", json_string(msg ? msg : "(no message)"));
}

/* Text that may reach a header's comment or string: one line, printable. */
static bool printable(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 32 || *s == 127) return false;
    return true;
}

static bool is_ident(const char *s) {
    if (!s || !*s || strlen(s) > 64 || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

/* Values a config may hold: identifiers and integers. */
static bool plain_object(json_t *o, bool integers_only) {
    const char *k;
    json_t *v;
    if (!json_is_object(o)) return false;
    json_object_foreach(o, k, v) {
        if (!is_ident(k)) return false;
        if (!json_is_integer(v) && (integers_only || !is_ident(json_string_value(v)))) return false;
    }
    return true;
}

static bool positive_ms(json_t *v) {
    double x = json_number_value(v);
    return json_is_number(v) && isfinite(x) && x > 0 && x < 1e9;
}

void record_device(json_t *rec, device_info *d) {
    device_from_json(json_object_get(rec, "device"), d);
}

char *record_check(json_t *rec, const char *want_key) {
    const char *fmt = json_string_value(json_object_get(rec, "format"));
    if (!json_is_object(rec)) return xstrdup("not a JSON object");
    if (!fmt) return xstrdup("no \"format\": not a bartune results record");
    if (strcmp(fmt, RESULTS_FORMAT) != 0)
        return xasprintf("format '%s', but this bartune reads '%s'%s", fmt, RESULTS_FORMAT,
                         !strncmp(fmt, "bartune-results-", 16) ? " (written by another version of "
                                                                 "bartune: move the file aside and "
                                                                 "tune again)"
                                                               : "");
    const char *str_fields[] = {"id",          "space",       "problem", "status", "key",
                                "source_hash", "fingerprint", "nvcc",    "date"};
    for (size_t i = 0; i < sizeof str_fields / sizeof str_fields[0]; i++) {
        const char *v = json_string_value(json_object_get(rec, str_fields[i]));
        if (!v) return xasprintf("field \"%s\" is missing or not a string", str_fields[i]);
        if (!printable(v)) return xasprintf("field \"%s\" holds control characters", str_fields[i]);
    }
    json_t *dev = json_object_get(rec, "device");
    const char *dname = json_string_value(json_object_get(dev, "name"));
    const char *ddrv = json_string_value(json_object_get(dev, "driver"));
    if ((dname && !printable(dname)) || (ddrv && !printable(ddrv)))
        return xstrdup("the device's name or driver holds control characters");
    if (!is_ident(json_string_value(json_object_get(rec, "space"))) ||
        !is_ident(json_string_value(json_object_get(rec, "problem"))) ||
        !is_ident(json_string_value(json_object_get(rec, "status"))))
        return xstrdup("space, problem and status must be identifiers");
    if (!plain_object(json_object_get(rec, "config"), false) ||
        !plain_object(json_object_get(rec, "derived"), false))
        return xstrdup("config and derived must map names to integers or identifiers");
    if (!plain_object(json_object_get(rec, "sizes"), true))
        return xstrdup("sizes must map names to integers");
    device_info d;
    if (!device_from_json(json_object_get(rec, "device"), &d))
        return xstrdup("device lacks a field or has one of the wrong type");
    if (want_key) {
        char key[160];
        device_key(&d, key);
        if (strcmp(key, want_key) != 0)
            return xasprintf("a record of device %s in the results of %s", key, want_key);
    }
    if (!strcmp(json_string_value(json_object_get(rec, "status")), "ok")) {
        if (!positive_ms(json_object_get(rec, "median_ms")) ||
            !positive_ms(json_object_get(rec, "min_ms")) ||
            !positive_ms(json_object_get(rec, "max_ms")) ||
            !json_is_integer(json_object_get(rec, "occupancy")))
            return xstrdup("an ok record needs median_ms, min_ms, max_ms > 0 and occupancy");
    }
    json_t *ver = json_object_get(rec, "verified");
    if (ver && !(json_is_string(ver) && strlen(json_string_value(ver)) == 16 &&
                 strspn(json_string_value(ver), "0123456789abcdef") == 16))
        return xstrdup("verified must be a digest of 16 hex digits");
    json_t *j = json_object_get(rec, "joules");
    if (j && !positive_ms(j)) return xstrdup("joules must be a number > 0");
    json_t *rej = json_object_get(rec, "rejected"), *tl = json_object_get(rec, "timed_launches");
    if ((rej && !json_is_boolean(rej)) || (tl && !json_is_integer(tl)))
        return xstrdup("rejected must be a boolean and timed_launches an integer");
    return NULL;
}
