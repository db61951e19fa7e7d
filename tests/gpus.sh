#!/usr/bin/env bash
# run --gpus with the fake runner (no GPU): several GPUs measure at once and
# record what one GPU would; a GPU whose runner keeps dying is restarted on
# its own while the others go on; mixed cards each get their own results;
# bad GPU lists are refused.
. "$(dirname "$0")/lib.sh" "$@"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
run() { # NAME [ARGS...]: exit status in $rc
    name=$1
    shift
    "$bartune" run gen/pipeline.lua $sel --size n=1000 --runner "$root/tests/fake_runner.sh" \
        --results "$tmp/$name" --kernels "$tmp/k" --cache "$tmp/c" --no-emit "$@" \
        >/dev/null 2>"$tmp/$name.err"
    rc=$?
}
ids() { grep -ho '"id":"[0-9a-f]*"' "$tmp"/$1/*/pipeline.jsonl | sort; }

export FAKE_RUNNER_DELAY=0.3
run one
[ $rc = 0 ] || { cat "$tmp/one.err"; fail "one GPU: exit $rc"; }
FAKE_RUNNER_GPUS=2 FAKE_RUNNER_LOG=$tmp/starts run two --gpus all
[ $rc = 0 ] || { cat "$tmp/two.err"; fail "--gpus all: exit $rc"; }
diff <(ids one) <(ids two) >/dev/null || fail "two GPUs recorded other configurations than one"
[ "$(ids two | uniq -d | wc -l)" = 0 ] || fail "two GPUs measured a configuration twice"
for log in runner.log runner-gpu1.log; do
    grep -q "/$log\"" "$tmp"/two/*/pipeline.jsonl || fail "no record measured by the runner of $log"
done
# at once: some measure on GPU 1 starts while one on GPU 0 is under way
awk -v d="$FAKE_RUNNER_DELAY" '$2 == 0 { t0[n0++] = $1 } $2 == 1 { t1[n1++] = $1 }
    END { for (i = 0; i < n1; i++) for (k = 0; k < n0; k++)
              if (t1[i] - t0[k] < d && t0[k] - t1[i] < d) exit 0
          exit 1 }' "$tmp/starts" || fail "the two GPUs never measured at the same time"
grep -q "GPU 1 measured" "$tmp/two.err" || fail "no per-GPU count: $(tail -5 "$tmp/two.err")"

# GPU 1's runner dies on every measure: restarted each time, GPU 0 goes on
FAKE_RUNNER_GPUS=2 FAKE_RUNNER_DIE_ON=1 run dies --gpus 0,1
[ $rc = 0 ] || { cat "$tmp/dies.err"; fail "a dying GPU stopped the run: exit $rc"; }
diff <(ids one) <(ids dies) >/dev/null || fail "with a dying GPU: other configurations recorded"
grep -q '"status":"ok".*runner.log"\|runner.log".*"status":"ok"' "$tmp"/dies/*/pipeline.jsonl ||
    fail "GPU 0 recorded nothing ok"
grep -q '"status":"crash"' "$tmp"/dies/*/pipeline.jsonl || fail "GPU 1's crashes not recorded"

# mixed cards: one results file and one best each
FAKE_RUNNER_GPUS=2 FAKE_RUNNER_NAMES="Fake GPU,Other GPU" run mixed --gpus all
[ $rc = 0 ] || { cat "$tmp/mixed.err"; fail "mixed cards: exit $rc"; }
for key in fake-gpu-sm90 other-gpu-sm90; do
    n=$(grep -c . "$tmp/mixed/$key/pipeline.jsonl" 2>/dev/null)
    [ "$n" = 12 ] || fail "mixed cards: $key has ${n:-no} records, not 12"
done

# devices lists every GPU by the number --gpus takes
FAKE_RUNNER_GPUS=3 "$bartune" devices --runner "$root/tests/fake_runner.sh" --cache "$tmp/c" >"$tmp/devices" ||
    fail "devices failed"
[ "$(grep -c '^GPU [012]: fake-gpu-sm90: Fake GPU' "$tmp/devices")" = 3 ] || fail "devices: $(cat "$tmp/devices")"

# refused: a GPU the driver does not have, repeats, junk
FAKE_RUNNER_GPUS=2 run bad --gpus 0,5
[ $rc = 2 ] && grep -q "there is no GPU 5" "$tmp/bad.err" || fail "--gpus 0,5 of 2: exit $rc: $(cat "$tmp/bad.err")"
[ ! -e "$tmp/bad" ] || fail "--gpus 0,5 wrote results"
for spec in 0,0 x 1, -1 ""; do
    run bad2 --gpus "$spec"
    [ $rc = 2 ] || fail "--gpus '$spec': exit $rc, not 2"
done
exit 0
