/* The C-Lua boundary: one Lua state per space, the library in gen/lib,
 * and the sandboxed space script. */
#include "results.h"
#include "space.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "proc.h"
#include "record.h"
#include "util.h"

/* Limits of a script, per call into Lua: VM instructions, wall-clock
 * seconds, and memory for the whole state. A script cannot catch its way
 * past them: once one is hit, the hook raises again every few
 * instructions, and the call fails even if the script swallowed every
 * error. Finalizers (__gc, where hooks do not run) are refused by the
 * library's setmetatable. A long C call (a runaway string pattern) is ended
 * by an alarm a little after the wall-clock limit: bartune then exits,
 * which loses nothing (no script runs while a record is written). */
enum { HOOK_STEP = 1000, ALARM_GRACE = 2 };
static const long INSTRUCTION_LIMIT = 500L * 1000 * 1000;
/* An expansion (a space's variants, a search's candidates) runs the space's
 * functions once per combination, at most 250,000 (space.lua): 8,000
 * instructions each. sgemm's 247,680 take over 400 million, most of one
 * call's limit. */
static const long EXPANSION_LIMIT = 2000L * 1000 * 1000;
static const size_t MEMORY_LIMIT = (size_t)1 << 30;
double space_seconds_limit = 60;

struct space {
    lua_State *L;
    int module_ref; /* gen/lib/space.lua's table */
    int space_ref;  /* the loaded space */
    int search_ref; /* gen/lib/search.lua's table */
    char *templates_dir, *root, *space_dir;
    bool explicit_templates; /* --templates DIR; else templates/ beside the space */
    char *file, *name;
    char *reference_source, *reference_dir;
    json_t *problem;
    named_config *named;
    int n_named;
    config launch_names; /* launch_param() names, values unused */
    config param_names;  /* param() names, values unused */
    long budget, limit; /* instructions left in this call, and its limit */
    double deadline;
    size_t used;     /* bytes the state holds */
    bool in_script;  /* the memory limit applies (C's own pushes always succeed) */
    bool refused;    /* the last growing request was refused: Lua collects and asks again */
    const char *hit; /* the limit hit during this call, or NULL */
    char where[256]; /* the message of its first raise (the script's own line) */
    bool template_failed; /* a variant the space accepts did not render (said once) */
};

static space *space_of(lua_State *L) {
    space *s;
    lua_getfield(L, LUA_REGISTRYINDEX, "bartune.space");
    s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    space *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->used -= old;
        return NULL;
    }
    if (s->in_script && nsize > old && s->used - old + nsize > MEMORY_LIMIT) {
        /* Lua answers a refusal with a full (emergency) collection and asks
         * again: only a second refusal in a row is the script's live memory
         * over the limit, not garbage not yet collected. */
        if (s->refused) s->hit = s->hit ? s->hit : "memory";
        s->refused = true;
        return NULL; /* Lua collects, then raises "not enough memory" */
    }
    void *p = realloc(ptr, nsize);
    if (p) s->used = s->used - old + nsize;
    if (p && nsize > old) s->refused = false;
    return p;
}

static int on_panic(lua_State *L) {
    const char *m = lua_tostring(L, -1);
    fprintf(stderr, "%s: Lua failed outside a protected call: %s\n", progname, m ? m : "?");
    _exit(EXIT_INPUT);
}

static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "bartune: a script ran past its time limit inside one C call (a "
                              "runaway string pattern?); stopped\n";
    if (write(2, msg, sizeof msg - 1) < 0) {
    }
    _exit(EXIT_INPUT);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    space *s = space_of(L);
    s->budget -= HOOK_STEP;
    if (!s->hit && s->budget < 0) s->hit = "instructions";
    if (!s->hit && now_seconds() > s->deadline) s->hit = "seconds";
    if (!s->hit) return;
    /* From now on at every instruction: a script's pcall catches this error,
     * but the next instruction after it raises again. */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    /* Name the line that was running when the limit was first hit, not the
     * library's call of the script; every re-raise repeats it. */
    if (!s->where[0]) {
        lua_getinfo(L, "Sl", ar);
        if (!strcmp(s->hit, "memory"))
            snprintf(s->where, sizeof s->where, "%s:%d: script used more than %d MiB of memory",
                     ar->short_src, ar->currentline, (int)(MEMORY_LIMIT >> 20));
        else if (!strcmp(s->hit, "seconds"))
            snprintf(s->where, sizeof s->where,
                     "%s:%d: script ran past %g seconds; does a loop never end?", ar->short_src,
                     ar->currentline, space_seconds_limit);
        else
            snprintf(s->where, sizeof s->where,
                     "%s:%d: script ran past %ld million instructions; does a loop never end?",
                     ar->short_src, ar->currentline, s->limit / 1000000);
    }
    lua_pushstring(L, s->where);
    lua_error(L);
}

/* Runs the function on the stack with nargs under pcall, within the limits
 * (limit: VM instructions). On error, *err gets the message. */
static bool call_within(space *s, int nargs, int nres, long limit, char **err) {
    s->budget = s->limit = limit;
    s->deadline = now_seconds() + space_seconds_limit;
    s->hit = NULL;
    s->refused = false;
    s->where[0] = '\0';
    s->in_script = true;
    lua_sethook(s->L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
    struct itimerval alarm_at = {.it_value = {.tv_sec = (time_t)space_seconds_limit + ALARM_GRACE}};
    struct itimerval off = {{0, 0}, {0, 0}};
    signal(SIGALRM, on_alarm);
    setitimer(ITIMER_REAL, &alarm_at, NULL);
    proc_exit_on_signal = 1;
    int rc = lua_pcall(s->L, nargs, nres, 0);
    proc_exit_on_signal = 0;
    setitimer(ITIMER_REAL, &off, NULL);
    s->in_script = false;
    if (rc == LUA_OK && !s->hit) return true;
    if (rc == LUA_OK) { /* a limit was hit and the script swallowed the error */
        lua_pop(s->L, nres);
        *err = xasprintf("%s (the script caught the error and went on; stopped)",
                         s->where[0] ? s->where : s->hit);
        return false;
    }
    const char *m = lua_type(s->L, -1) == LUA_TSTRING ? lua_tostring(s->L, -1) : NULL;
    *err = xstrdup(m ? m : "(error object is not a string)");
    if (s->hit && !strcmp(s->hit, "memory") && !strstr(*err, "MiB")) {
        char *e =
            xasprintf("%s (over the %d MiB a script may use)", *err, (int)(MEMORY_LIMIT >> 20));
        free(*err);
        *err = e;
    }
    lua_pop(s->L, 1);
    return false;
}

static bool call(space *s, int nargs, int nres, char **err) {
    return call_within(s, nargs, nres, INSTRUCTION_LIMIT, err);
}

/* read(name) -> text | nil, message. Only names under templates/. */
static int l_read_template(lua_State *L) {
    space *s = space_of(L);
    const char *name = luaL_checkstring(L, 1);
    if (name[0] == '/' || strstr(name, "..") ||
        strspn(name, "abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_./-") != strlen(name)) {
        lua_pushnil(L);
        lua_pushfstring(L, "template name '%s' must be a plain path under templates/", name);
        return 2;
    }
    char *looked = NULL, *path = space_template_path(s, name, &looked);
    size_t len;
    char *text = path ? read_file(path, &len) : NULL;
    if (!text) {
        lua_pushnil(L);
        if (path)
            lua_pushfstring(L, "template '%s': cannot read %s", name, path);
        else
            lua_pushfstring(L, "template '%s' not found (looked for %s)", name, looked);
        free(looked);
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

/* Pushes a script's text and chunk name (@path); false, pushing nothing,
 * where it cannot be read (errno says why). */
static bool push_script(lua_State *L, const char *path) {
    size_t len;
    char *text = read_file(path, &len);
    if (!text) return false;
    lua_pushlstring(L, text, len);
    lua_pushfstring(L, "@%s", path);
    free(text);
    return true;
}

/* read_problem(name) -> text, chunkname | nil, message: problems/<name>.lua
 * beside the space, else bartune's gen/problems/<name>.lua. */
static int l_read_problem(lua_State *L) {
    space *s = space_of(L);
    const char *name = luaL_checkstring(L, 1);
    char *file = xasprintf("problems/%s.lua", name);
    char *local = path_join(s->space_dir, file);
    char *lib = xasprintf("%s/gen/%s", s->root, file);
    if (!push_script(L, file_exists(local) ? local : lib)) {
        lua_pushnil(L);
        lua_pushfstring(L, "problem '%s' not found (looked for %s and %s)", name, local, lib);
    }
    free(file);
    free(local);
    free(lib);
    return 2;
}

/* read_space(file) -> text, chunkname | nil, message: a space file beside
 * this one (space{ extends = "file.lua" }); a plain name, no folders. */
static int l_read_space(lua_State *L) {
    space *s = space_of(L);
    const char *name = luaL_checkstring(L, 1);
    size_t n = strlen(name);
    if (n < 5 || n > 128 || strcmp(name + n - 4, ".lua") || name[0] == '.' ||
        strspn(name, "abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_.-") != n) {
        lua_pushnil(L);
        lua_pushfstring(L, "'%s' is not a space file's name beside this one (such as \"gemm_bf16.lua\")",
                        name);
        return 2;
    }
    char *path = path_join(s->space_dir, name);
    if (!push_script(L, path)) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot read %s: %s", path, strerror(errno));
    }
    free(path);
    return 2;
}

/* What C copies out of Lua is held to a limit as the script is: each value
 * converted charges its bytes (and a node's overhead) against *budget. */
enum { NODE_BYTES = 64 };
static const size_t COPY_LIMIT = (size_t)1 << 29;   /* per call: half a script's memory */
static const size_t SOURCE_LIMIT = (size_t)1 << 24; /* one variant's source */

static bool charge(size_t *budget, size_t bytes, char **err) {
    if (bytes + NODE_BYTES <= *budget) {
        *budget -= bytes + NODE_BYTES;
        return true;
    }
    *err = xasprintf("more than %zu MiB of data for bartune to copy (a runaway table or string?)",
                     COPY_LIMIT >> 20);
    return false;
}

/* A Lua value as JSON, read with raw access only (no metamethod runs): a
 * table with keys 1..n is an array, one with string keys an object.
 * Functions and other types are left out of objects and refused in arrays. */
static json_t *to_json_in(lua_State *L, int idx, int depth, size_t *budget, char **err) {
    idx = lua_absindex(L, idx);
    if (!charge(budget, lua_type(L, idx) == LUA_TSTRING ? lua_rawlen(L, idx) : 0, err)) return NULL;
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TSTRING: {
        size_t len;
        const char *str = lua_tolstring(L, idx, &len);
        json_t *j = json_stringn(str, len);
        if (!j) *err = xstrdup("a string that is not UTF-8");
        return j;
    }
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return json_integer((json_int_t)lua_tointeger(L, idx));
        double d = lua_tonumber(L, idx);
        if (d != d || d > 1e300 || d < -1e300) {
            *err = xstrdup("a number that is NaN or infinite");
            return NULL;
        }
        return json_real(d);
    case LUA_TTABLE:
        break;
    default:
        *err = xasprintf("a %s where data was expected", luaL_typename(L, idx));
        return NULL;
    }
    if (depth > 16 || !lua_checkstack(L, 4)) {
        *err = xstrdup("tables nested more than 16 deep");
        return NULL;
    }
    lua_Unsigned n = lua_rawlen(L, idx);
    if (n > 0) {
        json_t *a = json_array();
        for (lua_Unsigned i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i);
            json_t *v = to_json_in(L, -1, depth + 1, budget, err);
            lua_pop(L, 1);
            if (!v) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, v);
        }
        return a;
    }
    json_t *o = json_object();
    lua_pushnil(L);
    while (lua_next(L, idx)) { /* lua_next is raw */
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) != LUA_TFUNCTION) {
            json_t *v = to_json_in(L, -1, depth + 1, budget, err);
            if (!v) {
                lua_pop(L, 2);
                json_decref(o);
                return NULL;
            }
            json_object_set_new(o, lua_tostring(L, -2), v);
        }
        lua_pop(L, 1);
    }
    return o;
}

static json_t *to_json(lua_State *L, int idx, int depth, char **err) {
    size_t budget = COPY_LIMIT;
    return to_json_in(L, idx, depth, &budget, err);
}

/* Calls M[fn](S, ...args pushed by the caller) and converts its first
 * result to JSON. The caller pushed nargs values after M, fn, S. */
static json_t *call_json(space *s, int nargs, char **err) {
    lua_State *L = s->L;
    if (!call(s, nargs + 1, 1, err)) { /* M result|- */
        lua_pop(L, 1);
        return NULL;
    }
    json_t *j = to_json(L, -1, 0, err);
    if (!j) {
        char *e = *err;
        *err = xasprintf("%s: the space library returned %s", s->file, e);
        free(e);
    }
    lua_pop(L, 2);
    return j;
}

/* Pushes M, M[fn], S. */
static void push_method(space *s, const char *fn) {
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->module_ref);
    lua_getfield(s->L, -1, fn);
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->space_ref);
}

static char *string_field(lua_State *L, int idx, const char *k) {
    lua_getfield(L, idx, k);
    char *v = xstrdup(lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    lua_pop(L, 1);
    return v;
}

/* A JSON scalar as the text a config holds. */
static const char *json_text(json_t *v, char buf[32]) {
    if (json_is_integer(v)) {
        snprintf(buf, 32, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_boolean(v)) return json_is_true(v) ? "true" : "false";
    return json_string_value(v) ? json_string_value(v) : "";
}

/* [[name, value], ...] -> config */
static void pairs_config(json_t *list, config *c) {
    size_t i;
    json_t *pair;
    json_array_foreach(list, i, pair) {
        char buf[32];
        const char *name = json_string_value(json_array_get(pair, 0));
        if (name) config_set(c, name, json_text(json_array_get(pair, 1), buf));
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
    lua_getfield(L, -1, field); /* S list */
    for (lua_Integer i = 1, n = (lua_Integer)lua_rawlen(L, -1); i <= n; i++) {
        lua_rawgeti(L, -1, i); /* S list p */
        lua_getfield(L, -1, "name");
        config_set(out, lua_tostring(L, -1), "");
        lua_pop(L, 2); /* S list */
    }
    lua_pop(L, 1); /* S */
}

static void read_named(space *s) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref); /* S */
    lua_getfield(L, -1, "baselines");                /* S list */
    s->n_named = (int)lua_rawlen(L, -1);
    s->named = xmalloc(sizeof(named_config) * (size_t)(s->n_named ? s->n_named : 1));
    for (int i = 0; i < s->n_named; i++) {
        named_config *nc = &s->named[i];
        memset(nc, 0, sizeof *nc);
        lua_rawgeti(L, -1, i + 1); /* S list b */
        nc->label = string_field(L, -1, "label");
        lua_getfield(L, -1, "portable");
        nc->portable = lua_toboolean(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, -1, "config"); /* S list b cfg: checked values, copied by the library */
        lua_pushnil(L);
        while (lua_next(L, -2)) { /* S list b cfg k v */
            char buf[32];
            if (lua_isinteger(L, -1)) {
                snprintf(buf, sizeof buf, "%lld", (long long)lua_tointeger(L, -1));
                config_set(&nc->cfg, lua_tostring(L, -2), buf);
            } else if (lua_type(L, -1) == LUA_TSTRING) {
                config_set(&nc->cfg, lua_tostring(L, -2), lua_tostring(L, -1));
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 2); /* S list */
        sort_config(&nc->cfg);
    }
    lua_pop(L, 2);
}

static void open_safe_libs(lua_State *L) {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base},        {LUA_TABLIBNAME, luaopen_table},
        {LUA_STRLIBNAME, luaopen_string}, {LUA_MATHLIBNAME, luaopen_math},
        {LUA_UTF8LIBNAME, luaopen_utf8},  {NULL, NULL}};
    for (const luaL_Reg *l = libs; l->func; l++) {
        luaL_requiref(L, l->name, l->func, 1);
        lua_pop(L, 1);
    }
    /* Strings share one metatable whose __index is the string library: a
     * script must not reach it (getmetatable("") gives false). */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
    /* No file access from Lua, even for the library. */
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
}

/* templates/<problem>/reference.c: in the space's templates, else bartune's. */
/* templates/<problem>/reference.c, else that of the nearest problem it
 * extends that has one (registering this problem's name too). */
static void find_reference(space *s, const char *problem) {
    char *rel = xasprintf("%s/reference.c", problem);
    char *found = space_template_path(s, rel, NULL);
    json_t *chain = json_object_get(s->problem, "extends");
    for (size_t i = 0; !found && i < json_array_size(chain); i++) {
        char *up = xasprintf("%s/reference.c", json_string_value(json_array_get(chain, i)));
        if ((found = space_template_path(s, up, NULL))) {
            free(rel);
            rel = up;
        } else {
            free(up);
        }
    }
    if (found) { /* the folder holding <problem>/ */
        s->reference_source = found;
        s->reference_dir = xstrdup(found);
        s->reference_dir[strlen(found) - strlen(rel) - 1] = '\0';
    } else { /* bartune's, whose absence the build reports */
        s->reference_source = xasprintf("%s/templates/%s", s->root, rel);
        s->reference_dir = xasprintf("%s/templates", s->root);
    }
    free(rel);
}

/* template = <template.lua>(); problem = <problem.lua>();
 * M = <space.lua>(template, problem); M.read = read. Leaves M on the stack. */
static bool load_library(space *s, char **err) {
    char *lib_dir = path_join(s->root, "gen/lib");
    bool ok = load_lib(s, lib_dir, "template.lua", err) && call(s, 0, 1, err);
    ok = ok && load_lib(s, lib_dir, "problem.lua", err) && call(s, 0, 1, err);
    ok = ok && load_lib(s, lib_dir, "space.lua", err);
    free(lib_dir);
    if (!ok) return false;
    lua_pushvalue(s->L, -3);               /* template problem space_chunk template */
    lua_insert(s->L, -3);                  /* template template problem space_chunk */
    lua_insert(s->L, -3);                  /* template space_chunk template problem */
    if (!call(s, 2, 1, err)) return false; /* template M */
    lua_pushcfunction(s->L, l_read_template);
    lua_setfield(s->L, -2, "read");
    /* search = <search.lua>(M, template) */
    lib_dir = path_join(s->root, "gen/lib");
    ok = load_lib(s, lib_dir, "search.lua", err);
    free(lib_dir);
    if (!ok) return false;                             /* template M search_chunk */
    lua_pushvalue(s->L, -2);                           /* template M chunk M */
    lua_pushvalue(s->L, -4);                           /* template M chunk M template */
    if (!call(s, 2, 1, err)) return false;             /* template M search */
    s->search_ref = luaL_ref(s->L, LUA_REGISTRYINDEX); /* template M */
    lua_remove(s->L, -2);                              /* M */
    return true;
}

space *space_open(const char *path, const char *root, const char *templates_dir, char **err) {
    space *s = xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->root = xstrdup(root);
    s->file = xstrdup(path);
    const char *slash = strrchr(path, '/');
    s->space_dir = slash ? xasprintf("%.*s", (int)(slash - path), path) : xstrdup(".");
    s->explicit_templates = templates_dir != NULL;
    s->templates_dir =
        templates_dir ? xstrdup(templates_dir) : path_join(s->space_dir, "templates");
    s->L = lua_newstate(limited_alloc, s);
    lua_State *L = s->L;
    lua_atpanic(L, on_panic);
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
    if (!load_library(s, err)) {
        free(text);
        space_close(s);
        return NULL;
    }
    lua_pushvalue(L, -1);                           /* M M */
    s->module_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* M */
    lua_getfield(L, -1, "load");                    /* M load */
    lua_pushlstring(L, text, len);
    char *chunkname = xasprintf("@%s", path);
    lua_pushstring(L, chunkname);
    lua_pushcfunction(L, l_read_template);
    lua_pushcfunction(L, l_read_problem);
    lua_pushcfunction(L, l_read_space); /* M load text name read read_problem read_space */
    free(chunkname);
    free(text);
    if (!call(s, 5, 1, err)) { /* M S */
        space_close(s);
        return NULL;
    }
    s->name = string_field(L, -1, "name");
    read_names(L, "launch", &s->launch_names);
    read_names(L, "params", &s->param_names);
    s->space_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* M */
    lua_pop(L, 1);
    read_named(s);
    push_method(s, "problem_info");
    s->problem = call_json(s, 0, err);
    if (!s->problem) {
        space_close(s);
        return NULL;
    }
    find_reference(s, json_string_value(json_object_get(s->problem, "name")));
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
    json_decref(s->problem);
    free(s->templates_dir);
    free(s->root);
    free(s->space_dir);
    free(s->file);
    free(s->name);
    free(s->reference_source);
    free(s->reference_dir);
    free(s);
}

const char *space_name(const space *s) {
    return s->name;
}
const char *space_file(const space *s) {
    return s->file;
}
json_t *space_problem(const space *s) {
    return s->problem;
}
const char *space_reference_source(const space *s) {
    return s->reference_source;
}
const char *space_reference_dir(const space *s) {
    return s->reference_dir;
}

const char *space_templates_dir(const space *s) {
    return s->templates_dir;
}

/* Where a template, a CPU reference or a host baseline is found: the
 * folder --templates names, else templates/ beside the space; then
 * bartune's own templates/. */
char *space_template_path(const space *s, const char *rel, char **looked) {
    char *own = path_join(s->templates_dir, rel);
    char *lib = xasprintf("%s/templates/%s", s->root, rel);
    if (file_exists(own)) {
        free(lib);
        return own;
    }
    if (file_exists(lib)) {
        free(own);
        return lib;
    }
    if (looked) {
        char *where = strcmp(own, lib) ? xasprintf("%s and %s", own, lib) : xstrdup(own);
        *looked = xasprintf("%s; put it in %s/%s", where, s->templates_dir,
                            s->explicit_templates ? "" : " or pass --templates DIR");
        free(where);
    }
    free(own);
    free(lib);
    return NULL;
}

bool space_is_launch_param(const space *s, const char *name) {
    return config_get(&s->launch_names, name) != NULL;
}

const config *space_params(const space *s) {
    return &s->param_names;
}

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

/* JSON -> Lua, for sizes (an object of integers). */
static void push_json(lua_State *L, json_t *j) {
    const char *k;
    json_t *v;
    lua_createtable(L, 0, (int)json_object_size(j));
    json_object_foreach(j, k, v) {
        if (json_is_integer(v))
            lua_pushinteger(L, (lua_Integer)json_integer_value(v));
        else if (json_is_number(v))
            lua_pushnumber(L, json_number_value(v));
        else
            continue;
        lua_setfield(L, -2, k);
    }
}

bool space_variant_specific(space *s, const device_info *d, const config *values) {
    if (json_is_true(json_object_get(space_problem(s), "arch_specific"))) return true;
    if (!values || d->cc_major < 9) return false;
    push_method(s, "arch_specific"); /* M fn S */
    push_config(s->L, values);
    push_device(s->L, d);
    char *err = NULL;
    if (!call(s, 3, 1, &err)) { /* not one of the space's variants: rendering it says why */
        lua_pop(s->L, 1);
        free(err);
        return false;
    }
    bool yes = lua_toboolean(s->L, -1);
    lua_pop(s->L, 2);
    return yes;
}

void space_compile_arch(space *s, const device_info *d, const config *values, char out[16]) {
    device_arch(d, out);
    if (d->cc_major >= 9 && space_variant_specific(s, d, values))
        strncat(out, "a", 15 - strlen(out));
}

/* "k=v" overrides as a table k -> "v". */
static void push_overrides(lua_State *L, char **overrides, int n) {
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(overrides[i], '=');
        lua_pushlstring(L, overrides[i], (size_t)(eq - overrides[i]));
        lua_pushstring(L, eq + 1);
        lua_settable(L, -3);
    }
}

static char *rejected_text(json_t *rejected) {
    strbuf sb = {0};
    const char *k;
    json_t *v;
    json_object_foreach(rejected, k, v)
        sb_printf(&sb, "%s%lld by '%s'", sb.len ? ", " : "", (long long)json_integer_value(v), k);
    return sb_take(&sb);
}

/* One variant of M.variants' list, as C holds it. */
static void read_variant(json_t *j, variant *v) {
    memset(v, 0, sizeof *v);
    pairs_config(json_object_get(j, "params"), &v->params);
    pairs_config(json_object_get(j, "derived"), &v->derived);
    json_t *launches = json_object_get(j, "launches");
    v->n_launches = (int)json_array_size(launches);
    v->launches = calloc((size_t)(v->n_launches ? v->n_launches : 1), sizeof(config));
    for (int k = 0; k < v->n_launches; k++)
        pairs_config(json_array_get(launches, (size_t)k), &v->launches[k]);
}

static size_t config_bytes(const config *c) {
    size_t n = sizeof(kv) * (size_t)c->count;
    for (int i = 0; i < c->count; i++) n += strlen(c->items[i].name) + strlen(c->items[i].value) + 2;
    return n;
}

static size_t variant_bytes(const variant *v) {
    size_t n = sizeof *v + config_bytes(&v->params) + config_bytes(&v->derived);
    for (int k = 0; k < v->n_launches; k++) n += sizeof(config) + config_bytes(&v->launches[k]);
    return n;
}

/* The expansion's list (at idx) into out, one variant at a time: only one
 * variant's JSON is alive at once, and what the variants hold in C is what
 * the copy limit charges (sgemm's 96,392 variants: 71 MiB held, where
 * the whole list as JSON charged nearly all of the 512). */
static bool read_variants(lua_State *L, int idx, variant_set *out, char **err) {
    idx = lua_absindex(L, idx);
    lua_Unsigned n = lua_type(L, idx) == LUA_TTABLE ? lua_rawlen(L, idx) : 0;
    if (n > INT_MAX / 2) {
        *err = xstrdup("more variants than bartune can hold");
        return false;
    }
    out->items = xmalloc(sizeof(variant) * (size_t)(n ? n : 1));
    size_t held = COPY_LIMIT;
    for (lua_Unsigned i = 1; i <= n; i++) {
        size_t budget = COPY_LIMIT;
        lua_rawgeti(L, idx, (lua_Integer)i);
        json_t *j = to_json_in(L, -1, 1, &budget, err);
        lua_pop(L, 1);
        if (!j) return false;
        variant *v = &out->items[out->count++];
        read_variant(j, v);
        json_decref(j);
        if (!charge(&held, variant_bytes(v), err)) return false;
    }
    return true;
}

bool space_variants(space *s, const device_info *dev, char **overrides, int n_overrides,
                    variant_set *out, char **err) {
    lua_State *L = s->L;
    memset(out, 0, sizeof *out);
    push_method(s, "variants");                /* M fn S */
    push_device(L, dev);                       /* M fn S dev */
    push_overrides(L, overrides, n_overrides); /* M fn S dev ov */
    if (!call_within(s, 3, 3, EXPANSION_LIMIT, err)) { /* M list rejected total */
        lua_pop(L, 1);
        return false;
    }
    out->total = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    json_t *rejected = to_json(L, -1, 0, err);
    bool ok = rejected && read_variants(L, -2, out, err);
    lua_pop(L, 3);
    if (!ok) {
        char *e = *err;
        *err = xasprintf("%s: its variants: %s", s->file, e);
        free(e);
        json_decref(rejected);
        variant_set_free(out);
        return false;
    }
    out->rejected = json_is_object(rejected) ? rejected_text(rejected) : xstrdup("");
    json_decref(rejected);
    return true;
}

char *space_render(space *s, const device_info *dev, const config *values, const config *extra,
                   bool host, char **err) {
    lua_State *L = s->L;
    config compile = {0};
    for (int i = 0; i < values->count; i++)
        if (!space_is_launch_param(s, values->items[i].name))
            config_set(&compile, values->items[i].name, values->items[i].value);
    push_method(s, "render"); /* M fn S */
    push_config(L, &compile);
    config_free(&compile);
    push_device(L, dev);
    if (extra)
        push_config(L, extra);
    else
        lua_pushnil(L);
    lua_pushboolean(L, host); /* M fn S cfg dev extra host */
    if (!call(s, 5, 1, err)) {
        lua_pop(L, 1);
        return NULL;
    }
    size_t len = 0;
    const char *text = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    char *src = text && len <= SOURCE_LIMIT ? xstrdup(text) : NULL;
    if (!text)
        *err = xasprintf("%s: the template expansion returned no text", s->file);
    else if (!src)
        *err = xasprintf("%s: the template expanded to %zu MiB for one variant (at most %zu: a "
                         "runaway loop in the template?)",
                         s->file, len >> 20, SOURCE_LIMIT >> 20);
    lua_pop(L, 2);
    return src;
}

void space_template_failed(space *s, const char *config_desc, const char *err) {
    if (!s->template_failed)
        msg_error("%s: the template fails on a variant the space accepts (%s): %s; fix the "
                  "template: records of such variants count as not current, and no header is "
                  "written while it fails",
                  s->file, config_desc, err);
    s->template_failed = true;
}
bool space_template_failing(const space *s) {
    return s->template_failed;
}

bool space_validate(space *s, const device_info *dev, const config *values, bool whole,
                    char **err) {
    lua_State *L = s->L;
    push_method(s, "validate"); /* M fn S */
    push_config(L, values);
    push_device(L, dev);
    lua_pushboolean(L, whole);
    bool ok = call(s, 4, 1, err);
    lua_pop(L, ok ? 2 : 1);
    return ok;
}

json_t *space_instance(space *s, json_t *sizes, bool checks, char **err) {
    push_method(s, "instance");
    push_json(s->L, sizes);
    lua_pushboolean(s->L, !checks);
    return call_json(s, 2, err);
}

json_t *space_full_sizes(void *ctx, json_t *sizes) {
    space *s = ctx;
    push_method(s, "full_sizes");
    push_json(s->L, sizes);
    char *err = NULL;
    json_t *out = call_json(s, 1, &err);
    free(err);
    return out;
}

json_t *space_geometry(space *s, const device_info *dev, const config *values, json_t *sizes,
                       json_t *at, char **err) {
    push_method(s, "geometry");
    push_config(s->L, values);
    push_device(s->L, dev);
    if (sizes)
        push_json(s->L, sizes);
    else
        lua_pushnil(s->L);
    if (at)
        push_json(s->L, at);
    else
        lua_pushnil(s->L);
    return call_json(s, 4, err);
}

bool space_reuse(space *s, const device_info *dev, const config *values, json_t *sizes,
                 long long *rounds, char **blind, char **err) {
    push_method(s, "reuse");
    push_config(s->L, values);
    push_device(s->L, dev);
    push_json(s->L, sizes);
    json_t *r = call_json(s, 3, err);
    if (!r) return false;
    json_t *v = json_object_get(r, "rounds");
    *rounds = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    const char *why = json_string_value(json_object_get(r, "blind"));
    *blind = why ? xstrdup(why) : NULL;
    json_decref(r);
    return true;
}

/* Records as the replay's landscape: canonical "a=1 b=x" (names sorted) ->
 * { status, ms } (ms: the ranked value, time unless --rank energy); a later
 * record of the same config wins. */
static void push_landscape(lua_State *L, json_t *records) {
    lua_createtable(L, 0, (int)json_array_size(records));
    json_t *rec;
    size_t i;
    json_array_foreach(records, i, rec) {
        config cfg = {0};
        config_from_json(json_object_get(rec, "config"), NULL, NULL, &cfg, NULL);
        sort_config(&cfg);
        char *desc = config_describe(&cfg);
        config_free(&cfg);
        lua_createtable(L, 0, 2);
        lua_pushstring(L, results_rank_status(rec));
        lua_setfield(L, -2, "status");
        lua_pushnumber(L, results_rank_value(rec));
        lua_setfield(L, -2, "ms");
        lua_setfield(L, -2, desc);
        free(desc);
    }
}

/* Each landscape of `warm` (an array of record arrays) as a Lua list. */
static void push_landscapes(lua_State *L, json_t *warm) {
    lua_createtable(L, (int)json_array_size(warm), 0);
    json_t *w;
    size_t i;
    json_array_foreach(warm, i, w) {
        push_landscape(L, w);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* Calls search.NAME (with the integer arg when it is >= 0) under the limits;
 * on success the search table and nres results stay on the stack. */
static bool search_call(space *s, const char *name, long long arg, int nres, char **err) {
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->search_ref);
    lua_getfield(s->L, -1, name);
    if (arg >= 0) lua_pushinteger(s->L, arg);
    bool ok = call(s, arg >= 0 ? 1 : 0, nres, err);
    if (!ok) lua_pop(s->L, 1);
    return ok;
}

json_t *space_replay(space *s, const device_info *dev, json_t *records, json_t *warm,
                     bool recorded, const char *strategy, const char *chunkname, int seeds,
                     int budget, char **err) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->search_ref); /* search */
    lua_getfield(L, -1, "replay_begin");              /* search fn */
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref);  /* search fn S */
    push_device(L, dev);
    push_landscape(L, records);
    lua_pushstring(L, strategy);
    lua_pushstring(L, chunkname);
    lua_pushinteger(L, budget); /* search fn S dev land text name budget */
    push_landscapes(L, warm);   /* ... warm: the other landscapes */
    lua_pushboolean(L, recorded);
    if (!call_within(s, 8, 0, EXPANSION_LIMIT, err)) { /* the expansion, and the landscapes */
        lua_pop(L, 1);
        return NULL;
    }
    lua_pop(L, 1);
    /* each seed one call: the limits of a call hold per search, as live */
    for (int seed = 1; seed <= seeds; seed++) {
        if (!search_call(s, "replay_seed", seed, 0, err)) return NULL;
        lua_pop(L, 1);
    }
    if (!search_call(s, "replay_end", -1, 1, err)) return NULL;
    json_t *j = to_json(L, -1, 0, err);
    lua_pop(L, 2);
    return j;
}

bool space_search_start(space *s, const device_info *dev, char **overrides, int n_overrides,
                        const char *strategy, const char *chunkname, long budget,
                        unsigned long long seed, json_t *warm, char **err) {
    lua_State *L = s->L;
    /* the expansion first, in a call of its own (search.lua's M.expand) */
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->search_ref);
    lua_getfield(L, -1, "expand");
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref);
    push_device(L, dev);
    push_overrides(L, overrides, n_overrides);
    bool ok = call_within(s, 3, 1, EXPANSION_LIMIT, err);
    lua_pop(L, ok ? 2 : 1);
    if (!ok) return false;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->search_ref);
    lua_getfield(L, -1, "start");
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->space_ref);
    push_device(L, dev);
    push_overrides(L, overrides, n_overrides);
    lua_pushstring(L, strategy);
    lua_pushstring(L, chunkname);
    lua_pushinteger(L, budget);
    lua_pushinteger(L, (lua_Integer)(seed & 0x7fffffffffffffffull));
    push_landscapes(L, warm);
    ok = call(s, 8, 1, err);
    lua_pop(L, ok ? 2 : 1);
    return ok;
}

int space_search_ask(space *s, int k, int *ids, char **err) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->search_ref);
    lua_getfield(L, -1, "ask");
    lua_pushinteger(L, k);
    if (!call(s, 1, 1, err)) {
        lua_pop(L, 1);
        return -1;
    }
    int n = 0;
    for (lua_Integer i = 1, len = (lua_Integer)lua_rawlen(L, -1); i <= len && n < k; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_isinteger(L, -1)) ids[n++] = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return n;
}

bool space_search_tell(space *s, int id, const char *status, double ms, char **err) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->search_ref);
    lua_getfield(L, -1, "tell");
    lua_pushinteger(L, id);
    lua_pushstring(L, status);
    lua_pushnumber(L, ms);
    bool ok = call(s, 3, 0, err);
    lua_pop(L, 1);
    return ok;
}
