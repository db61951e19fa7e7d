/* Commands that need no GPU: list, render, compile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compile.h"
#include "emit.h"
#include "gpu.h"
#include "progress.h"
#include "record.h"
#include "reference_lib.h"
#include "session.h"
#include "util.h"

/* The device of --arch, the space, and its variants: what every command here
 * starts from. NULL with *rc set (and the error printed) on failure. */
static space *open_expanded(const options *o, device_info *d, variant_set *vs, int *rc) {
    *rc = EXIT_USAGE;
    if (!session_arch_device(o, d)) return NULL;
    *rc = EXIT_INPUT;
    space *s = session_open_space(o);
    if (s && !session_variants(s, o, d, vs)) {
        space_close(s);
        s = NULL;
    }
    if (s) *rc = EXIT_OK;
    return s;
}

int cmd_list(const options *o) {
    device_info d;
    variant_set vs;
    int rc;
    space *s = open_expanded(o, &d, &vs, &rc);
    if (!s) return rc;
    int launches = 0;
    for (int i = 0; i < vs.count; i++) {
        char *p = config_describe(&vs.items[i].params);
        printf("%s\n", p);
        free(p);
        launches += vs.items[i].n_launches;
    }
    json_t *instances = NULL, *sizes = session_sizes(s, o, &instances);
    if (!sizes) { /* a bad --size or tune list: said */
        variant_set_free(&vs);
        space_close(s);
        return EXIT_INPUT;
    }
    size_t tuples = json_array_size(sizes);
    printf("%d variants for %s (of %d combinations%s%s), %d launch configurations in all", vs.count,
           d.name, vs.total, vs.rejected[0] ? "; rejected " : "", vs.rejected, launches);
    if (tuples > 1) /* what a run measures without a strategy */
        printf("; at each of %zu size tuples: %lld measurements", tuples,
               (long long)launches * (long long)tuples);
    printf("\n");
    json_decref(sizes);
    json_decref(instances);
    variant_set_free(&vs);
    space_close(s);
    return EXIT_OK;
}

int cmd_render(const options *o) {
    device_info d;
    variant_set vs;
    int rc;
    space *s = open_expanded(o, &d, &vs, &rc);
    if (!s) return rc;
    char *desc = config_describe(&vs.items[0].params);
    if (vs.count > 1)
        fprintf(stderr, "bartune: %d variants match; rendering the first: %s\n", vs.count, desc);
    char *err = NULL;
    char *src = render_for_cubin(s, &d, &vs.items[0].params, &err);
    if (src) {
        fputs(src, stdout);
    } else {
        msg_error("%s", err);
        rc = EXIT_INPUT;
    }
    free(src);
    free(err);
    free(desc);
    variant_set_free(&vs);
    space_close(s);
    return rc;
}

static void compile_tick(void *ctx, const compile_job *job, int done, int total) {
    (void)ctx;
    progress("[%d/%d] compiled %s%s", done, total, job->key, job->cached ? " (cached)" : "");
}

int cmd_compile(const options *o) {
    device_info d;
    variant_set vs;
    int rc;
    space *s = open_expanded(o, &d, &vs, &rc);
    if (!s) return rc;
    char arch[16];
    space_compile_arch(s, &d, NULL, arch);
    compiler c = {.nvcc = o->nvcc,
                  .cache_dir = o->cache,
                  .arch = arch,
                  .jobs = o->jobs,
                  .timeout = o->compile_timeout};
    compile_job *jobs = calloc((size_t)vs.count, sizeof *jobs);
    char **sources = calloc((size_t)vs.count, sizeof *sources);
    size_t held = 0;
    if (!compiler_init(&c)) rc = EXIT_FAILURE_;
    for (int i = 0; i < vs.count && rc == EXIT_OK; i++) {
        char *err = NULL;
        sources[i] = render_held(s, &d, &vs.items[i].params, &held, &err);
        if (!sources[i]) {
            msg_error("%s", err);
            free(err);
            rc = EXIT_INPUT;
            break;
        }
        jobs[i].source = sources[i];
        job_key(s, &d, &vs.items[i].params, &c, &jobs[i]);
    }
    if (rc == EXIT_OK && !compile_all(&c, jobs, vs.count, compile_tick, NULL))
        rc = EXIT_INTERRUPTED;
    progress_end();
    int failed = 0, own = 0;
    for (int i = 0; i < vs.count && rc == EXIT_OK; i++) {
        char *p = config_describe(&vs.items[i].params);
        const resources *r = &jobs[i].res;
        bool mine = strcmp(jobs[i].arch, arch) != 0; /* built for its own architecture */
        own += mine;
        printf("%-15s %s regs=%d smem=%d stack=%d spills=%d/%d %s%s %s\n",
               compile_status_name(jobs[i].status), jobs[i].key, r->registers, r->smem_static,
               r->stack, r->spill_stores, r->spill_loads, mine ? "arch=" : "",
               mine ? jobs[i].arch : "", p);
        if (jobs[i].status != COMPILE_OK) {
            failed++;
            fprintf(stderr, "--- %s (%s)\n%s", p, jobs[i].key, jobs[i].log ? jobs[i].log : "");
        }
        free(p);
    }
    if (rc == EXIT_OK && own)
        printf("%d variants compiled for %s (%d of them for %sa, its own features), %d failed\n",
               vs.count, arch, own, arch, failed);
    else if (rc == EXIT_OK)
        printf("%d variants compiled for %s, %d failed\n", vs.count, arch, failed);
    if (rc == EXIT_OK && failed) rc = EXIT_FAILURE_;
    for (int i = 0; i < vs.count; i++) {
        compile_job_free(&jobs[i]);
        free(sources[i]);
    }
    free(jobs);
    free(sources);
    compiler_free(&c);
    variant_set_free(&vs);
    space_close(s);
    return rc;
}

/* bartune check, half one: the first and the last variant as one header
 * holds them (each in its own namespace) compile together in one
 * translation unit, as a program that includes the header will. */
static bool check_header(const options *o, space *s, const device_info *d, const variant_set *vs,
                         const char *arch) {
    int picks[2] = {0, vs->count - 1}, n = vs->count > 1 ? 2 : 1;
    strbuf b = {0};
    sb_printf(&b, "%s", emit_common());
    for (int k = 0; k < n; k++) {
        const variant *v = &vs->items[picks[k]];
        char ns[64];
        snprintf(ns, sizeof ns, "bartune_check_v%d", k + 1);
        char *src = emit_variant(s, d, &v->params, &v->launches[0], NULL, ns);
        if (!src) {
            free(b.data);
            return false;
        }
        sb_printf(&b, "%s\n", src);
        free(src);
    }
    char *dir = path_join(o->cache, "check");
    char *cu = xasprintf("%s/%s.cu", dir, space_name(s)),
         *obj = xasprintf("%s/%s.o", dir, space_name(s));
    bool ok = mkdir_p(dir) && write_file_atomic(cu, b.data, b.len);
    char flag[64], own[16];  /* a pick built for its architecture's own features: so the unit */
    for (int k = 0; k < n; k++) {
        space_compile_arch(s, d, &vs->items[picks[k]].params, own);
        if (own[strlen(own) - 1] == 'a') arch = own;
    }
    compile_arch_flag(arch, flag, sizeof flag);
    const char *args[] = {o->nvcc, "-c", "-std=c++17", flag, cu, NULL};
    char *what =
        xasprintf("%d variant%s of %s in one header (does the template wrap all its code in "
                  "namespace $(ns)? see templates/bartune_reference.h and the README)",
                  n, n > 1 ? "s" : "", space_file(s));
    ok = ok && shared_object_build(args, obj, what);
    if (ok)
        printf("header: %d variant%s of %s compile together (%s, %s)\n", n, n > 1 ? "s" : "",
               space_name(s), flag, cu);
    free(what), free(b.data), free(dir), free(cu), free(obj);
    return ok;
}

/* Half two: the problem's CPU reference builds and runs at the cheapest
 * size tuple asked (--size, else the tune list), on this machine's CPU. */
static bool check_reference(const options *o, space *s, const device_info *d) {
    json_t *instances = NULL, *sizes = session_sizes(s, o, &instances);
    if (!sizes) return false;
    size_t pick = 0;
    double least = -1;
    for (size_t i = 0; i < json_array_size(instances); i++) {
        json_t *in = json_array_get(instances, i);
        double work = json_number_value(json_object_get(in, "bytes")) +
                      json_number_value(json_object_get(in, "fma")) +
                      json_number_value(json_object_get(in, "mma"));
        if (least < 0 || work < least) least = work, pick = i;
    }
    gpu g;
    bool ok = gpu_open_cpu(&g, o, s, d) == EXIT_OK;
    double t0 = now_seconds();
    char *err = NULL; /* with its check sizes, whose references run too */
    json_t *full = ok ? space_instance(s, json_array_get(sizes, pick), true, &err) : NULL;
    if (ok && !full) msg_error("%s", err);
    free(err);
    ok = ok && full && gpu_problem(&g, json_array_get(sizes, pick), full);
    json_decref(full);
    if (ok) {
        char *at = sizes_describe(json_array_get(sizes, pick));
        printf("reference: %s's CPU reference built and ran at %s in %.2f s\n", space_name(s), at,
               now_seconds() - t0);
        free(at);
    }
    gpu_close(&g);
    json_decref(sizes);
    json_decref(instances);
    return ok;
}

/* Half three: every baseline and portable config the space names is one of
 * its variants (bench and emit would find out only on a GPU): a baseline on
 * this device, the portable one on sm_70, where emit builds it for. */
static bool check_named(space *s, const device_info *d) {
    int n;
    const named_config *nc = space_named(s, &n);
    device_info sm70;
    device_for_arch("sm_70", &sm70);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        char *err = NULL;
        const device_info *on = nc[i].portable ? &sm70 : d;
        if (!space_validate(s, on, &nc[i].cfg, true, &err)) {
            msg_error("%s: %s '%s' is not a variant of the space on %s: %s; give it the values "
                      "the space's parameters take there",
                      space_file(s), nc[i].portable ? "portable" : "baseline", nc[i].label,
                      on->name, err ? err : "?");
            ok = false;
        }
        free(err);
    }
    if (ok && n)
        printf("named: the %d baseline and portable config%s of %s are variants of it\n", n,
               n > 1 ? "s" : "", space_name(s));
    return ok;
}

int cmd_check(const options *o) {
    device_info d;
    variant_set vs;
    int rc;
    space *s = open_expanded(o, &d, &vs, &rc);
    if (!s) return rc;
    char arch[16];
    space_compile_arch(s, &d, NULL, arch);
    printf("space: %d variants for %s\n", vs.count, d.name);
    bool ok = check_header(o, s, &d, &vs, arch);
    ok = check_reference(o, s, &d) && ok;
    ok = check_named(s, &d) && ok;
    variant_set_free(&vs);
    space_close(s);
    return ok ? EXIT_OK : EXIT_INPUT;
}
