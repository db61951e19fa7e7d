/* A variant's configuration: ordered name=value pairs, values as text
 * (plain integers or identifiers, checked by the space loader). */
#ifndef BARTUNE_CONFIG_H
#define BARTUNE_CONFIG_H

#include <stdbool.h>

typedef struct {
    char *name;
    char *value;
} kv;

typedef struct {
    kv *items;
    int count;
} config;

void config_set(config *c, const char *name, const char *value);
const char *config_get(const config *c, const char *name);
void config_copy(config *dst, const config *src);
void config_free(config *c);
/* "a=1 b=x", in order. */
char *config_describe(const config *c);
/* A copy of `a` with the pairs of `b` added. */
void config_merge(config *dst, const config *a, const config *b);

/* One compile-time variant: the parameters that apply to it, the values
 * derived from them, and the launch configurations to try. */
typedef struct {
    config params;
    config derived;
    config *launches;
    int n_launches;
} variant;

typedef struct {
    variant *items;
    int count;
    int total;      /* combinations before the constraints */
    char *rejected; /* "12 by 'why', 3 by 'other'" or "" */
} variant_set;

void variant_free(variant *v);
void variant_set_free(variant_set *s);

/* A configuration the space names: a baseline to compare with, or the
 * portable fallback emitted for unknown GPUs. */
typedef struct {
    char *label;
    config cfg;
    bool portable;
} named_config;

#endif
