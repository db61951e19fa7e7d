#!/usr/bin/env bash
# Children of bartune end with it and crashes can be measured again (fake
# runner, no GPU): after a SIGKILL of bartune its runner (waiting on a
# "hung" kernel) and its nvcc (with cicc and ptxas) are gone within 2 s; a
# SIGTERM while a script is stuck in one long C call ends bartune at once
# (exit 130); a runner that died is recorded crash, not measured again by a
# plain run, and measured again by run --retry crash.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'pkill -9 -P $$ 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$root"
cp tests/fake_runner.sh "$tmp/runner.sh"
fail() { echo "$*"; exit 1; }
gone_within() { # PGID SECONDS
    for _ in $(seq $(($2 * 10))); do pgrep -g "$1" >/dev/null || return 0; sleep 0.1; done
    return 1
}
sel="barrier=none consumer_warps=4 cvec=4 chunk=stride prefetch=0 blocks_per_sm=1"
dirs="--results $tmp/r --kernels $tmp/k --cache $tmp/c"

# 1. a runner stuck in a measurement
FAKE_RUNNER_DELAY=600 "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$tmp/runner.sh" \
    $dirs >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do pgrep -f "$tmp/runner.sh" >/dev/null && break; sleep 0.1; done
sleep 1
wd=$(pgrep -P "$pid" | head -1)
[ -n "$wd" ] || fail "no runner started"
kill -9 "$pid"
gone_within "$wd" 2 || fail "the runner outlived bartune: $(pgrep -ag "$wd")"

# 2. nvcc and its children
"$bartune" compile tests/faults/faults.lua --templates tests/faults fault=slow_compile \
    --cache "$tmp/c2" --compile-timeout 600 >/dev/null 2>&1 &
pid=$!
sleep 3
wd=$(pgrep -P "$pid" | head -1)
[ -n "$wd" ] || fail "no nvcc started"
kill -9 "$pid"
gone_within "$wd" 2 || fail "nvcc outlived bartune: $(pgrep -ag "$wd")"

# 3. a signal while a script is in one long C call
"$bartune" list tests/spaces/hostile_pattern.lua --script-timeout 600 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM "$pid"
for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "SIGTERM did not end a stuck script within 2 s"; }
wait "$pid"
rc=$?
[ $rc = 130 ] || fail "exit code $rc after SIGTERM in a script, expected 130"

# 4. crash, then --retry crash
run() { "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$tmp/runner.sh" $dirs "$@" 2>&1 >/dev/null; }
FAKE_RUNNER_DIE=1 run | grep -q "1 measured" || fail "the crash was not recorded"
grep -q '"status":"crash"' "$tmp"/r/*/pipeline.jsonl || fail "no crash record"
run | grep -q "0 measured, 1 already recorded" || fail "a plain run measured the crash again"
run --retry crash,hang | grep -q "1 measured, 0 already recorded" || fail "--retry crash did not measure it"
grep -q '"status":"ok"' "$tmp"/r/*/pipeline.jsonl || fail "the retried measurement is not recorded"
echo "children end with bartune; a stuck script ends on SIGTERM; --retry measures crashes again"
