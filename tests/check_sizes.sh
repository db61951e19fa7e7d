#!/usr/bin/env bash
# Check sizes and the verification digest (CPU side, the fake runner):
# every measure of a problem that declares checks names them; an ok record
# carries the digest of the checks it passed; one that fails at a check size
# is recorded as such and never emitted; a record verified under other (or
# no) checks is measured again by run and left out by emit; the problem's
# new declarations (ranges, init2, views, offsets) are checked with errors
# that name the field.
. "$(dirname "$0")/lib.sh" "$@"
toy=tests/toy/axpy.lua
run() { "$bartune" run "$toy" --runner "$root/tests/fake_runner.sh" --results "$tmp/r$1" \
    --kernels "$tmp/k$1" --cache "$tmp/c" "${@:2}"; }

# 1. a run: every ok record verified, the header holds tuned variants
FAKE_RUNNER_LOG="$tmp/log" run 1 >"$tmp/out1" 2>"$tmp/err1" || { cat "$tmp/err1"; fail "run failed"; }
file=$(ls "$tmp"/r1/*/axpy2d.jsonl)
ok=$(grep -c '"status":"ok"' "$file")
[ "$ok" -gt 0 ] || fail "no ok record"
[ "$(grep '"status":"ok"' "$file" | grep -c '"verified":"[0-9a-f]\{16\}"')" = "$ok" ] ||
    fail "an ok record lacks its verification digest"
# the two tuned size tuples have check lists of their own (rows = s.rows)
[ "$(grep '"status":"ok"' "$file" | grep -o '"verified":"[0-9a-f]*"' | sort -u | wc -l)" = 2 ] ||
    fail "expected one digest per size tuple"
# what verification cost: the runner's wall times, kept per record and summed up by run
[ "$(grep '"status":"ok"' "$file" | grep -v '"rejected"' | grep -c '"checks_ms":0.25,.*"measure_ms":2.5')" -gt 0 ] ||
    fail "no record keeps the runner's checks_ms and measure_ms"
grep -q 'verifying at the check sizes took 0.2 ms of the 2.5 ms' "$tmp/err1" ||
    fail "run did not say what the check sizes cost: $(grep -i verif "$tmp/err1")"
grep -q 'tuned variant' "$tmp/err1" && ! grep -q '(0 tuned variants' "$tmp/err1" ||
    fail "run emitted no tuned variant: $(grep wrote "$tmp/err1")"

# what the CLI sent: each tuple's check sizes set up in slots 1..3 with their labels, and every
# measure naming the three slots with the geometry launch() gives at each check size
FAKE_RUNNER_REQUESTS="$tmp/req" run 1b >/dev/null 2>&1 || fail "run (requests) failed"
grep -q '"op":"problem".*"slot":3.*"where":"at check sizes rows=1000 cols=31: "' "$tmp/req" ||
    grep -q '"where":"at check sizes rows=1000 cols=31: ".*"slot":3' "$tmp/req" ||
    fail "no problem request for the third check size of rows=1000: $(grep -c problem "$tmp/req") problem requests"
measure=$(grep '"op":"measure"' "$tmp/req" | grep '"block_x":\|"cubin"' | head -1)
[ -n "$measure" ] || fail "no measure request"
for k in 1 2 3; do grep -q "\"slot\":$k" <<<"$measure" || fail "a measure without check slot $k: $measure"; done
# the toy's grid is { ceil_div(cols, block_x), ceil_div(rows, block_y * rows_per_thread) }:
# at the check size rows = 1, cols = 1 it is one block
grep -q '"checks":\[{[^]]*"grid":\[1,1,1\]' <<<"$measure" || fail "the first check's grid is not [1,1,1]: $measure"

# 2. a record verified under other checks: emit leaves it out, run measures it again
sed 's/,"verified":"[0-9a-f]*"//; s/"verified":"[0-9a-f]*",//' "$file" >"$tmp/unverified.jsonl"
"$bartune" emit "$toy" --records "$tmp/unverified.jsonl" --kernels "$tmp/k2" --cache "$tmp/c" \
    2>"$tmp/err2" || fail "emit failed"
grep -q '(0 tuned variants + portable)' "$tmp/err2" || fail "emit took unverified records: $(cat "$tmp/err2")"
grep -q 'verified under other checks' "$tmp/err2" || fail "emit did not say why"
mkdir -p "$tmp/r3/$(basename "$(dirname "$file")")"
cp "$tmp/unverified.jsonl" "$tmp/r3/$(basename "$(dirname "$file")")/axpy2d.jsonl"
run 3 >"$tmp/out3" 2>"$tmp/err3" || fail "run over unverified records failed"
again=$(grep -c '"verified"' "$tmp/r3"/*/axpy2d.jsonl)
[ "$again" = "$ok" ] || fail "run measured $again of the $ok unverified ok records again"

# 3. every variant fails at a check size: recorded so, never emitted
FAKE_RUNNER_CHECK_FAILS=. run 4 >"$tmp/out4" 2>"$tmp/err4"
file4=$(ls "$tmp"/r4/*/axpy2d.jsonl)
grep -q '"status":"ok"' "$file4" && fail "a variant failing its check sizes was recorded ok"
grep -q '"message":"at check sizes' "$file4" || fail "the failure does not name the check sizes"
grep -q '(0 tuned variants + portable)' "$tmp/err4" || fail "a variant failing its checks was emitted"

# 4. the declarations, checked with errors naming the field
mkdir -p "$tmp/p/problems" "$tmp/p/templates/axpy2d"
cp tests/toy/templates/axpy2d.cu "$tmp/p/templates/"
cp tests/toy/templates/axpy2d/reference.c "$tmp/p/templates/axpy2d/"
cp "$toy" "$tmp/p/axpy.lua"
bad() { # bad 'sed expression on the problem' 'message fragment'
    sed "$1" tests/toy/problems/axpy2d.lua >"$tmp/p/problems/axpy2d.lua"
    "$bartune" check "$tmp/p/axpy.lua" --cache "$tmp/c" >"$tmp/o" 2>"$tmp/e"
    local rc=$?
    [ $rc = 3 ] || fail "'$1': exit $rc, expected 3 (input): $(cat "$tmp/e")"
    grep -qF -- "$2" "$tmp/e" || fail "'$1': error lacks '$2': $(cat "$tmp/e")"
}
bad 's/init = { "uniform", -1, 1 }/init = { "uniform", 1, -1 }/' "the range 1..-1 is empty"
bad 's/init = { "uniform", -1, 1 }/init = { "uniform", -1e300, 1e300 }/' "is not a value of float"
bad 's/init2 = { "logmag", 2 ^ -20, 2 ^ 20 } }/init2 = { "logmag", 0, 1 } }/' "logmag draws magnitudes"
bad 's/range = { -4, 4 }/range = { 4, -4 }/' "scalar 'a' (float): range must be"
bad 's/special = { 0, 1, -1 }/special = { 0, "x" }/' "special[2] is not a float"
bad 's/{ rows = 1, cols = 1 }/{ rows = 1, cols = 1, offsets = { z = 1 } }/' "offsets names 'z'"
bad 's/{ rows = 1, cols = 1 }/{ rows = 1, cols = 1, offsets = { x = 1 << 30 } }/' "offset of 'x' must be"
bad 's/{ rows = 1, cols = 1 }/{ rows = 1, colz = 1 }/' "check 1"
bad 's/init = { "uniform", -2, 2 },/init = { "uniform", -2, 2 }, view = { rows = "rows", cols = "cols", ld = function(s) return s.cols - 1 end },/' "view: rows"
# 5. the runner checks what it is sent itself (no script is trusted): no
# empty integer range (a division by zero), nothing past a type, no view or
# offset outside the buffer, no scalar range past its type
runner=$(dirname "$bartune")/bartune-runner
ask() { # ask 'buffers JSON' 'scalars JSON' 'message fragment'
    local req='{"op":"problem","cpu_only":true,"name":"axpy2d","reference":"/nonexistent.so","verify":"bound","seed":1,"sizes":[],"args":[],"buffers":'"$1"',"scalars":'"$2"'}'
    printf '%s\n{"op":"quit"}\n' "$req" >"$tmp/req"
    "$runner" 3<"$tmp/req" 4>"$tmp/ans" 2>/dev/null
    grep -q '"status":"setup_error"' "$tmp/ans" && grep -qF -- "$3" "$tmp/ans" ||
        fail "runner, $1 $2: $(cat "$tmp/ans")"
}
buf() { echo '[{"name":"x","type":"'"$1"'","role":"in","length":64,"init":'"$2"${3:+,$3}'}]'; }
ask "$(buf int '{"kind":"uniform","lo":1,"hi":0}')" '[]' "init cannot be drawn from: it needs lo <= hi"
ask "$(buf float '{"kind":"uniform","lo":-1e300,"hi":1e300}')" '[]' "outside the element type"
ask "$(buf int '{"kind":"uniform","lo":0.5,"hi":3}')" '[]' "an integer type needs integers"
ask "$(buf float '{"kind":"logmag","lo":-1,"hi":3}')" '[]' "logmag draws magnitudes"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}' '"init2":{"kind":"nope","lo":0,"hi":1}')" '[]' "init2 cannot be drawn from"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}' '"view":{"rows":9,"cols":8,"ld":8}')" '[]' "does not fit its 64 elements"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}' '"view":{"rows":4611686018427387904,"cols":8,"ld":8}')" '[]' "does not fit"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}' '"offset":1073741824')" '[]' "offset 1073741824 is not 0..1 MiB"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}')" '[{"name":"a","type":"float","value":1,"range":[1e300,1e301]}]' "scalar 'a' (float): range"
ask "$(buf float '{"kind":"uniform","lo":0,"hi":1}')" '[{"name":"a","type":"int","value":1,"special":[0.5],"pick":0}]' "value 0.5 of input set 1 is not a int"

echo "check sizes: digests, re-measure, check failures, declarations ok"
