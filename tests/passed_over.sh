#!/usr/bin/env bash
# One record of a variant the space no longer has (a value it no longer
# declares, a parameter it no longer has) never stops emit or run: it is
# passed over with one line that says it will not be measured again, and
# the best of the rest is emitted (issue 23, class 5). The fake runner.
. "$(dirname "$0")/lib.sh" "$@"
toy=tests/toy/axpy.lua
fk=(--runner "$root/tests/fake_runner.sh" --cache "$tmp/c")
"$bartune" run $toy "${fk[@]}" --results "$tmp/r" --kernels "$tmp/k" >/dev/null 2>&1 || fail "run failed"
file=$(ls "$tmp"/r/*/axpy2d.jsonl)
ok=$(grep '"status":"ok"' "$file" | head -1)
# the fastest records: a launch value, a compile-time value and a parameter the space no longer has
for edit in 's/"rows_per_thread":1/"rows_per_thread":3/' 's/"block_x":16/"block_x":128/' \
    's/"fault":"none"/"fault":"none","gone":7/'; do
    n=$((${n:-0} + 1))
    sed "$edit"'; s/"median_ms":[0-9.]*/"median_ms":0.5/; s/"id":"[0-9a-f]*"/"id":"00000000deadbee'$n'"/' <<<"$ok" >>"$file"
done
"$bartune" emit $toy --records "$file" --kernels "$tmp/k2" --cache "$tmp/c" 2>"$tmp/err" ||
    fail "emit stopped at a record of a variant the space no longer has: $(cat "$tmp/err")"
grep -q '3 faster record(s) are of variants tests/toy/axpy.lua no longer has' "$tmp/err" ||
    fail "emit did not say what it passed over: $(cat "$tmp/err")"
grep -q 'measures them again' "$tmp/err" && fail "emit promised a re-measure: $(cat "$tmp/err")"
grep -q '(2 tuned variants + portable)' "$tmp/err" || fail "emit wrote no tuned header: $(cat "$tmp/err")"
"$bartune" run $toy "${fk[@]}" --results "$tmp/r" --kernels "$tmp/k3" >/dev/null 2>"$tmp/err" ||
    fail "run stopped at a record of a variant the space no longer has: $(cat "$tmp/err")"
[ -f "$tmp/k3/axpy2d.cuh" ] || fail "run wrote no header"
"$bartune" show $toy --records "$file" >"$tmp/show" || fail "show failed"
grep -q 'no longer has left out' "$tmp/show" || fail "show did not say what it left out"
# records of two devices in one --records file are refused, not ranked as one
sed 's/"name":"Fake GPU"/"name":"Other GPU"/' <<<"$ok" >>"$file"
"$bartune" show $toy --records "$file" >"$tmp/show" 2>"$tmp/err"
[ $? = 3 ] || fail "show ranked records of two devices as one: $(cat "$tmp/err")"
grep -q 'a record of device other-gpu-sm90 after records of fake-gpu-sm90' "$tmp/err" ||
    fail "the refusal does not name the devices: $(cat "$tmp/err")"
# which tuning a header uses on a device (issue 22): the same card, else the nearest of its capability
"$bartune" devices --runner "$root/tests/fake_runner.sh" --results "$tmp/r" --cache "$tmp/c" >"$tmp/dev" ||
    fail "devices failed"
grep -q "headers run the variants tuned on this card: $tmp/r/fake-gpu-sm90" "$tmp/dev" || fail "devices: $(cat "$tmp/dev")"
FAKE_RUNNER_NAMES="Fake GPU NVL" "$bartune" devices --runner "$root/tests/fake_runner.sh" --results "$tmp/r" \
    --cache "$tmp/c" >"$tmp/dev" || fail "devices failed"
grep -q "headers run the variants tuned on Fake GPU (4 SMs), the nearest of compute capability 9.0" "$tmp/dev" ||
    fail "devices (a sibling card): $(cat "$tmp/dev")"
echo "records of variants the space no longer has: passed over with one line, the rest emitted"
