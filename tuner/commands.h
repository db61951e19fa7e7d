/* The commands of the CLI, one function each. */
#ifndef BARTUNE_COMMANDS_H
#define BARTUNE_COMMANDS_H

#include "options.h"

int cmd_list(const options *o);
int cmd_render(const options *o);
int cmd_compile(const options *o);
int cmd_check(const options *o);
int cmd_new(const options *o);
int cmd_run(const options *o);
int cmd_emit(const options *o);
int cmd_show(const options *o);
int cmd_devices(const options *o);
int cmd_bench(const options *o);
int cmd_replay(const options *o);
int cmd_report(const options *o);
int cmd_merge(const options *o);
int cmd_seal(const options *o);

#endif
