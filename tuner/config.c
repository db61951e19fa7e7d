#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void config_set(config *c, const char *name, const char *value) {
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->items[i].name, name) == 0) {
            free(c->items[i].value);
            c->items[i].value = xstrdup(value);
            return;
        }
    c->items = xrealloc(c->items, sizeof(kv) * (size_t)(c->count + 1));
    c->items[c->count].name = xstrdup(name);
    c->items[c->count].value = xstrdup(value);
    c->count++;
}

const char *config_get(const config *c, const char *name) {
    for (int i = 0; i < c->count; i++)
        if (strcmp(c->items[i].name, name) == 0) return c->items[i].value;
    return NULL;
}

void config_copy(config *dst, const config *src) {
    memset(dst, 0, sizeof *dst);
    for (int i = 0; i < src->count; i++)
        config_set(dst, src->items[i].name, src->items[i].value);
}

void config_free(config *c) {
    for (int i = 0; i < c->count; i++) {
        free(c->items[i].name);
        free(c->items[i].value);
    }
    free(c->items);
    memset(c, 0, sizeof *c);
}

char *config_describe(const config *c) {
    strbuf sb = {0};
    for (int i = 0; i < c->count; i++)
        sb_printf(&sb, "%s%s=%s", i ? " " : "", c->items[i].name, c->items[i].value);
    return sb_take(&sb);
}

void config_merge(config *dst, const config *a, const config *b) {
    config_copy(dst, a);
    for (int i = 0; b && i < b->count; i++)
        config_set(dst, b->items[i].name, b->items[i].value);
}

void variant_free(variant *v) {
    config_free(&v->params);
    config_free(&v->derived);
    for (int k = 0; k < v->n_launches; k++)
        config_free(&v->launches[k]);
    free(v->launches);
    memset(v, 0, sizeof *v);
}

void variant_set_free(variant_set *s) {
    for (int i = 0; i < s->count; i++)
        variant_free(&s->items[i]);
    free(s->items);
    free(s->rejected);
    memset(s, 0, sizeof *s);
}
