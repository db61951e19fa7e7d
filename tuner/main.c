/* bartune: tunes producer/consumer CUDA kernels for the GPU it runs on. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "proc.h"
#include "results.h"
#include "space.h"
#include "util.h"

static const char usage_text[] =
    "usage: bartune <command> [options] [space.lua] [name=value ...]\n"
    "\n"
    "Tunes the kernels a Lua search space declares for the GPU of this machine.\n"
    "\n"
    "commands:\n"
    "  run SPACE [k=v...]      compile, verify and time every variant on this GPU;\n"
    "                          record results/<device>/<space>.jsonl and emit the best\n"
    "                          as kernels/<device>/<space>.cuh (+ kernels/<space>.cuh)\n"
    "  list SPACE [k=v...]     print the variants that survive the constraints\n"
    "  render SPACE k=v...     print the CUDA source of one variant\n"
    "  compile SPACE [k=v...]  compile every variant with nvcc (no GPU needed)\n"
    "  check SPACE             two variants in one header and the CPU reference, on CPU\n"
    "  new DIR                 a working skeleton of your own problem and space\n"
    "  emit SPACE              write the headers again from recorded results\n"
    "  show SPACE              print the recorded results of this GPU, best first\n"
    "  bench SPACE             time the recorded best beside the baselines and the floor\n"
    "  devices                 print the GPUs the runner sees\n"
    "  replay SPACE --records FILE  a search strategy against recorded results (no GPU)\n"
    "  report SPACE            results/<device>/report.svg and .png (gnuplot)\n"
    "  merge FILE.jsonl...     join results of one device from several hosts or shards\n"
    "  seal                    move recorded results into results/<device>/<space>.jsonl.gz\n"
    "\n"
    "Run 'bartune <command> --help' for the options of a command.\n";

struct command {
    const char *name;
    int (*fn)(const options *);
    bool needs_space;
    const char *help;
    bool takes_files; /* positionals are files (merge) */
};

static const struct command commands[] = {
    {"run", cmd_run, true,
     "usage: bartune run SPACE [k=v...] [options]\n"
     "Compiles every variant (cached), then on this GPU verifies each against the CPU\n"
     "reference and times it, for every launch-time value. Records each measurement in\n"
     "results/<device>/<space>.jsonl (skipping what is recorded for this device unless\n"
     "--retime) and emits the fastest verified variant as a header.\n"
     "  k=v             keep only variants with parameter k = v\n"
     "  -j, --jobs N    nvcc processes at once (default: one per core)\n"
     "  --size K=V      tune at this size (repeat for each size of the problem;\n"
     "                  default: the problem's tune list)\n"
     "  --tuple 'K=V K=V ...'  tune at this size tuple (repeat for several, in one\n"
     "                  run: one expansion of the space; instead of --size)\n"
     "  --seed N        seed of the generated inputs (default 1)\n"
     "  --reps N        timed launches per variant (default 20, at least 10)\n"
     "  --rank energy   rank variants by the energy a call (joules, NVML) in sustained\n"
     "                  launches, not by time (also emit's, show's, bench's); each\n"
     "                  measure then calls the variant back to back for --sustain S\n"
     "                  seconds (default 1; --sustain alone records those figures too)\n"
     "  --timeout S     seconds the first launch of a variant may take (default 10);\n"
     "                  later launches get a limit scaled from its time\n"
     "  --compile-timeout S  seconds one nvcc may take (default 120)\n"
     "  --retime        measure again what is already recorded\n"
     "  --gpus all|0,2,3  measure on these GPUs at once (default: GPU 0); identical cards\n"
     "                  share one results file, other kinds are tuned each for itself\n"
     "  --shard I/N     measure the I-th of N parts of the space (split by compiled\n"
     "                  variant; join the parts' results with 'bartune merge')\n"
     "  --reject F      a variant whose first timed launch is over F x the best so far\n"
     "                  is recorded on that one launch (default 3; 0: time every one fully)\n"
     "  --retry S,S...  measure again what is recorded with these statuses (e.g. crash,hang)\n"
     "  --strategy NAME search with gen/lib/strategies/NAME.lua (exhaustive, random, ils,\n"
     "                  ga) instead of measuring everything; --budget N measured\n"
     "                  configurations or a time (10m) for each size tuple (the\n"
     "                  inputs and CPU reference not counted); --seed makes it repeatable;\n"
     "                  it starts from the fastest of this device's other size tuples\n"
     "  --warm-from D   with --strategy: also from the records of device D (a folder of\n"
     "                  the results folder, e.g. nvidia-h100-sm90), or of 'all' others,\n"
     "                  theirs at the same size tuple first; 'none': a cold start\n"
     "  --sanitize      before emitting, run the best few under compute-sanitizer\n"
     "                  (memcheck, racecheck, synccheck); a flagged variant is not emitted\n"
     "  --script-timeout S  seconds one call into a Lua script may take (default 60)\n"
     "  --reference-timeout S  seconds the inputs and CPU reference of one size tuple\n"
     "                  may take (default 600)\n"
     "  --no-emit       record results only\n"
     "  --results DIR, --kernels DIR, --cache DIR, --root DIR, --templates DIR\n"
     "                  where things live\n"
     "  --nvcc PATH, --runner PATH   the compiler and the runner to use\n",
     false},
    {"list", cmd_list, true,
     "usage: bartune list SPACE [k=v...] [--arch sm_XY]\n"
     "Prints every compile-time variant that survives the constraints, one per line,\n"
     "then the count. Without --arch the limits of sm_90 are assumed.\n",
     false},
    {"render", cmd_render, true,
     "usage: bartune render SPACE k=v... [--arch sm_XY]\n"
     "Prints the CUDA source of the variant the k=v values select (the first one, with a\n"
     "note on stderr, if several match).\n",
     false},
    {"compile", cmd_compile, true,
     "usage: bartune compile SPACE [k=v...] [--arch sm_XY] [-j N] [--cache DIR]\n"
     "Compiles every variant to a cubin with nvcc, N at a time, through the cache, and\n"
     "prints each one's registers, shared memory and spills.\n",
     false},
    {"check", cmd_check, true,
     "usage: bartune check SPACE [k=v...] [--arch sm_XY] [--size K=V...]\n"
     "What can go wrong before a GPU run, found on this machine: the first and last\n"
     "variants compile together as one header holds them (a template that does not wrap\n"
     "its code in namespace $(ns) fails here), and the problem's CPU reference builds\n"
     "and runs at the cheapest size tuple (of the tune list, or --size). No GPU needed.\n",
     false},
    {"new", cmd_new, true,
     "usage: bartune new DIR\n"
     "Writes a working skeleton of a problem and space of your own into the new folder\n"
     "DIR, named after it: DIR/NAME.lua, problems/, templates/ (a producer/consumer ring\n"
     "over bartune's barrier protocols), the CPU reference and check.cu, a program that\n"
     "calls the emitted header. It lists, checks and runs as it is.\n",
     false},
    {"emit", cmd_emit, true,
     "usage: bartune emit SPACE [--records FILE] [--results DIR] [--kernels DIR]\n"
     "                   [--rank energy]\n"
     "Writes kernels/<device>/<space>.cuh for every device with recorded results (or for\n"
     "the device of FILE) and kernels/<space>.cuh, which picks the right one at run time\n"
     "(the fastest verified variant per size tuple; --rank energy: the one of least\n"
     "energy a call, among those run --rank energy measured).\n",
     false},
    {"show", cmd_show, true,
     "usage: bartune show SPACE [--records FILE] [--results DIR] [--size K=V...] [--rank energy]\n"
     "Prints the recorded measurements, fastest first (or least energy first), per device,\n"
     "at every size tuple recorded or those --size picks, and each other device's best\n"
     "there that this device never measured (run --warm-from measures it first).\n",
     false},
    {"bench", cmd_bench, true,
     "usage: bartune bench SPACE [--size K=V... | --tuple 'K=V ...'...] [--reps N] [--sustain S] "
     "[--rank energy]\n"
     "                    [--gate] [--results DIR]\n"
     "Measures the card's ceilings (a copy kernel, cudaMemcpy device-to-device, an FMA\n"
     "peak kernel) and the floor they give the space's problem, then times the recorded\n"
     "best variant and each baseline again, side by side in one run; the best and the\n"
     "problem's host baselines also called back to back for S seconds (default 3; 0:\n"
     "not): time and energy per call at the card's power cap (energy: through NVML).\n"
     "--gate queues each timed launch behind a kernel that holds the stream until the\n"
     "launch is queued: its events then time the GPU alone, not the host's launch path\n"
     "(a library's host code, or a small kernel's launch call, where the GPU waits on it).\n",
     false},
    {"merge", cmd_merge, false,
     "usage: bartune merge FILE.jsonl... [--results DIR]\n"
     "Joins results files of one device key and space (the shards of a cluster job, or\n"
     "other hosts with the same card) into DIR/<device>/<space>.jsonl (default results/),\n"
     "each measurement once: merging again adds nothing. Files of another device key or\n"
     "space are refused before anything is written. Then 'bartune emit' as usual.\n",
     true},
    {"seal", cmd_seal, false,
     "usage: bartune seal [--results DIR]\n"
     "Moves the records of every DIR/<device>/<space>.jsonl (default results/) into its\n"
     "sealed history <space>.jsonl.gz, which every command reads before the plain file\n"
     "that runs append to: the same records, in git a fifteenth of the size. Each file\n"
     "under its lock; the new history is read back and compared before it replaces the\n"
     "old one, so a failure leaves the records where they were.\n",
     false},
    {"devices", cmd_devices, false, "usage: bartune devices\nPrints the GPUs the runner sees.\n",
     false},
    {"report", cmd_report, true,
     "usage: bartune report SPACE [--results DIR | --records FILE]\n"
     "Draws, with gnuplot, results/<device>/report.svg and .png for every device with results\n"
     "(or beside FILE): the time of every verified variant by kind with the baselines, and\n"
     "the best found against measured configurations for each shipped strategy (replayed).\n",
     false},
    {"replay", cmd_replay, true,
     "usage: bartune replay SPACE --records FILE [--strategy NAME] [--seeds N] [--budget N]\n"
     "                      [--size K=V...] [--warm-from FILE] [--recorded]\n"
     "Runs a search strategy (gen/lib/strategies/NAME.lua, default ils) against recorded\n"
     "results with no GPU, for seeds 1..N (default 30), and prints how many measured\n"
     "configurations it needed to come within 1, 2 and 5% of the recorded best, and its\n"
     "best after 50, 100, 200 and 500 (budget default 500). Each size tuple of the records\n"
     "is a landscape of its own: each is replayed in turn, or those --size picks.\n"
     "--warm-from FILE: the strategy is told the landscapes of FILE (records of other size\n"
     "tuples or devices; the one being replayed left out when FILE is the --records file),\n"
     "best configurations first (space.elsewhere), and starts from them.\n"
     "--recorded: the space as the records hold it: only the candidates with a record at\n"
     "the landscape (a complete landscape recorded before the space grew; without it an\n"
     "unrecorded candidate counts as a measurement that failed).\n",
     false},
};

static const struct command *find_command(const char *name) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

/* "all", or distinct numbers 0..63 separated by commas. */
static bool parse_gpus(const char *s) {
    if (!strcmp(s, "all")) return true;
    bool seen[64] = {false};
    for (const char *p = s;;) {
        char *end;
        if (*p < '0' || *p > '9') return false;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (errno || v > 63 || seen[v]) return false;
        seen[v] = true;
        if (*end == '\0') return true;
        if (*end != ',') return false;
        p = end + 1;
    }
}

/* A decimal of 1 to 4 digits at *p (no sign, no wrap: 4294967297 is not
 * 1), moving *p past it; -1 if there is none. */
static int small_decimal(const char **p) {
    int v = 0, digits = 0;
    for (; **p >= '0' && **p <= '9'; (*p)++) {
        if (++digits > 4) return -1;
        v = v * 10 + (**p - '0');
    }
    return digits ? v : -1;
}

static bool parse_shard(const char *s, options *o) {
    const char *p = s;
    int i = small_decimal(&p);
    if (i < 0 || *p++ != '/') return false;
    int n = small_decimal(&p);
    if (n < 1 || *p || n > 4096 || i >= n) return false;
    o->shard_index = i;
    o->shard_count = n;
    return true;
}

static int usage_error(const char *cmd, const char *fmt, const char *arg) {
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'bartune %s--help'.\n", cmd ? cmd : "");
    return EXIT_USAGE;
}

/* Plain decimal text: an optional '-', digits, with `fraction` a '.' and
 * digits and an exponent too; no '+', space, hex, inf or nan (strtod takes
 * all of them: --budget 0x10m read as 16 minutes). */
static bool plain_decimal(const char *s, bool fraction) {
    const char *p = s + (*s == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (fraction && *p == '.') {
        size_t more = strspn(p + 1, "0123456789");
        digits += more;
        p += 1 + more;
    }
    if (!digits) return false;
    if (fraction && (*p == 'e' || *p == 'E')) {
        p++;
        if (*p == '-' || *p == '+') p++;
        size_t e = strspn(p, "0123456789");
        if (!e) return false;
        p += e;
    }
    return *p == '\0';
}

/* Strict numbers: all of the text, plain decimal, finite, within [lo, hi]. */
static bool parse_number(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    if (!plain_decimal(s, true)) return false;
    double v = strtod(s, &end);
    if (*end || end == s || errno || !isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_integer(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    errno = 0;
    if (!plain_decimal(s, false)) return false;
    long long v = strtoll(s, &end, 10);
    if (*end || end == s || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

/* --budget: measured configurations ("200") or a time ("90s", "10m", "2h"). */
static bool parse_budget(const char *s, options *o) {
    long long iv;
    if (parse_integer(s, 1, 10000000, &iv)) {
        o->budget = (int)iv;
        return true;
    }
    size_t n = strlen(s);
    if (n < 2 || !strchr("smh", s[n - 1])) return false;
    char num[32];
    if (n - 1 >= sizeof num) return false;
    memcpy(num, s, n - 1);
    num[n - 1] = '\0';
    double v;
    if (!parse_number(num, 1, 1e7, &v)) return false;
    o->budget_seconds = v * (s[n - 1] == 'h' ? 3600 : s[n - 1] == 'm' ? 60 : 1);
    return true;
}

/* --retry a,b: lower-case status names. */
static bool parse_statuses(const char *s) {
    return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz_,") == strlen(s);
}

/* --size K=V: K an identifier, V an integer >= 0. */
static bool parse_size(const char *s, struct size_override *out) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) > 64) return false;
    for (const char *p = s; p < eq; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_') || (p == s && isdigit((unsigned char)*p)))
            return false;
    if (!parse_integer(eq + 1, 0, (1LL << 62), &out->value)) return false;
    out->name = strndup(s, (size_t)(eq - s));
    return true;
}

/* The first of sizes[0..n) with the name of sizes[n], or NULL. */
static const struct size_override *named_before(const struct size_override *sizes, int n) {
    for (int k = 0; k < n; k++)
        if (!strcmp(sizes[k].name, sizes[n].name)) return &sizes[k];
    return NULL;
}

static void free_sizes(struct size_override *sizes, int n) {
    for (int k = 0; k < n; k++)
        free(sizes[k].name);
    free(sizes);
}

/* --tuple 'K=V K=V ...': sizes as --size takes them, apart by spaces, each
 * name once. */
static bool parse_tuple(const char *s, struct size_tuple *out) {
    char *copy = xstrdup(s), *save = NULL;
    out->sizes = xmalloc(sizeof *out->sizes * (strlen(s) / 2 + 1));
    out->n = 0;
    bool ok = true;
    for (char *w = strtok_r(copy, " ", &save); w && ok; w = strtok_r(NULL, " ", &save)) {
        ok = parse_size(w, &out->sizes[out->n]);
        if (ok && named_before(out->sizes, out->n)) {
            free(out->sizes[out->n].name);
            ok = false;
        }
        if (ok) out->n++;
    }
    free(copy);
    if (ok && out->n) return true;
    free_sizes(out->sizes, out->n);
    out->sizes = NULL, out->n = 0;
    return false;
}

/* Fills `o` from the command line. Returns -1 to go on, or the exit code
 * (after printing the usage error or the help). */
static int parse_options(int argc, char **argv, const struct command *cmd, options *o) {
    enum {
        O_SIZE = 256,
        O_TUPLE,
        O_SEED,
        O_STIMEOUT,
        O_RTIMEOUT,
        O_STRATEGY,
        O_SEEDS,
        O_BUDGET,
        O_SANITIZE,
        O_RETRY,
        O_REPS,
        O_SUSTAIN,
        O_GATE,
        O_RANK,
        O_TIMEOUT,
        O_CTIMEOUT,
        O_RETIME,
        O_REJECT,
        O_GPUS,
        O_SHARD,
        O_NOEMIT,
        O_RESULTS,
        O_KERNELS,
        O_CACHE,
        O_ROOT,
        O_ARCH,
        O_RECORDS,
        O_WARM_FROM,
        O_RECORDED,
        O_NVCC,
        O_RUNNER,
        O_TEMPLATES
    };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"jobs", required_argument, NULL, 'j'},
        {"size", required_argument, NULL, O_SIZE},
        {"tuple", required_argument, NULL, O_TUPLE},
        {"seed", required_argument, NULL, O_SEED},
        {"script-timeout", required_argument, NULL, O_STIMEOUT},
        {"reference-timeout", required_argument, NULL, O_RTIMEOUT},
        {"strategy", required_argument, NULL, O_STRATEGY},
        {"seeds", required_argument, NULL, O_SEEDS},
        {"budget", required_argument, NULL, O_BUDGET},
        {"sanitize", no_argument, NULL, O_SANITIZE},
        {"retry", required_argument, NULL, O_RETRY},
        {"reps", required_argument, NULL, O_REPS},
        {"sustain", required_argument, NULL, O_SUSTAIN},
        {"gate", no_argument, NULL, O_GATE},
        {"rank", required_argument, NULL, O_RANK},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"compile-timeout", required_argument, NULL, O_CTIMEOUT},
        {"retime", no_argument, NULL, O_RETIME},
        {"reject", required_argument, NULL, O_REJECT},
        {"gpus", required_argument, NULL, O_GPUS},
        {"shard", required_argument, NULL, O_SHARD},
        {"no-emit", no_argument, NULL, O_NOEMIT},
        {"results", required_argument, NULL, O_RESULTS},
        {"kernels", required_argument, NULL, O_KERNELS},
        {"cache", required_argument, NULL, O_CACHE},
        {"root", required_argument, NULL, O_ROOT},
        {"arch", required_argument, NULL, O_ARCH},
        {"records", required_argument, NULL, O_RECORDS},
        {"warm-from", required_argument, NULL, O_WARM_FROM},
        {"recorded", no_argument, NULL, O_RECORDED},
        {"nvcc", required_argument, NULL, O_NVCC},
        {"runner", required_argument, NULL, O_RUNNER},
        {"templates", required_argument, NULL, O_TEMPLATES},
        {NULL, 0, NULL, 0}};
    char cmdspace[64];
    snprintf(cmdspace, sizeof cmdspace, "%s ", cmd->name);
    optind = 2;
    int c;
    double v;
    long long iv;
    while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(cmd->help, stdout);
            return EXIT_OK;
        case 'j':
            if (!parse_integer(optarg, 1, 1024, &iv))
                return usage_error(cmdspace, "-j needs a count in 1..1024, got '%s'", optarg);
            o->jobs = (int)iv;
            break;
        case O_SIZE:
            if (!parse_size(optarg, &o->sizes[o->n_sizes]))
                return usage_error(cmdspace, "--size needs NAME=INTEGER (0..2^62), got '%s'",
                                   optarg);
            const struct size_override *twice = named_before(o->sizes, o->n_sizes);
            if (twice) {
                free(o->sizes[o->n_sizes].name);
                return usage_error(cmdspace, "--size %s is given twice: give each size once",
                                   twice->name);
            }
            o->n_sizes++;
            break;
        case O_TUPLE:
            if (!parse_tuple(optarg, &o->tuples[o->n_tuples]))
                return usage_error(cmdspace,
                                   "--tuple needs sizes NAME=INTEGER (0..2^62) apart by spaces, "
                                   "each name once, e.g. --tuple 'M=4096 N=4096 K=256'; got '%s'",
                                   optarg);
            o->n_tuples++;
            break;
        case O_SEED:
            if (!parse_integer(optarg, 0, 0x7fffffffffffffffLL, &iv))
                return usage_error(cmdspace, "--seed needs an integer >= 0, got '%s'", optarg);
            o->seed = (unsigned long long)iv;
            break;
        case O_STRATEGY:
            o->strategy = optarg;
            break;
        case O_SEEDS:
            if (!parse_integer(optarg, 1, 1000, &iv))
                return usage_error(cmdspace, "--seeds needs a count in 1..1000, got '%s'", optarg);
            o->seeds = (int)iv;
            break;
        case O_BUDGET:
            if (!parse_budget(optarg, o))
                return usage_error(
                    cmdspace,
                    "--budget needs a count >= 1 or a time such as 90s, 10m, 2h, got '%s'", optarg);
            break;
        case O_SANITIZE:
            o->sanitize = true;
            break;
        case O_STIMEOUT:
            if (!parse_number(optarg, 0.1, 86400, &v))
                return usage_error(
                    cmdspace, "--script-timeout needs seconds in 0.1..86400, got '%s'", optarg);
            space_seconds_limit = v;
            break;
        case O_RTIMEOUT:
            if (!parse_number(optarg, 1, 86400, &v))
                return usage_error(
                    cmdspace, "--reference-timeout needs seconds in 1..86400, got '%s'", optarg);
            o->reference_timeout = v;
            break;
        case O_RETRY:
            if (!parse_statuses(optarg))
                return usage_error(cmdspace, "--retry needs statuses such as crash,hang, got '%s'",
                                   optarg);
            o->retry = optarg;
            break;
        case O_REPS:
            if (!parse_integer(optarg, 10, 100000, &iv))
                return usage_error(cmdspace, "--reps needs a count in 10..100000, got '%s'",
                                   optarg);
            o->reps = (int)iv;
            break;
        case O_RANK:
            if (strcmp(optarg, "time") && strcmp(optarg, "energy"))
                return usage_error(cmdspace, "--rank is time or energy, not '%s'", optarg);
            o->rank_energy = !strcmp(optarg, "energy");
            break;
        case O_SUSTAIN:
            if (!parse_number(optarg, 0, 600, &v))
                return usage_error(cmdspace, "--sustain needs seconds in 0..600, got '%s'", optarg);
            o->sustain_s = v;
            break;
        case O_GATE:
            o->gate = true;
            break;
        case O_TIMEOUT:
            if (!parse_number(optarg, 0.1, 86400, &v))
                return usage_error(cmdspace, "--timeout needs seconds in 0.1..86400, got '%s'",
                                   optarg);
            o->timeout = v;
            break;
        case O_CTIMEOUT:
            if (!parse_number(optarg, 0.1, 86400, &v))
                return usage_error(
                    cmdspace, "--compile-timeout needs seconds in 0.1..86400, got '%s'", optarg);
            o->compile_timeout = v;
            break;
        case O_RETIME:
            o->retime = true;
            break;
        case O_GPUS:
            if (!parse_gpus(optarg))
                return usage_error(
                    cmdspace, "--gpus needs 'all' or distinct GPU numbers such as 0,2,3, got '%s'",
                    optarg);
            o->gpus = optarg;
            break;
        case O_SHARD:
            if (!parse_shard(optarg, o))
                return usage_error(cmdspace, "--shard needs I/N with 0 <= I < N <= 4096, got '%s'",
                                   optarg);
            break;
        case O_REJECT:
            if (!parse_number(optarg, 0, 1e6, &v) || (v > 0 && v < 1.1))
                return usage_error(cmdspace, "--reject needs 0 (off) or a factor >= 1.1, got '%s'",
                                   optarg);
            o->reject = v;
            break;
        case O_NOEMIT:
            o->no_emit = true;
            break;
        case O_RESULTS:
            o->results = optarg;
            break;
        case O_KERNELS:
            o->kernels = optarg;
            break;
        case O_CACHE:
            o->cache = optarg;
            break;
        case O_ROOT:
            o->root = optarg;
            break;
        case O_ARCH:
            o->arch = optarg;
            break;
        case O_RECORDS:
            o->records = optarg;
            break;
        case O_WARM_FROM:
            o->warm_from = optarg;
            break;
        case O_RECORDED:
            o->recorded = true;
            break;
        case O_NVCC:
            o->nvcc = optarg;
            break;
        case O_RUNNER:
            o->runner = optarg;
            break;
        case O_TEMPLATES:
            o->templates = optarg;
            break;
        default:
            return usage_error(cmdspace, "%s", "bad option");
        }
    }
    /* Positionals: the space, then k=v overrides. */
    char **over = o->overrides;
    for (int i = optind; i < argc; i++) {
        const char *a = argv[i];
        if (cmd->takes_files) {
            o->files[o->n_files++] = argv[i];
        } else if (strchr(a, '=') && a[0] != '=') {
            over[o->n_overrides++] = argv[i];
        } else if (!o->space_path && cmd->needs_space) {
            o->space_path = a;
        } else {
            return usage_error(cmdspace, "unexpected argument '%s' (overrides are name=value)", a);
        }
    }
    if (o->n_tuples && strcmp(cmd->name, "bench") && strcmp(cmd->name, "run"))
        return usage_error(cmdspace, "%s", "--tuple is run's and bench's (elsewhere: --size)");
    if (o->n_tuples && o->n_sizes)
        return usage_error(cmdspace, "%s",
                           "--tuple and --size both give the sizes: use one or the other");
    if (o->sustain_s >= 0 && strcmp(cmd->name, "bench") && strcmp(cmd->name, "run"))
        return usage_error(cmdspace, "%s", "--sustain is bench's and run's");
    if (o->gate && strcmp(cmd->name, "bench"))
        return usage_error(cmdspace, "%s",
                           "--gate is bench's (records are timed without it: a gated time "
                           "beside them would not compare)");
    if (o->rank_energy && strcmp(cmd->name, "run") && strcmp(cmd->name, "emit") &&
        strcmp(cmd->name, "show") && strcmp(cmd->name, "bench"))
        return usage_error(cmdspace, "%s", "--rank is run's, emit's, show's and bench's");
    if (o->rank_energy && !strcmp(cmd->name, "run") && o->sustain_s == 0)
        return usage_error(cmdspace, "%s",
                           "--rank energy measures energy in sustained launches: --sustain 0 "
                           "leaves none");
    if (o->rank_energy) results_rank_by("joules");
    if (o->recorded && strcmp(cmd->name, "replay"))
        return usage_error(cmdspace, "%s", "--recorded is replay's");
    if (o->warm_from && strcmp(cmd->name, "replay") && strcmp(cmd->name, "run"))
        return usage_error(cmdspace, "%s", "--warm-from is run's (with --strategy) and replay's");
    if (o->warm_from && !strcmp(cmd->name, "run") && !o->strategy)
        return usage_error(cmdspace, "%s",
                           "--warm-from tells a search where to start: give --strategy too");
    if (o->warm_from && !strcmp(cmd->name, "run") &&
        (!o->warm_from[0] || strchr(o->warm_from, '/') || o->warm_from[0] == '.'))
        return usage_error(cmdspace,
                           "run --warm-from takes a device key (a folder of the results folder), "
                           "'all' or 'none', not '%s'",
                           o->warm_from);
    if (o->shard_count > 1 && o->strategy)
        return usage_error(cmdspace, "%s",
                           "--shard splits the whole space; a --strategy searches one space: "
                           "use one or the other");
    if (cmd->takes_files && !o->n_files)
        return usage_error(cmdspace, "%s",
                           "which results files? e.g. shard-*/fake-gpu-sm90/pipeline.jsonl");
    if (cmd->needs_space && !o->space_path)
        return usage_error(cmdspace, "%s",
                           strcmp(cmd->name, "new") ? "which space? e.g. gen/pipeline.lua"
                                                    : "which new folder? e.g. ~/my_softmax");
    return -1;
}

int main(int argc, char **argv) {
    /* whole lines: with stdout and stderr in one log (`>log 2>&1`), a table
     * row is never cut by a progress line, and each lands where it happened */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    const struct command *cmd = find_command(argv[1]);
    if (!cmd) return usage_error(NULL, "unknown command '%s'", argv[1]);

    char *here = self_dir();
    options o = {.command = cmd->name,
                 .root = BARTUNE_ROOT,
                 .nvcc = BARTUNE_NVCC,
                 .jobs = 0,
                 .reps = 20,
                 .sustain_s = -1,
                 .timeout = 10,
                 .reject = 3,
                 .compile_timeout = 120,
                 .reference_timeout = 600};
    char *runner = path_join(here, "bartune-runner");
    char *cache = path_join(here, "variants");
    o.runner = runner;
    o.cache = cache;

    o.seed = 1;
    o.seeds = 30;
    o.budget = 500;
    o.sizes = xmalloc(sizeof *o.sizes * (size_t)argc);
    o.tuples = xmalloc(sizeof *o.tuples * (size_t)argc);
    o.overrides = xmalloc(sizeof(char *) * (size_t)(argc + 1));
    o.files = xmalloc(sizeof(char *) * (size_t)(argc + 1));
    int rc = parse_options(argc, argv, cmd, &o);
    char *results = path_join(o.root, "results"), *kernels = path_join(o.root, "kernels");
    if (!o.results) o.results = results;
    if (!o.kernels) o.kernels = kernels;
    if (rc < 0) {
        proc_catch_signals();
        rc = cmd->fn(&o);
        if (proc_interrupted && rc != EXIT_OK) rc = EXIT_INTERRUPTED;
        proc_kill_all();
    }
    free(o.overrides);
    free(o.files);
    free_sizes(o.sizes, o.n_sizes);
    for (int t = 0; t < o.n_tuples; t++)
        free_sizes(o.tuples[t].sizes, o.tuples[t].n);
    free(o.tuples);
    free(results);
    free(kernels);
    free(runner);
    free(cache);
    free(here);
    return rc;
}
