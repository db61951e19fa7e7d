/* bartune devices: the GPUs the runner sees, one line each, by number (the
 * numbers --gpus takes). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpu.h"
#include "record.h"
#include "results.h"
#include "util.h"

/* The first line of a results file, or of its sealed history when the plain
 * file has none (a new string, or NULL). */
static char *first_line(const char *path) {
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    bool got = f && getline(&line, &cap, f) > 0;
    if (f) fclose(f);
    if (got) return line;
    free(line);
    char *gz = results_sealed_path(path), *err = NULL, *text = NULL;
    size_t len = 0;
    if (file_exists(gz)) text = results_inflate(gz, &len, &err);
    free(err);
    free(gz);
    if (text) text[strcspn(text, "\n")] = '\0';
    return text;
}

/* The device of the first record of some results file in `folder` (a
 * results/<key>/ folder): false when there is none. */
static bool folder_device(const char *folder, device_info *d) {
    DIR *dir = opendir(folder);
    bool found = false;
    for (struct dirent *e; dir && !found && (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n > 3 && !strcmp(e->d_name + n - 3, ".gz")) n -= 3; /* sealed alone */
        if (n < 7 || strncmp(e->d_name + n - 6, ".jsonl", 6) || e->d_name[0] == '.') continue;
        char *path = xasprintf("%s/%.*s", folder, (int)n, e->d_name), *line = first_line(path);
        json_t *rec = line ? json_loads(line, 0, NULL) : NULL;
        char *why = rec ? record_check(rec, NULL) : NULL;
        if (rec && !why) {
            record_device(rec, d);
            found = true;
        }
        free(why);
        json_decref(rec);
        free(line);
        free(path);
    }
    if (dir) closedir(dir);
    return found;
}

/* Which results an emitted header runs on device d, by the header's rule:
 * the same compute capability, the same name first, else the nearest SM
 * count. Prints one line. */
static void say_tuning(const options *o, const device_info *d) {
    DIR *dir = opendir(o->results);
    char best_key[256] = "", best_name[128] = "";
    int best_sms = 0;
    double best = 1e300;
    for (struct dirent *e; dir && (e = readdir(dir));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "portable")) continue;
        char *folder = path_join(o->results, e->d_name);
        device_info t;
        if (folder_device(folder, &t) && t.cc_major == d->cc_major && t.cc_minor == d->cc_minor) {
            double dist = !strcmp(t.name, d->name) ? 0 : 1 + fabs(log2((double)d->sms / t.sms));
            if (dist < best) {
                best = dist;
                snprintf(best_key, sizeof best_key, "%s", e->d_name);
                snprintf(best_name, sizeof best_name, "%s", t.name);
                best_sms = t.sms;
            }
        }
        free(folder);
    }
    if (dir) closedir(dir);
    if (!best_key[0])
        printf("  headers emitted from %s run the portable variants here: no results of compute "
               "capability %d.%d\n",
               o->results, d->cc_major, d->cc_minor);
    else if (best == 0)
        printf("  headers run the variants tuned on this card: %s/%s\n", o->results, best_key);
    else
        printf("  headers run the variants tuned on %s (%d SMs), the nearest of compute capability "
               "%d.%d: %s/%s\n",
               best_name, best_sms, d->cc_major, d->cc_minor, o->results, best_key);
}

/* Says hello to a runner on GPU `ordinal`; prints its line. */
static bool show_gpu(const options *o, int ordinal, int *count) {
    runner_client r;
    char *log = gpu_log_path(o, ordinal);
    bool started = mkdir_p(o->cache) && runner_start(&r, o->runner, ordinal, log);
    free(log);
    if (!started) {
        msg_error("cannot start %s", o->runner);
        return false;
    }
    device_info d;
    char *why = NULL;
    bool ok = gpu_hello(&r, 60, &d, count, &why);
    if (!ok) {
        msg_error("no GPU %d: %s", ordinal, why);
        free(why);
    } else {
        char key[160];
        device_key(&d, key);
        printf("GPU %d: %s: %s, compute capability %d.%d, %d SMs, %d KiB shared memory per "
               "block, driver %s, CUDA %d.%d\n",
               ordinal, key, d.name, d.cc_major, d.cc_minor, d.sms, d.smem_per_block_optin / 1024,
               d.driver, d.cuda_version / 1000, d.cuda_version % 1000 / 10);
        say_tuning(o, &d);
    }
    runner_stop(&r);
    return ok;
}

int cmd_devices(const options *o) {
    int count = 1, ignored;
    if (!show_gpu(o, 0, &count)) return EXIT_NO_GPU;
    for (int i = 1; i < count; i++)
        if (!show_gpu(o, i, &ignored)) return EXIT_FAILURE_;
    return EXIT_OK;
}
