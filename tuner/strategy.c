#include "strategy.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

char *strategy_load(const options *o, char **chunkname) {
    const char *name = o->strategy ? o->strategy : "ils";
    char *path = strchr(name, '/') ? xstrdup(name)
                                   : xasprintf("%s/gen/lib/strategies/%s.lua", o->root, name);
    char *text = read_file(path, NULL);
    if (!text)
        msg_error("no strategy '%s' (looked for %s); shipped: exhaustive, random, ils, ga", name,
                  path);
    *chunkname = xasprintf("@%s", path);
    free(path);
    return text;
}
