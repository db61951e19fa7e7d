/* The C-Lua boundary: one Lua state per space, the library in gen/lib,
 * and the sandboxed space script. */
#include "space.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A runaway script (an endless loop in a constraint) is stopped after this
 * many VM instructions per call into Lua. */
enum { HOOK_STEP = 1000 };
static const long INSTRUCTION_LIMIT = 500L * 1000 * 1000;

struct space {
    lua_State *L;
    int module_ref; /* gen/lib/space.lua's table */
    int space_ref;  /* the loaded space */
    char *templates_dir;
    char *file, *name, *problem;
    long long n, bytes_per_item, fma_per_item;
    named_config *named;
    int n_named;
    config launch_names; /* launch_param() names, values unused */
    config param_names;  /* param() names, values unused */
    long budget;
};

static space *space_of(lua_State *L) {
    space *s;
    lua_getfield(L, LUA_REGISTRYINDEX, "bartune.space");
    s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    space *s = space_of(L);
    s->budget -= HOOK_STEP;
    if (s->budget >= 0) return;
    /* Name the line that was running, not the library's call of the script. */
    lua_getinfo(L, "Sl", ar);
    lua_pushfstring(L, "%s:%d: script ran past %d million instructions; does a loop never end?",
                    ar->short_src, ar->currentline, (int)(INSTRUCTION_LIMIT / 1000000));
    lua_error(L);
}

/* Runs the function on the stack with nargs under pcall, with a fresh
 * instruction budget. On error, *err gets the message. */
static bool call(space *s, int nargs, int nres, char **err) {
    s->budget = INSTRUCTION_LIMIT;
    if (lua_pcall(s->L, nargs, nres, 0) == LUA_OK) return true;
    const char *m = lua_tostring(s->L, -1);
    *err = xstrdup(m ? m : "(error object is not a string)");
    lua_pop(s->L, 1);
    return false;
}

/* read(name) -> text | nil, message. Only names under templates/. */
static int l_read_template(lua_State *L) {
    space *s = space_of(L);
    const char *name = luaL_checkstring(L, 1);
    if (name[0] == '/' || strstr(name, "..") || strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                            "0123456789_./-") != strlen(name)) {
        lua_pushnil(L);
        lua_pushfstring(L, "template name '%s' must be a plain path under templates/", name);
        return 2;
    }
    char *path = path_join(s->templates_dir, name);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        lua_pushnil(L);
        lua_pushfstring(L, "template '%s' not found (looked for %s)", name, path);
        free(path);
        return 2;
    }
    lua_pushlstring(L, text, len);
    free(text);
    free(path);
    return 1;
}

static bool load_lib(space *s, const char *lib_dir, const char *file, char **err) {
    char *path = path_join(lib_dir, file);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        *err = xasprintf("cannot read %s: the Lua library of bartune (set --root?)", path);
        free(path);
        return false;
    }
    char *chunkname = xasprintf("@gen/lib/%s", file);
    int rc = luaL_loadbufferx(s->L, text, len, chunkname, "t");
    free(text);
    free(chunkname);
    free(path);
    if (rc != LUA_OK) {
        *err = xstrdup(lua_tostring(s->L, -1));
        lua_pop(s->L, 1);
        return false;
    }
    return true;
}

static char *string_field(lua_State *L, int idx, const char *k) {
    lua_getfield(L, idx, k);
    char *v = xstrdup(lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 1);
    return v;
}

/* A Lua scalar as the text a config holds. */
static const char *value_text(lua_State *L, int idx, char buf[32]) {
    if (lua_isinteger(L, idx)) {
        snprintf(buf, 32, "%lld", (long long)lua_tointeger(L, idx));
        return buf;
    }
    if (lua_isboolean(L, idx)) return lua_toboolean(L, idx) ? "true" : "false";
    return lua_tostring(L, idx);
}

/* Reads the array of {name, value} pairs at the top of the stack. */
static void read_pairs(lua_State *L, config *c) {
    int n = (int)luaL_len(L, -1);
    for (int i = 1; i <= n; i++) {
        lua_geti(L, -1, i);         /* list pair */
        lua_geti(L, -1, 1);         /* list pair name */
        lua_geti(L, -2, 2);         /* list pair name value */
        char buf[32];
        config_set(c, lua_tostring(L, -2), value_text(L, -1, buf));
        lua_pop(L, 3);              /* list */
    }
}

/* Lua tables have no order; sort by name so output is reproducible. */
static void sort_config(config *c) {
    for (int i = 1; i < c->count; i++)
        for (int j = i; j > 0 && strcmp(c->items[j - 1].name, c->items[j].name) > 0; j--) {
            kv t = c->items[j];
            c->items[j] = c->items[j - 1];
            c->items[j - 1] = t;
        }
}

/* The names of S[field] (a list of parameters), S at the top of the stack. */
static void read_names(lua_State *L, const char *field, config *out) {
    lua_getfield(L, -1, field);         /* S list */
    for (lua_Integer i = 1, n = luaL_len(L, -1); i <= n; i++) {
        lua_geti(L, -1, i);             /* S list p */
        lua_getfield(L, -1, "name");
        config_set(out, lua_tostring(L, -1), "");
        lua_pop(L, 2);                  /* S list */
    }
    lua_pop(L, 1);                      /* S */
}

static void read_named(space *s) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref); /* S */
    lua_getfield(L, -1, "baselines");                /* S list */
    s->n_named = (int)luaL_len(L, -1);
    s->named = xmalloc(sizeof(named_config) * (size_t)(s->n_named ? s->n_named : 1));
    for (int i = 0; i < s->n_named; i++) {
        named_config *nc = &s->named[i];
        memset(nc, 0, sizeof *nc);
        lua_geti(L, -1, i + 1); /* S list b */
        nc->label = string_field(L, -1, "label");
        lua_getfield(L, -1, "portable");
        nc->portable = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "config"); /* S list b cfg */
        lua_pushnil(L);
        while (lua_next(L, -2)) { /* S list b cfg k v */
            char buf[32];
            config_set(&nc->cfg, lua_tostring(L, -2), value_text(L, -1, buf));
            lua_pop(L, 1);
        }
        lua_pop(L, 2); /* S list */
        sort_config(&nc->cfg);
    }
    lua_pop(L, 2);
}

static void open_safe_libs(lua_State *L) {
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},      {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
                                    {LUA_UTF8LIBNAME, luaopen_utf8},  {NULL, NULL}};
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    /* No file access from Lua, even for the library. */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
}

space *space_open(const char *path, const char *lib_dir, const char *templates_dir, char **err) {
    space *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->templates_dir = xstrdup(templates_dir);
    s->file = xstrdup(path);
    s->L = luaL_newstate();
    lua_State *L = s->L;
    open_safe_libs(L);
    lua_pushlightuserdata(L, s);
    lua_setfield(L, LUA_REGISTRYINDEX, "bartune.space");
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_STEP);

    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        *err = xasprintf("cannot read space %s: %s", path, strerror(errno));
        space_close(s);
        return NULL;
    }
    /* template = <template.lua>(); space = <space.lua>(template) */
    if (!load_lib(s, lib_dir, "template.lua", err) || !call(s, 0, 1, err) ||
        !load_lib(s, lib_dir, "space.lua", err)) {
        free(text);
        space_close(s);
        return NULL;
    }
    lua_insert(L, -2);                  /* space_chunk template */
    if (!call(s, 1, 1, err)) {          /* M */
        free(text);
        space_close(s);
        return NULL;
    }
    lua_pushvalue(L, -1);               /* M M */
    s->module_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* M */
    lua_pushcfunction(L, l_read_template);
    lua_setfield(L, -2, "read");        /* M */
    lua_getfield(L, -1, "load");        /* M load */
    lua_pushlstring(L, text, len);
    char *chunkname = xasprintf("@%s", path);
    lua_pushstring(L, chunkname);
    lua_pushcfunction(L, l_read_template); /* M load text name read */
    free(chunkname);
    free(text);
    if (!call(s, 3, 1, err)) {          /* M S */
        space_close(s);
        return NULL;
    }
    s->name = string_field(L, -1, "name");
    s->problem = string_field(L, -1, "problem");
    lua_getfield(L, -1, "n");
    s->n = (long long)lua_tointeger(L, -1);
    lua_getfield(L, -2, "bytes_per_item");
    s->bytes_per_item = (long long)lua_tointeger(L, -1);
    lua_getfield(L, -3, "fma_per_item");
    s->fma_per_item = (long long)lua_tointeger(L, -1);
    lua_pop(L, 3);
    read_names(L, "launch", &s->launch_names);
    read_names(L, "params", &s->param_names);
    s->space_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* M */
    lua_pop(L, 1);
    read_named(s);
    return s;
}

void space_close(space *s) {
    if (!s) return;
    if (s->L) lua_close(s->L);
    for (int i = 0; i < s->n_named; i++) {
        free(s->named[i].label);
        config_free(&s->named[i].cfg);
    }
    free(s->named);
    config_free(&s->launch_names);
    config_free(&s->param_names);
    free(s->templates_dir);
    free(s->file);
    free(s->name);
    free(s->problem);
    free(s);
}

const char *space_name(const space *s) { return s->name; }
const char *space_problem(const space *s) { return s->problem; }
const char *space_file(const space *s) { return s->file; }
long long space_n(const space *s) { return s->n; }
long long space_bytes_per_item(const space *s) { return s->bytes_per_item; }
long long space_fma_per_item(const space *s) { return s->fma_per_item; }

bool space_is_launch_param(const space *s, const char *name) {
    return config_get(&s->launch_names, name) != NULL;
}

const config *space_params(const space *s) { return &s->param_names; }

const named_config *space_named(const space *s, int *count) {
    *count = s->n_named;
    return s->named;
}

static void push_device(lua_State *L, const device_info *d) {
    lua_createtable(L, 0, 16);
#define SETI(k, v) (lua_pushinteger(L, (lua_Integer)(v)), lua_setfield(L, -2, k))
    SETI("cc_major", d->cc_major);
    SETI("cc_minor", d->cc_minor);
    SETI("arch", d->cc_major * 10 + d->cc_minor);
    SETI("sms", d->sms);
    SETI("max_threads_per_block", d->max_threads_per_block);
    SETI("max_threads_per_sm", d->max_threads_per_sm);
    SETI("max_blocks_per_sm", d->max_blocks_per_sm);
    SETI("smem_per_block", d->smem_per_block_optin);
    SETI("smem_per_sm", d->smem_per_sm);
    SETI("regs_per_sm", d->regs_per_sm);
    SETI("l2_bytes", d->l2_bytes);
#undef SETI
    lua_pushstring(L, d->name);
    lua_setfield(L, -2, "name");
}

static void push_config(lua_State *L, const config *c) {
    lua_createtable(L, 0, c->count);
    for (int i = 0; i < c->count; i++) {
        lua_pushstring(L, c->items[i].value);
        lua_setfield(L, -2, c->items[i].name);
    }
}

static void read_launch(lua_State *L, variant_set *out) {
    out->n_launch = (int)luaL_len(L, -1);
    out->launch = xmalloc(sizeof(launch_param) * (size_t)(out->n_launch ? out->n_launch : 1));
    for (int i = 0; i < out->n_launch; i++) {
        launch_param *lp = &out->launch[i];
        lua_geti(L, -1, i + 1); /* launch pair */
        lua_geti(L, -1, 1);
        lp->name = xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_geti(L, -1, 2); /* launch pair values */
        lp->count = (int)luaL_len(L, -1);
        lp->values = xmalloc(sizeof(char *) * (size_t)lp->count);
        for (int j = 0; j < lp->count; j++) {
            char buf[32];
            lua_geti(L, -1, j + 1);
            lp->values[j] = xstrdup(value_text(L, -1, buf));
            lua_pop(L, 1);
        }
        lua_pop(L, 2); /* launch */
    }
}

static char *read_rejected(lua_State *L) {
    strbuf sb = {0};
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        sb_printf(&sb, "%s%lld by '%s'", sb.len ? ", " : "", (long long)lua_tointeger(L, -1),
                  lua_tostring(L, -2));
        lua_pop(L, 1);
    }
    return sb_take(&sb);
}

bool space_variants(space *s, const device_info *dev, char **overrides, int n_overrides,
                    variant_set *out, char **err) {
    lua_State *L = s->L;
    memset(out, 0, sizeof *out);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->module_ref); /* M */
    lua_getfield(L, -1, "variants");                  /* M fn */
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref);  /* M fn S */
    push_device(L, dev);                              /* M fn S dev */
    lua_createtable(L, 0, n_overrides);               /* M fn S dev ov */
    for (int i = 0; i < n_overrides; i++) {
        const char *eq = strchr(overrides[i], '=');
        lua_pushlstring(L, overrides[i], (size_t)(eq - overrides[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
    if (!call(s, 3, 4, err)) { /* M list launch rejected total */
        lua_pop(L, 1);
        return false;
    }
    out->total = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    out->rejected = read_rejected(L);
    lua_pop(L, 1);
    read_launch(L, out);
    lua_pop(L, 1); /* M list */
    out->count = (int)luaL_len(L, -1);
    out->items = xmalloc(sizeof(variant) * (size_t)(out->count ? out->count : 1));
    for (int i = 0; i < out->count; i++) {
        variant *v = &out->items[i];
        memset(v, 0, sizeof *v);
        lua_geti(L, -1, i + 1);      /* M list v */
        lua_getfield(L, -1, "params"); /* M list v params */
        read_pairs(L, &v->params);
        lua_pop(L, 1);
        lua_getfield(L, -1, "derived");
        read_pairs(L, &v->derived);
        lua_pop(L, 2); /* M list */
    }
    lua_pop(L, 2);
    return true;
}

char *space_render(space *s, const device_info *dev, const config *params, const config *extra,
                   char **err) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->module_ref); /* M */
    lua_getfield(L, -1, "render");                    /* M fn */
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref);  /* M fn S */
    push_config(L, params);
    push_device(L, dev);
    if (extra) push_config(L, extra); else lua_pushnil(L); /* M fn S cfg dev extra */
    if (!call(s, 4, 1, err)) {
        lua_pop(L, 1);
        return NULL;
    }
    char *src = xstrdup(lua_tostring(L, -1));
    lua_pop(L, 2);
    return src;
}
