/* Child processes in their own process groups, so that a timeout or Ctrl-C
 * kills a child with everything it started (nvcc starts cicc and ptxas). */
#ifndef BARTUNE_PROC_H
#define BARTUNE_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* Starts argv[0] (searched in PATH) with the given fds as its stdin, stdout
 * and stderr (-1: inherit). Returns the pid, or -1 with errno set. */
pid_t proc_start(char *const argv[], int in_fd, int out_fd, int err_fd);
/* The same with `n` fds: the child's fd i is fds[i] (-1: inherited for 1
 * and 2, /dev/null for others). Children die with bartune (PDEATHSIG). */
pid_t proc_start_fds(char *const argv[], const int *fds, int n);
/* proc_start with the standard fds inherited, run in folder `dir`. */
pid_t proc_start_in(char *const argv[], const char *dir);
/* A pipe no child inherits (proc_start maps the ends a child is given): a
 * child holding another's write end would keep it from ever seeing EOF. */
bool proc_pipe(int fds[2]);
/* Non-blocking: true when the child has ended; *status as from waitpid. */
bool proc_poll(pid_t pid, int *status);
/* Waits for the child; true with *status when it ended, false (the child
 * killed) when bartune is interrupted first: Ctrl-C never waits on a tool. */
bool proc_wait(pid_t pid, int *status);
/* Kills the child's whole process group and reaps it. */
void proc_kill(pid_t pid);
/* Kills every child still running (Ctrl-C, fatal errors). */
void proc_kill_all(void);
/* Set by SIGINT/SIGTERM once proc_catch_signals() has run. */
extern volatile int proc_interrupted;
/* Set while a Lua script runs (a long C call such as a string pattern can
 * hold the VM): SIGINT/SIGTERM then end bartune at once. */
#include <signal.h>
extern volatile sig_atomic_t proc_exit_on_signal;
void proc_catch_signals(void);
/* Describes a wait status for people: "exit code 2", "killed by signal 9". */
const char *proc_describe(int status, char buf[64]);

#endif
