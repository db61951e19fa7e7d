#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_CHILDREN = 256 };
static pid_t children[MAX_CHILDREN];
volatile int proc_interrupted;

static void track(pid_t pid) {
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (!children[i]) {
            children[i] = pid;
            return;
        }
}

static void untrack(pid_t pid) {
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid) children[i] = 0;
}

static pid_t start_in(char *const argv[], const char *dir, const int *fds, int n);

bool proc_pipe(int fds[2]) {
    if (pipe(fds) != 0) return false;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return true;
}

pid_t proc_start(char *const argv[], int in_fd, int out_fd, int err_fd) {
    int fds[3] = {in_fd, out_fd, err_fd};
    return start_in(argv, NULL, fds, 3);
}

pid_t proc_start_in(char *const argv[], const char *dir) {
    int fds[3] = {-1, -1, -1};
    return start_in(argv, dir, fds, 3);
}

/* The watchdog (the child bartune sees, leader of the child's process
 * group): it learns of bartune's death (PDEATHSIG, even after a SIGKILL of
 * bartune) and takes the whole group with it: nvcc's cicc and ptxas, or a
 * runner's kernel. Otherwise it waits for the program and exits as it did. */
static void on_parent_death(int sig) {
    (void)sig;
    killpg(0, SIGKILL);
    _exit(137);
}

static void watch(pid_t program) {
    int st;
    while (waitpid(program, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
    signal(WTERMSIG(st), SIG_DFL);
    kill(getpid(), WTERMSIG(st));
    _exit(128 + WTERMSIG(st));
}

/* In a new child: fd i becomes fds[i]. */
static void map_fds(const int *fds, int n) {
    enum { MAX_FDS = 8, HIGH = 64 };
    int high[MAX_FDS];
    /* Out of the way first, so that mapping one fd never clobbers another. */
    for (int i = 0; i < n && i < MAX_FDS; i++)
        high[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD_CLOEXEC, HIGH) : -1;
    for (int i = 0; i < n && i < MAX_FDS; i++) {
        if (high[i] >= 0)
            dup2(high[i], i);
        else if (i != 1 && i != 2) {
            int null = open("/dev/null", O_RDWR);
            if (null >= 0 && null != i) {
                dup2(null, i);
                close(null);
            }
        }
    }
}

pid_t proc_start_fds(char *const argv[], const int *fds, int n) {
    return start_in(argv, NULL, fds, n);
}

static pid_t start_in(char *const argv[], const char *dir, const int *fds, int n) {
    if (n > 8) return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGTERM, on_parent_death);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() == 1) on_parent_death(0); /* bartune died before prctl */
        pid_t program = fork();
        if (program < 0) _exit(127);
        if (program == 0) {
            signal(SIGTERM, SIG_DFL);
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* the watchdog gone: go too */
            map_fds(fds, n);
            if (dir && chdir(dir) != 0) {
                fprintf(stderr, "bartune: cannot enter %s: %s\n", dir, strerror(errno));
                _exit(127);
            }
            execvp(argv[0], argv);
            fprintf(stderr, "bartune: cannot start %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        /* The watchdog keeps no pipe end open: the program's EOF is its own. */
        for (int fd = 0; fd < 1024; fd++)
            if (fd != 2) close(fd);
        watch(program);
    }
    setpgid(pid, pid); /* also here: no race with a kill right after fork */
    track(pid);
    return pid;
}

bool proc_poll(pid_t pid, int *status) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) {
        untrack(pid);
        return true;
    }
    return false;
}

bool proc_wait(pid_t pid, int *status) {
    while (!proc_poll(pid, status)) {
        if (proc_interrupted) {
            proc_kill(pid);
            return false;
        }
        usleep(5000);
    }
    return true;
}

void proc_kill(pid_t pid) {
    if (pid <= 0) return;
    killpg(pid, SIGKILL);
    kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    untrack(pid);
}

void proc_kill_all(void) {
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i]) proc_kill(children[i]);
}

volatile sig_atomic_t proc_exit_on_signal;

static void on_signal(int sig) {
    (void)sig;
    proc_interrupted = 1;
    if (proc_exit_on_signal) { /* inside a script: nothing is half-written */
        static const char msg[] = "\nbartune: interrupted while a script ran\n";
        if (write(2, msg, sizeof msg - 1) < 0) {
        }
        _exit(130);
    }
}

void proc_catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: blocking reads return EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

const char *proc_describe(int status, char buf[64]) {
    if (WIFEXITED(status))
        snprintf(buf, 64, "exit code %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, 64, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, 64, "status %d", status);
    return buf;
}
