/* Finding a search strategy: gen/lib/strategies/<name>.lua, or a file. */
#ifndef BARTUNE_STRATEGY_H
#define BARTUNE_STRATEGY_H

#include "options.h"

/* The text of --strategy (default ils), and its chunk name ("@path") in
 * *chunkname. NULL after printing why not. */
char *strategy_load(const options *o, char **chunkname);

#endif
