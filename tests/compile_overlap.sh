#!/usr/bin/env bash
# Compile while measuring (fake runner, no GPU): a cold run starts measuring
# before nvcc has written its last cubin, and still records every
# measurement. Asserted on the order of events (measure start times against
# cubin mtimes), not on wall-clock totals, so a loaded CI machine cannot
# fail it; the totals are printed for the reader. Two nvcc at a time (-j 2),
# so that on a machine of many cores the 12 cubins still land one after
# another rather than all in the same instant.
. "$(dirname "$0")/lib.sh" "$@"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"

# overlapped CACHE LOG: how many measures started before the last cubin was written
overlapped() {
    last=$(find "$1" -name '*.cubin' -printf '%T@\n' | sort -n | tail -1)
    [ -n "$last" ] || { echo 0; return; }
    awk -v last="$last" '$1 < last { n++ } END { print n + 0 }' "$2"
}

check() { # NAME RESULTS CACHE LOG SECONDS
    n=$(grep -c . "$2"/*/pipeline.jsonl)
    [ "$n" = 12 ] || { echo "$1: expected 12 records, got $n"; exit 1; }
    k=$(overlapped "$3" "$4")
    printf '%s: %.1f s, %s of 12 measures started while nvcc was still compiling\n' "$1" "$5" "$k"
    [ "$k" -ge 1 ] || { echo "$1: every measure waited for the last compile: no overlap"; exit 1; }
}

run() { # NAME RESULTS CACHE LOG [ARGS...]
    name=$1 res=$2 cache=$3 log=$4
    shift 4
    t0=$(date +%s.%N)
    FAKE_RUNNER_DELAY=0.4 FAKE_RUNNER_LOG=$log "$bartune" run gen/pipeline.lua $sel --size n=1000 -j 2 \
        --runner "$root/tests/fake_runner.sh" --results "$res" --kernels "$tmp/k" --cache "$cache" \
        --no-emit "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    check "$name" "$res" "$cache" "$log" "$(echo "$(date +%s.%N) - $t0" | bc)"
}

run exhaustive "$tmp/r" "$tmp/c1" "$tmp/m1"
# a strategy asks a batch ahead, so nvcc works on the next batch while the
# GPU measures this one
run "--strategy exhaustive" "$tmp/r2" "$tmp/c2" "$tmp/m2" --strategy exhaustive --budget 12
