#!/usr/bin/env bash
# Kills bartune run (SIGKILL) or its runner at random moments, KILLS times;
# after each kill the results file parses, nothing recorded is lost and no
# measurement is recorded twice; a last run completes every measurement. A
# run may end before its kill only by having measured everything (exit 0)
# or as its runner was killed; how many kills land depends on the machine's
# speed, so at least 5 must.
# Usage: kill_resume.sh BARTUNE ROOT RUNNER [KILLS] (RUNNER: fake_runner.sh
# in CI, the real bartune-runner on a GPU machine: exit 77 without a GPU).
set -u
bartune=$1 root=$2 runner=$3 kills=${4:-24}
tmp=$(mktemp -d)
trap 'pkill -9 -P $$ 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$root"
. "$root/tests/results_check.sh"
# Each run must outlast the kills: measurements of a few tenths of a second.
n=1000003
if [ "$(basename "$runner")" = bartune-runner ]; then
    "$bartune" devices >/dev/null 2>&1; [ $? = 4 ] && { echo "no GPU"; exit 77; }
    n=268435456
    args_extra="--reps 500"  # most of a second per measurement: runs outlast the kills
else
    export FAKE_RUNNER_DELAY=0.25
fi
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4"
# --reject 0: early rejection would end runs before the kills land
args="${args_extra:-} --reject 0 --size n=$n --runner $runner --results $tmp/r --kernels $tmp/k --cache $tmp/c"
# Compile first, so that kills land in measuring as well as compiling.
"$bartune" compile gen/pipeline.lua $sel --cache "$tmp/c" >/dev/null 2>&1
total=$("$bartune" list gen/pipeline.lua $sel | tail -1 | sed -n 's/.*, \([0-9]*\) launch configurations in all/\1/p')
before=0 killed_tuner=0 killed_runner=0 ended=0
for i in $(seq 1 "$kills"); do
    "$bartune" run gen/pipeline.lua $args $sel >/dev/null 2>"$tmp/err.$i" &
    pid=$!
    sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.2 + rand() * 1.5 }')"
    child=$(pgrep -P "$pid" -f "$(basename "$runner")" | head -1) runner_gone=0
    if [ $((RANDOM % 3)) = 0 ] && [ -n "$child" ]; then
        kill -9 "$child" 2>/dev/null && killed_runner=$((killed_runner + 1)) runner_gone=1
        sleep 0.3
    fi
    if kill -9 "$pid" 2>/dev/null; then
        killed_tuner=$((killed_tuner + 1))
        wait "$pid" 2>/dev/null
    else # it ended first: by measuring all that was left, or as its runner was killed
        wait "$pid"
        rc=$?
        ended=$((ended + 1))
        [ "$rc" = 0 ] || [ "$runner_gone" = 1 ] ||
            { echo "run $i ended by itself with exit $rc: $(tail -3 "$tmp/err.$i")"; exit 1; }
    fi
    file=$(ls "$tmp"/r/*/pipeline.jsonl 2>/dev/null | head -1)
    now=$(records_ok "${file:-/nonexistent}") ||
        { echo "after kill $i (its runner killed first: $runner_gone); its stderr: $(tail -3 "$tmp/err.$i")"; exit 1; }
    [ "$now" -ge "$before" ] || { echo "kill $i: records went from $before to $now"; exit 1; }
    before=$now
done
"$bartune" run gen/pipeline.lua $args $sel >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
file=$(ls "$tmp"/r/*/pipeline.jsonl)
final=$(records_ok "$file") || exit 1
[ "$final" = "$total" ] || { echo "expected $total records after the last run, found $final"; exit 1; }
[ "$killed_tuner" -ge 5 ] || { echo "only $killed_tuner kills landed: the runs were too short to test"; exit 1; }
echo "killed bartune $killed_tuner times and its runner $killed_runner times ($ended runs ended first, having measured everything); $final of $total measurements recorded once each"
