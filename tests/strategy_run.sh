#!/usr/bin/env bash
# run --strategy with the fake runner (no GPU): the budget of measured
# configurations is kept, only the variants asked for are compiled, the same
# seed asks the same candidates in the same order, another seed does not,
# and a time budget ends the run.
. "$(dirname "$0")/lib.sh" "$@"
run() { # DIR SEED BUDGET
    "$bartune" run gen/pipeline.lua --strategy ils --budget "$3" --seed "$2" --size n=1000 \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/$1/r" --kernels "$tmp/$1/k" \
        --cache "$tmp/c" --no-emit >/dev/null 2>"$tmp/$1.err" || { cat "$tmp/$1.err"; fail "run $1 failed"; }
}
configs() { grep -o '"config":{[^}]*}' "$tmp"/$1/r/*/pipeline.jsonl; }
run a 3 20
[ "$(configs a | wc -l)" = 20 ] || fail "budget 20: $(configs a | wc -l) records"
cubins=$(ls "$tmp"/c/*.cubin | wc -l)
[ "$cubins" -le 28 ] || fail "compiled $cubins variants for 20 measurements (one batch of 8 asked ahead at most)"
run b 3 20
run c 4 20
diff <(configs a) <(configs b) >/dev/null || fail "the same seed asked other candidates"
diff <(configs a) <(configs c) >/dev/null && fail "another seed asked the same candidates"
# resuming: the first 20 are recalled, 10 more measured
run a 3 30
[ "$(configs a | wc -l)" = 30 ] || fail "resume to budget 30: $(configs a | wc -l) records"
grep -q "10 measured, 20 already recorded" "$tmp/a.err" || fail "resume: $(tail -3 "$tmp/a.err")"
# a time budget ends the run: at 0.2 s a measure, 3 s hold 15 measures and
# a batch asked ahead at most; how many fit is the machine's speed (a loaded
# 2-core machine measured 1), so the end is asserted, not a rate
FAKE_RUNNER_DELAY=0.2 run d 5 3s
n=$(configs d | wc -l)
[ "$n" -ge 1 ] && [ "$n" -lt 60 ] || fail "a 3 s budget measured $n configurations"
grep -q "budget" "$tmp/d.err" || grep -q "measured" "$tmp/d.err" || fail "a 3 s budget: $(tail -3 "$tmp/d.err")"
# a warm start: run at another size on the same results file starts from the
# fastest of what was recorded at n=1000 (the fake runner times a cubin the
# same at every size: the first candidate asked is one of the fastest there)
FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua --strategy ils --budget 40 --seed 3 --size n=1000 \
    --runner "$root/tests/fake_runner.sh" --results "$tmp/w/r" --kernels "$tmp/w/k" --cache "$tmp/c" \
    --no-emit >/dev/null 2>"$tmp/w1.err" || { cat "$tmp/w1.err"; fail "warm: the first run failed"; }
grep -q "starts from the fastest" "$tmp/w1.err" && fail "the first size started warm from nothing"
FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua --strategy ils --budget 5 --seed 3 --size n=2000 \
    --runner "$root/tests/fake_runner.sh" --results "$tmp/w/r" --kernels "$tmp/w/k" --cache "$tmp/c" \
    --no-emit >/dev/null 2>"$tmp/w2.err" || { cat "$tmp/w2.err"; fail "warm: the second run failed"; }
grep -q "strategy ils starts from the fastest of 1 other size tuple(s)" "$tmp/w2.err" ||
    fail "the second size did not say what it starts from: $(head -5 "$tmp/w2.err")"
file=$(ls "$tmp"/w/r/*/pipeline.jsonl)
best=$(grep '"n":1000' "$file" | grep '"status":"ok"' | grep -o '"median_ms":[0-9.]*' | sort -t: -k2 -g | head -1)
first=$(grep '"n":2000' "$file" | head -1 | grep -o '"median_ms":[0-9.]*')
[ -n "$best" ] && [ "$first" = "$best" ] ||
    fail "warm: the first candidate at n=2000 took ${first:-nothing}, the best at n=1000 ${best:-nothing}"
# Records a search must measure again (the problem's checks changed since,
# or the variant renders otherwise now: a template changed): a search at
# their sizes measures their best again first. again DIR SED WHAT: 12
# records, SED makes them stale, then a search of budget 1.
again() {
    local dir=$1 edit=$2 what=$3 b file new_id
    for b in 12 1; do
        FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua --strategy ils --budget $b --seed 3 --size n=1000 \
            --runner "$root/tests/fake_runner.sh" --results "$tmp/$dir/r" --kernels "$tmp/$dir/k" --cache "$tmp/c" \
            --no-emit >/dev/null 2>"$tmp/$dir.err" || { cat "$tmp/$dir.err"; fail "$what: run at budget $b failed"; }
        file=$(ls "$tmp/$dir"/r/*/pipeline.jsonl)
        [ $b = 1 ] && break
        # (the fake runner times a cubin the same in every launch configuration:
        # the old bests are every record of the least time)
        old_best=$(grep '"status":"ok"' "$file" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
t = min(r["median_ms"] for r in recs)
print(" ".join(sorted(r["id"] for r in recs if r["median_ms"] == t)))')
        sed -i "$edit" "$file"
    done
    grep -q "measures again first the 12 record(s) of these sizes verified under other checks or of variants that render otherwise" \
        "$tmp/$dir.err" || fail "$what: the search did not say it starts from them: $(head -3 "$tmp/$dir.err")"
    new_id=$(tail -1 "$file" | grep -o '"id":"[0-9a-f]*"' | cut -d'"' -f4)
    [ "$(wc -l <"$file")" = 13 ] && [ -n "$new_id" ] && grep -qw "$new_id" <<<"$old_best" ||
        fail "$what: the one measurement after ($new_id) was not an old best ($old_best)"
}
again v 's/"verified":"[0-9a-f]*"/"verified":"0000000000000000"/' "records verified under other checks"
# (as a render change makes them: another source hash, and another id, which
# holds the compile key; old_best's ids are the current renders')
again s 's/"source_hash":"[0-9a-f]*"/"source_hash":"0000000000000000"/; s/"id":"[0-9a-f]\{4\}/"id":"zzzz/' \
    "records of an earlier render"
# another device's records (run --warm-from DEVICE): a device with none of
# its own starts from the best the other recorded at these sizes
mkdir -p "$tmp/x/r/other-gpu-sm90"
cp "$file" "$tmp/x/r/other-gpu-sm90/pipeline.jsonl"
xrun() { # NAME WARM-FROM
    FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua --strategy ils --budget 3 --seed 3 --size n=1000 \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/x/$1" --kernels "$tmp/x/k" --cache "$tmp/c" \
        --warm-from "$2" --no-emit >/dev/null 2>"$tmp/x-$1.err" || { cat "$tmp/x-$1.err"; fail "--warm-from $2 failed"; }
}
xrun r other-gpu-sm90
grep -q "starts from the fastest of 0 other size tuple(s) recorded for this device and 2 landscape(s) of 1 other device(s)" \
    "$tmp/x-r.err" || fail "--warm-from other-gpu-sm90 did not say what it starts from: $(head -5 "$tmp/x-r.err")"
mine=$(ls "$tmp"/x/r/*/pipeline.jsonl | grep -v other-gpu)
first=$(head -1 "$mine" | grep -o '"median_ms":[0-9.]*')
[ -n "$best" ] && [ "$first" = "$best" ] ||
    fail "--warm-from: the first candidate took ${first:-nothing}, the other device's best ${best:-nothing}"
# ... and from the other device's best at these sizes before this device's
# own records at other sizes (the shape decides more than the card): here
# this device ran only n=1000's slowest config, at n=2000, so its best
# there is not the other's (the fake runner times a cubin the same at every
# size and device)
own=$(basename "$(dirname "$mine")")
mkdir -p "$tmp/x/y/other-gpu-sm90"
cp "$file" "$tmp/x/y/other-gpu-sm90/pipeline.jsonl"
slow=$(grep '"n":1000' "$file" | grep '"status":"ok"' | python3 -c '
import json, sys
r = max((json.loads(l) for l in sys.stdin), key=lambda r: r["median_ms"])
print(" ".join(f"{k}={v}" for k, v in r["config"].items()))')
# shellcheck disable=SC2086 # the config's k=v are words
FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua $slow --size n=2000 --runner "$root/tests/fake_runner.sh" \
    --results "$tmp/x/y" --kernels "$tmp/x/k" --cache "$tmp/c" --no-emit >/dev/null 2>"$tmp/x-y0.err" ||
    { cat "$tmp/x-y0.err"; fail "the slowest config at n=2000 failed"; }
xrun y other-gpu-sm90
grep -q "starts from the fastest of 1 other size tuple(s) recorded for this device and 2 landscape(s) of 1 other device(s) (1 at these sizes first)" \
    "$tmp/x-y.err" || fail "--warm-from beside this device's records: $(head -5 "$tmp/x-y.err")"
first=$(grep '"n":1000' "$tmp/x/y/$own/pipeline.jsonl" | head -1 | grep -o '"median_ms":[0-9.]*')
[ -n "$best" ] && [ "$first" = "$best" ] ||
    fail "--warm-from beside this device's records: the first candidate took ${first:-nothing}, the other device's best at these sizes ${best:-nothing}"
# show names another device's best that this one never measured (n=2000:
# only the slowest config ran here), and never a config it did measure
sed -i 's/"name":"[^"]*"/"name":"Other GPU"/' "$tmp/x/y/other-gpu-sm90/pipeline.jsonl"
"$bartune" show gen/pipeline.lua --results "$tmp/x/y" >"$tmp/x-show.out" || fail "show of two devices failed"
sed -n "/== .*$own/,/^records by status/p" "$tmp/x-show.out" >"$tmp/x-show.own"
grep -A1 "never measured on this device: other-gpu-sm90's best" "$tmp/x-show.own" | grep -q "'n=2000' .*--warm-from other-gpu-sm90" ||
    fail "show: the other device's best at n=2000 not named as never measured here: $(grep -A1 never "$tmp/x-show.own")"
python3 - "$tmp/x-show.own" "$tmp/x/y/$own/pipeline.jsonl" <<'PY' || fail "show named a config as never measured that was"
import json, re, sys
text = open(sys.argv[1]).read()
mine = [json.loads(l) for l in open(sys.argv[2])]
for cfg, tup in re.findall(r"never measured on this device: .*? (\{.*\})\n.*--tuple '([^']*)'", text):
    sizes = dict((k, int(v)) for k, v in (kv.split("=") for kv in tup.split()))
    if any(r["config"] == json.loads(cfg) and r["sizes"] == sizes for r in mine):
        sys.exit(f"measured here at {tup}: {cfg}")
PY
cp -r "$tmp/x/r" "$tmp/x/cold" && rm -f "$tmp"/x/cold/fake*/pipeline.jsonl
xrun cold none
grep -q "starts cold (--warm-from none)" "$tmp/x-cold.err" || fail "--warm-from none: $(head -5 "$tmp/x-cold.err")"
"$bartune" run gen/pipeline.lua --warm-from all --size n=1000 --runner "$root/tests/fake_runner.sh" \
    --results "$tmp/x/r" --no-emit >/dev/null 2>"$tmp/x-bad.err" && fail "--warm-from without --strategy ran"
grep -q "give --strategy too" "$tmp/x-bad.err" || fail "--warm-from without --strategy: $(cat "$tmp/x-bad.err")"
echo "strategy runs keep their budget, compile what they ask, repeat with a seed, resume, start warm (also from another device)"
