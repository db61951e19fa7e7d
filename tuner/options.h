/* The command line, parsed once in main.c and read by every command. */
#ifndef BARTUNE_OPTIONS_H
#define BARTUNE_OPTIONS_H

#include <stdbool.h>

typedef struct {
    const char *command;
    const char *space_path;
    char **overrides; /* "k=v" */
    char **files;     /* merge: the results files */
    int n_files;
    int n_overrides;
    const char *root;      /* holds gen/lib and templates/ */
    const char *templates; /* templates folder; NULL: root/templates */
    const char *results;   /* results folder */
    const char *kernels;   /* kernels folder */
    const char *cache;     /* compiled variants */
    const char *arch;      /* list/render/compile without a GPU: "sm_90" */
    const char *runner;    /* path of bartune-runner */
    const char *nvcc;
    const char *records;   /* emit: a results file to read instead of results/<key>/ */
    const char *warm_from; /* replay: records whose other landscapes the strategy starts from;
                              run --strategy: a device key, "all" or "none" */
    bool recorded;         /* replay --recorded: only the candidates a landscape's records hold */
    struct size_override {
        char *name;
        long long value;
    } * sizes; /* --size k=v: one size tuple instead of the problem's list */
    int n_sizes;
    struct size_tuple {
        struct size_override *sizes;
        int n;
    } * tuples; /* --tuple 'k=v k=v ...' (run, bench): these size tuples instead of the list */
    int n_tuples;
    unsigned long long seed; /* inputs of the problem */
    int jobs;
    int reps;
    double sustain_s; /* bench, run --sustain: seconds of back-to-back calls (0: none; < 0: not
                         given) */
    bool rank_energy; /* --rank energy: records ranked by joules a call, not time */
    bool gate;        /* bench --gate: each timed launch behind a gate kernel (GPU time alone) */
    double timeout;   /* seconds for a first launch; later ones scale from it */
    double compile_timeout;
    double reference_timeout;     /* seconds a problem's setup (inputs, CPU reference) may take */
    const char *strategy;         /* replay: a strategy name or file */
    int seeds, budget;            /* replay and run --strategy: seeds; measured configurations */
    double budget_seconds;        /* run --strategy --budget 10m */
    const char *gpus;             /* run: "all" or "0,2,3"; NULL: GPU 0 */
    int shard_index, shard_count; /* run --shard I/N; count 0: no shards */
    double reject;                /* run: early rejection factor over the best so far; 0: off */
    bool retime;
    bool sanitize;     /* run: compute-sanitizer on the best few */
    const char *retry; /* "crash,hang": statuses measured again */
    bool no_emit;
} options;

#endif
