#!/usr/bin/env bash
# Compile while measuring (fake runner, no GPU): a cold run of N variants
# takes clearly less than compiling them all and then measuring them all,
# and still records every measurement.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
t0=$(date +%s.%N)
"$bartune" compile gen/pipeline.lua $sel --cache "$tmp/c1" >/dev/null 2>&1
t1=$(date +%s.%N)
FAKE_RUNNER_DELAY=0.4 "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$root/tests/fake_runner.sh" \
    --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c2" --no-emit >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
t2=$(date +%s.%N)
n=$(grep -c . "$tmp"/r/*/pipeline.jsonl)
[ "$n" = 12 ] || { echo "expected 12 records, got $n"; exit 1; }
awk -v c="$(echo "$t1 - $t0" | bc)" -v r="$(echo "$t2 - $t1" | bc)" -v m="$(echo "12 * 0.4" | bc)" 'BEGIN {
    printf "compile alone %.1f s, measuring alone %.1f s, run %.1f s\n", c, m, r
    exit !(r < c + 0.5 * m) }' || { echo "the run did not overlap compiling and measuring"; exit 1; }
# the same with a strategy: it asks a batch ahead, so nvcc works on the next
# batch while the GPU measures this one
t3=$(date +%s.%N)
FAKE_RUNNER_DELAY=0.4 "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$root/tests/fake_runner.sh" \
    --strategy exhaustive --budget 12 --results "$tmp/r2" --kernels "$tmp/k" --cache "$tmp/c3" --no-emit \
    >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
t4=$(date +%s.%N)
n=$(grep -c . "$tmp"/r2/*/pipeline.jsonl)
[ "$n" = 12 ] || { echo "strategy run: expected 12 records, got $n"; exit 1; }
awk -v c="$(echo "$t1 - $t0" | bc)" -v r="$(echo "$t4 - $t3" | bc)" -v m="$(echo "12 * 0.4" | bc)" 'BEGIN {
    printf "with --strategy: run %.1f s\n", r
    exit !(r < c + 0.75 * m) }' || { echo "the strategy run did not overlap compiling and measuring"; exit 1; }
