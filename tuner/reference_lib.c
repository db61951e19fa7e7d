#include "reference_lib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "proc.h"
#include "util.h"

static const char *const CFLAGS[] = {"-O2", "-shared", "-fPIC", "-std=c11", "-pthread"};

static bool has_ext(const char *name, const char *ext) {
    size_t len = strlen(name), n = strlen(ext);
    return len > n && !strcmp(name + len - n, ext);
}

/* Hash of source, the API header and every .h (with_cu: and .cu) of
 * source's folder, which it may include; false if source is unreadable. */
static bool folder_hash(const char *source, const char *api, bool with_cu, XXH3_state_t *st) {
    char *dir = xstrdup(source);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    char *files[256];
    int n = 0;
    files[n++] = xstrdup(source);
    files[n++] = xstrdup(api);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256)
        if (has_ext(e->d_name, ".h") || (with_cu && has_ext(e->d_name, ".cu")))
            files[n++] = path_join(dir, e->d_name);
    if (d) closedir(d);
    bool ok = true;
    for (int i = 0; i < n; i++) {
        size_t len;
        char *text = read_file(files[i], &len);
        if (text)
            XXH3_64bits_update(st, text, len + 1);
        else if (i == 0)
            ok = false;
        free(text);
        free(files[i]);
    }
    free(dir);
    return ok;
}

/* The reference's: its folder's .c and .h, the API header, the flags. */
static bool source_hash(const char *source, const char *api_dir, char key[17]) {
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    char *api = path_join(api_dir, "bartune_reference.h");
    bool ok = folder_hash(source, api, false, st);
    for (size_t i = 0; i < sizeof CFLAGS / sizeof CFLAGS[0]; i++)
        XXH3_64bits_update(st, CFLAGS[i], strlen(CFLAGS[i]) + 1);
    snprintf(key, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(st));
    XXH3_freeState(st);
    free(api);
    return ok;
}

bool shared_object_build(const char *const *args, const char *lib, const char *what) {
    char *tmp = xasprintf("%s.tmp.%ld", lib, (long)getpid());
    char *log = xasprintf("%s.log.tmp.%ld", lib, (long)getpid());
    char *argv[64];
    int a = 0;
    for (int i = 0; args[i] && a < 60; i++)
        argv[a++] = (char *)args[i];
    argv[a++] = (char *)"-o";
    argv[a++] = tmp;
    argv[a] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    pid_t pid = proc_start(argv, -1, fd, fd);
    if (fd >= 0) close(fd);
    int status = 0;
    bool ok = pid > 0 && proc_wait(pid, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
              rename(tmp, lib) == 0;
    if (!ok) {
        char *text = read_file(log, NULL);
        msg_error("building %s with %s failed:\n%s", what, args[0], text ? text : "(no output)");
        free(text);
        unlink(tmp);
    }
    unlink(log);
    free(tmp);
    free(log);
    return ok;
}

char *reference_lib_build(const char *cc, const char *source, const char *problem_dir,
                          const char *api_dir, const char *cache_dir, char key[17]) {
    if (!source_hash(source, api_dir, key)) {
        msg_error("cannot read the CPU reference %s: %s (every problem needs one: see "
                  "templates/bartune_reference.h)",
                  source, strerror(errno));
        return NULL;
    }
    char *lib = xasprintf("%s/ref-%s.so", cache_dir, key);
    if (file_exists(lib)) return lib;
    if (!mkdir_p(cache_dir)) {
        msg_error("cannot create %s: %s", cache_dir, strerror(errno));
        free(lib);
        return NULL;
    }
    char *inc1 = xasprintf("-I%s", problem_dir), *inc2 = xasprintf("-I%s", api_dir);
    const char *args[16];
    int n = 0;
    args[n++] = cc;
    for (size_t i = 0; i < sizeof CFLAGS / sizeof CFLAGS[0]; i++)
        args[n++] = CFLAGS[i];
    args[n++] = inc1;
    args[n++] = inc2;
    args[n++] = source;
    args[n++] = "-lm";
    args[n] = NULL;
    char *what = xasprintf("the CPU reference %s", source);
    if (!shared_object_build(args, lib, what)) {
        free(lib);
        lib = NULL;
    }
    free(what);
    free(inc1);
    free(inc2);
    return lib;
}

/* -Xlinker -rpath,<nvcc's toolkit>/lib64: the runner finds the libraries
 * (cuBLAS) the toolkit built against, wherever ld.so would not look. */
static char *toolkit_rpath(const char *nvcc) {
    char *dir = xstrdup(nvcc);
    char *slash = strrchr(dir, '/');
    char *out = NULL;
    if (slash) {
        *slash = '\0';
        out = xasprintf("-Xlinker=-rpath,%s/../lib64", dir);
    }
    free(dir);
    return out ? out : xstrdup("-Xlinker=-rpath,/usr/local/cuda/lib64");
}

char *host_baseline_build(const char *nvcc, const char *nvcc_version, const char *arch,
                          json_t *baseline, const char *source, const char *api,
                          const char *const includes[2], const char *cache_dir) {
    const char *label = json_string_value(json_object_get(baseline, "label"));
    char *text = read_file(source, NULL), *api_text = read_file(api, NULL);
    if (!text || !api_text) {
        msg_error("host baseline '%s': cannot read %s", label, text ? api : source);
        free(text), free(api_text);
        return NULL;
    }
    json_t *libs = json_object_get(baseline, "libs");
    char *lib_flags = xstrdup(""), *key_text;
    json_t *l;
    size_t i;
    json_array_foreach(libs, i, l) {
        char *more = xasprintf("%s -l%s", lib_flags, json_string_value(l));
        free(lib_flags);
        lib_flags = more;
    }
    /* what it includes beside it counts too (cublas_baseline_f32c.cu is
     * cublas_baseline.cu with C's type set) */
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    folder_hash(source, api, true, st);
    key_text = xasprintf("%016llx|%s|%s|%s", (unsigned long long)XXH3_64bits_digest(st), arch,
                         lib_flags, nvcc_version);
    XXH3_freeState(st);
    char *lib = xasprintf("%s/baseline-%016llx.so", cache_dir,
                          (unsigned long long)XXH3_64bits(key_text, strlen(key_text)));
    if (!file_exists(lib)) {
        char *arch_flag = xasprintf("-arch=%s", arch), *inc0 = xasprintf("-I%s", includes[0]);
        char *inc1 = xasprintf("-I%s", includes[1]), *rpath = toolkit_rpath(nvcc);
        const char *args[40] = {nvcc,  "-shared", "-Xcompiler=-fPIC", "-O2", arch_flag, inc0, inc1,
                                rpath, source};
        int n = 9;
        json_array_foreach(libs, i, l) {
            if (n < 38) args[n++] = xasprintf("-l%s", json_string_value(l));
        }
        char *what = xasprintf("host baseline '%s' (%s)", label, source);
        if (!mkdir_p(cache_dir) || !shared_object_build(args, lib, what)) {
            free(lib);
            lib = NULL;
        }
        for (int k = 9; k < n; k++)
            free((char *)args[k]);
        free(what), free(arch_flag), free(inc0), free(inc1), free(rpath);
    }
    free(key_text), free(lib_flags), free(text), free(api_text);
    return lib;
}
