#!/usr/bin/env bash
# Early rejection with the fake runner (each cubin its own time, 1 to 8 ms):
# a configuration whose first timed launch is over F x the best so far is
# recorded ok on that one launch, flagged; the best is never one of them;
# --reject 0 times everything fully.
. "$(dirname "$0")/lib.sh" "$@"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 blocks_per_sm=2"
run() { # NAME FACTOR
    FAKE_RUNNER_VARY=1 FAKE_RUNNER_DELAY=0.01 "$bartune" run gen/pipeline.lua $sel --size n=1000 \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/$1" --kernels "$tmp/k" \
        --cache "$tmp/c" --no-emit --reject "$2" >/dev/null 2>"$tmp/$1.err" ||
        { cat "$tmp/$1.err"; fail "run --reject $2 failed"; }
}
run on 1.5
f=$(echo "$tmp"/on/*/pipeline.jsonl)
rejected=$(grep -c '"rejected":true' "$f")
[ "$rejected" -ge 1 ] || fail "--reject 1.5: nothing rejected among $(grep -c . "$f") times of 1 to 8 ms"
grep '"rejected":true' "$f" | grep -qv '"timed_launches":1' && fail "a rejected record timed more than once"
grep '"rejected":true' "$f" | grep -qv '"status":"ok"' && fail "a rejected record is not ok"
# each rejected time is over 1.5 x the best recorded before it
awk -F'"median_ms":' '{ split($2, a, /[,}]/); ms = a[1]
    if ($0 ~ /"rejected":true/) { if (!(best > 0 && ms > 1.5 * best)) { print "rejected " ms " ms, best before " best; exit 1 } }
    else if (best == 0 || ms < best) best = ms }' "$f" || fail "a rejection without a best 1.5x faster"
awk -F'"median_ms":' '{ split($2, a, /[,}]/); if (n++ == 0 || a[1] < best) { best = a[1]; rej = $0 ~ /"rejected":true/ } }
    END { exit rej }' "$f" || fail "the fastest record is a rejected one"
"$bartune" show gen/pipeline.lua --records "$f" | grep -q "ok, $rejected rejected early on one timed launch" ||
    fail "show does not count the rejected records: $("$bartune" show gen/pipeline.lua --records "$f" | tail -1)"
# without the records that were timed in full (as when they are stale or
# gone), a rejected one is still no best: its check sizes never ran
grep -v '"status":"ok"' "$f" >"$tmp/only.jsonl"
grep '"rejected":true' "$f" >>"$tmp/only.jsonl"
"$bartune" show gen/pipeline.lua --records "$tmp/only.jsonl" | grep -q "^no variant verified" ||
    fail "show ranks a rejected record as a best: $("$bartune" show gen/pipeline.lua --records "$tmp/only.jsonl" | tail -3)"
"$bartune" emit gen/pipeline.lua --records "$tmp/only.jsonl" --kernels "$tmp/ke" >"$tmp/emit.out" 2>&1
grep -q "(0 tuned variants" "$tmp/emit.out" || fail "emit wrote a rejected variant into a header: $(cat "$tmp/emit.out")"
# beside one slower record timed in full, that one is the best and heads
# show's ranking: no rejected record ranks above it
python3 - "$f" >>"$tmp/only.jsonl" <<'PY'
import json, sys
full = [json.loads(l) for l in open(sys.argv[1]) if '"status":"ok"' in l and '"rejected"' not in l]
full[0]["median_ms"] = full[0]["min_ms"] = full[0]["max_ms"] = 99.0
print(json.dumps(full[0], separators=(",", ":")))
PY
"$bartune" show gen/pipeline.lua --records "$tmp/only.jsonl" >"$tmp/show.out" || fail "show failed"
grep -q "^  #1  *99.0000 " "$tmp/show.out" && ! grep -q "^  #2 " "$tmp/show.out" ||
    fail "show ranks rejected records beside the one timed in full: $(cat "$tmp/show.out")"
# --sanitize checks the best few that emit could serve: with every record timed
# in full made slower than the rejected ones, still none of the rejected
# (no compute-sanitizer on this PATH: each check fails to start, and is recorded)
mkdir -p "$tmp/san" && cp -r "$tmp"/on/* "$tmp/san/"
fs=$(echo "$tmp"/san/*/pipeline.jsonl)
python3 - "$fs" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
for r in recs:
    if r["status"] == "ok" and not r.get("rejected"):
        r["median_ms"] = r["min_ms"] = r["max_ms"] = 99.0
open(sys.argv[1], "w").write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in recs))
PY
PATH=/usr/bin:/bin FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua $sel --size n=1000 --sanitize --no-emit \
    --runner "$root/tests/fake_runner.sh" --results "$tmp/san" --kernels "$tmp/k" --cache "$tmp/c" \
    >/dev/null 2>"$tmp/san.err" || fail "run --sanitize failed: $(tail -3 "$tmp/san.err")"
python3 - "$fs" <<'PY' || fail "run --sanitize checked rejected records"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
key = lambda r: json.dumps(r["config"], sort_keys=True)
rejected = {key(r) for r in recs if r.get("rejected")}
tools = [r for r in recs if "tool" in r]
bad = [key(r) for r in tools if key(r) in rejected]
print(f"{len(tools)} sanitizer records, {len(bad)} of rejected variants", *bad[:3], sep="\n")
sys.exit(1 if bad or not tools else 0)
PY
run off 0
grep -q '"rejected"' "$tmp"/off/*/pipeline.jsonl && fail "--reject 0 rejected something"
"$bartune" run gen/pipeline.lua --reject 1.0 >/dev/null 2>&1
[ $? = 2 ] || fail "--reject 1.0 accepted"
exit 0
