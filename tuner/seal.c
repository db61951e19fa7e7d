/* bartune seal: the records of every results/<device>/<space>.jsonl moved
 * into its sealed history <space>.jsonl.gz, which every command reads first
 * (a fifteenth of the size in git). Each file under its lock: a run tuning
 * into it meanwhile waits, then appends to the emptied plain file. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "results.h"
#include "util.h"

/* One results/<key>/<space>.jsonl: false (with a message) on failure. */
static bool seal_one(const char *folder, const char *key, const char *space) {
    results_store st;
    char *err = NULL;
    int moved = 0;
    bool ok = results_open(&st, folder, space, key, &err) && results_seal(&st, &moved, &err);
    if (!ok) {
        msg_error("%s; the records stay where they were", err);
        free(err);
    } else if (moved) {
        fprintf(stderr, "bartune: %d records of %s moved into %s.gz\n", moved, st.path, st.path);
    }
    if (st.path) results_close(&st);
    return ok;
}

/* Every <space>.jsonl of one device folder. */
static bool seal_folder(const char *folder, const char *key) {
    DIR *d = opendir(folder);
    bool ok = true;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || n <= 6 || strcmp(e->d_name + n - 6, ".jsonl")) continue;
        char *space = xasprintf("%.*s", (int)(n - 6), e->d_name);
        ok = seal_one(folder, key, space) && ok;
        free(space);
    }
    if (d) closedir(d);
    return ok;
}

int cmd_seal(const options *o) {
    DIR *d = opendir(o->results);
    if (!d) {
        msg_error("cannot open %s: %s (pass --results DIR: the folder of results/<device>/ "
                  "folders)",
                  o->results, strerror(errno));
        return EXIT_INPUT;
    }
    bool ok = true;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *folder = path_join(o->results, e->d_name);
        struct stat st;
        if (stat(folder, &st) == 0 && S_ISDIR(st.st_mode))
            ok = seal_folder(folder, e->d_name) && ok;
        free(folder);
    }
    closedir(d);
    return ok ? EXIT_OK : EXIT_INPUT;
}
