/* bartune merge: results files of one device key and space (shards of a
 * cluster job, other hosts with the same card) joined into
 * results/<key>/<space>.jsonl, each measurement once, so that emit works as
 * if one machine had measured them all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "record.h"
#include "results.h"
#include "util.h"

/* A record's identity: its whole text with sorted keys (the id names the
 * configuration and sizes; the rest tells two measurements of it apart). */
static char *identity(json_t *rec) {
    return json_dumps(rec, JSON_COMPACT | JSON_SORT_KEYS);
}

/* The device key and space of a file's first record, which every record of
 * every file must share. */
static bool same_origin(const char *path, json_t *records, char key[160], char *space,
                        size_t space_len) {
    json_t *rec;
    size_t i;
    json_array_foreach(records, i, rec) {
        device_info d;
        char k[160];
        record_device(rec, &d);
        device_key(&d, k);
        const char *sp = json_string_value(json_object_get(rec, "space"));
        if (!*key) {
            snprintf(key, 160, "%s", k);
            snprintf(space, space_len, "%s", sp);
        } else if (strcmp(k, key) || strcmp(sp, space)) {
            msg_error("%s: a record of %s/%s among records of %s/%s: merge joins the results of "
                      "one device key and one space (merge each kind of card separately); "
                      "nothing was written",
                      path, k, sp, key, space);
            return false;
        }
    }
    return true;
}

/* Every file loaded and checked before anything is written. */
static json_t *load_all(const options *o, char key[160], char *space, size_t space_len) {
    json_t *all = json_array();
    for (int f = 0; f < o->n_files; f++) {
        const char *path = o->files[f];
        char *err = NULL;
        int dropped = 0;
        json_t *recs = access(path, R_OK) == 0 ? results_load(path, NULL, &dropped, &err) : NULL;
        if (!recs) {
            if (err)
                msg_error("%s", err);
            else
                msg_error("cannot read %s: %s", path, strerror(errno));
            free(err);
            json_decref(all);
            return NULL;
        }
        if (dropped)
            fprintf(stderr, "bartune: %s: a torn last line (a killed writer) is left out\n", path);
        if (!same_origin(path, recs, key, space, space_len)) {
            json_decref(recs);
            json_decref(all);
            return NULL;
        }
        json_array_extend(all, recs);
        json_decref(recs);
    }
    return all;
}

int cmd_merge(const options *o) {
    char key[160] = "", space[128] = "";
    json_t *incoming = load_all(o, key, space, sizeof space);
    if (!incoming) return EXIT_INPUT;
    if (!*key) {
        fprintf(stderr, "bartune: no records in the files given: nothing to merge\n");
        json_decref(incoming);
        return EXIT_OK;
    }
    char *dir = path_join(o->results, key), *err = NULL;
    results_store store;
    int rc = EXIT_OK;
    if (!results_open(&store, dir, space, key, &err)) {
        msg_error("%s", err);
        free(err);
        rc = EXIT_INPUT;
    } else {
        json_t *seen = json_object(), *rec;
        size_t i;
        json_array_foreach(store.records, i, rec) {
            char *id = identity(rec);
            json_object_set_new(seen, id, json_true());
            free(id);
        }
        int added = 0, had = 0;
        json_array_foreach(incoming, i, rec) {
            char *id = identity(rec);
            if (json_object_get(seen, id)) {
                had++;
            } else if (results_append(&store, rec, &err)) {
                json_object_set_new(seen, id, json_true());
                added++;
            } else {
                msg_error("%s (%d records merged before it; merging again adds the rest)", err,
                          added);
                free(err);
                free(id);
                rc = EXIT_FAILURE_;
                break;
            }
            free(id);
        }
        if (rc == EXIT_OK)
            fprintf(stderr, "bartune: %d records added to %s, %d already there\n", added,
                    store.path, had);
        json_decref(seen);
        results_close(&store);
    }
    free(dir);
    json_decref(incoming);
    return rc;
}
