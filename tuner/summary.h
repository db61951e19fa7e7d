/* The tables run and show print: the fastest variants at a size tuple
 * beside the space's baselines, and the records counted by status. */
#ifndef BARTUNE_SUMMARY_H
#define BARTUNE_SUMMARY_H

#include <jansson.h>

#include "space.h"

void print_summary(space *s, json_t *records, json_t *sizes, const char *devname);
void count_statuses(json_t *records);

#endif
