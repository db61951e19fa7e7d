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

/* Hash of every .c and .h of the reference's folder and the API header. */
static bool source_hash(const char *source, const char *api_dir, char key[17]) {
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    char *dir = xstrdup(source);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    char *api = path_join(api_dir, "bartune_reference.h");
    char *files[256];
    int n = 0;
    files[n++] = xstrdup(source);
    files[n++] = api;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 2 && !strcmp(e->d_name + len - 2, ".h")) files[n++] = path_join(dir, e->d_name);
    }
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
    for (size_t i = 0; i < sizeof CFLAGS / sizeof CFLAGS[0]; i++)
        XXH3_64bits_update(st, CFLAGS[i], strlen(CFLAGS[i]) + 1);
    snprintf(key, 17, "%016llx", (unsigned long long)XXH3_64bits_digest(st));
    XXH3_freeState(st);
    free(dir);
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
    char *tmp = xasprintf("%s.tmp.%ld", lib, (long)getpid());
    char *log = xasprintf("%s.log.tmp.%ld", lib, (long)getpid());
    char *inc1 = xasprintf("-I%s", problem_dir), *inc2 = xasprintf("-I%s", api_dir);
    char *argv[16];
    int a = 0;
    argv[a++] = (char *)cc;
    for (size_t i = 0; i < sizeof CFLAGS / sizeof CFLAGS[0]; i++)
        argv[a++] = (char *)CFLAGS[i];
    argv[a++] = inc1;
    argv[a++] = inc2;
    argv[a++] = (char *)"-o";
    argv[a++] = tmp;
    argv[a++] = (char *)source;
    argv[a++] = (char *)"-lm";
    argv[a] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    pid_t pid = proc_start(argv, -1, fd, fd);
    if (fd >= 0) close(fd);
    int status = 0;
    while (pid > 0 && !proc_poll(pid, &status))
        usleep(10000);
    bool ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && rename(tmp, lib) == 0;
    if (!ok) {
        char *text = read_file(log, NULL);
        msg_error("building the CPU reference %s with %s failed:\n%s", source, cc,
                  text ? text : "(no output)");
        free(text);
        unlink(tmp);
        free(lib);
        lib = NULL;
    }
    unlink(log);
    free(tmp);
    free(log);
    free(inc1);
    free(inc2);
    return lib;
}
