#!/usr/bin/env bash
# Two bartune processes on one results folder: the second waits for the
# first's lock (and says so), then finds everything recorded; no record is
# torn or doubled. Uses the fake runner: no GPU needed.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'pkill -9 -P $$ 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$root"
. "$root/tests/results_check.sh"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
args="--size n=1000 --runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c"
"$bartune" compile gen/pipeline.lua $sel --cache "$tmp/c" >/dev/null 2>&1
FAKE_RUNNER_DELAY=0.3 "$bartune" run gen/pipeline.lua $args $sel >/dev/null 2>"$tmp/err1" &
first=$!
sleep 1.5
"$bartune" run gen/pipeline.lua $args $sel >/dev/null 2>"$tmp/err2" || { cat "$tmp/err2"; exit 1; }
wait "$first" || { echo "first run failed"; cat "$tmp/err1"; exit 1; }
grep -q "waiting for .*another bartune (pid $first) is tuning into the same results" "$tmp/err2" ||
    { echo "the second run did not say what it waits for"; cat "$tmp/err2"; exit 1; }
grep -q "0 measured, 12 already recorded" "$tmp/err2" || { echo "second run measured again"; cat "$tmp/err2"; exit 1; }
n=$(records_ok "$tmp"/r/*/pipeline.jsonl) || exit 1
[ "$n" = 12 ] || { echo "expected 12 records, found $n"; exit 1; }
echo ok
