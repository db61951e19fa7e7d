#!/usr/bin/env bash
# Geometry out of range and geometry that lies (issue 17, class 4), with the
# fake runner: launch() giving a grid or block of 0, a negative one, 2^31, or
# 2^40 bytes of shared memory is a launch_refused record of that
# configuration and the run goes on; a launch() whose symbolic geometry (the
# header's) differs from its numbers at the measured sizes makes emit refuse,
# and the header already there stays as it was.
. "$(dirname "$0")/lib.sh" "$@"
dirs="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c"
"$bartune" run tests/toy/geometry.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/run" 2>&1 ||
    fail "the run stopped: $(tail -3 "$tmp/run")"
f=$(ls "$tmp"/r/*/geometry.jsonl)
for s in zero_grid huge_grid negative_block huge_smem; do
    grep "\"shape\":\"$s\"" "$f" | grep -q '"status":"launch_refused"' ||
        fail "shape=$s: not launch_refused: $(grep "\"shape\":\"$s\"" "$f" | head -c 300)"
done
[ "$(grep -c '"status":"ok"' "$f")" = 2 ] || fail "the two fine shapes were not both measured"
grep '"shape":"huge_grid"' "$f" | grep -q 'grid\[1\] = 2147483648' || fail "the message does not say what was wrong"
# the lie: measured, then emit refuses and leaves the header that was there
"$bartune" run tests/toy/geometry_lies.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/lies" 2>&1 ||
    fail "run (lies): $(tail -3 "$tmp/lies")"
mkdir -p "$tmp/k/fake-gpu-sm90"
echo "// kept" >"$tmp/k/fake-gpu-sm90/geometry_lies.cuh"
"$bartune" emit tests/toy/geometry_lies.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/emit" 2>&1 &&
    fail "emit wrote a header whose geometry is not what was measured"
grep -q "another geometry than the one measured at cols=300 rows=100: grid\[2\] is 25 measured, 13 in the header" "$tmp/emit" ||
    fail "emit's message: $(tail -3 "$tmp/emit")"
ls "$tmp"/k/*/geometry_lies.cuh >/dev/null 2>&1 && ! grep -q kept "$tmp"/k/*/geometry_lies.cuh &&
    fail "the header there before was replaced"
# a forged symbol carrying C++ never reaches a header
"$bartune" run tests/toy/geometry_forged.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/forged" 2>&1 ||
    fail "run (forged): $(tail -3 "$tmp/forged")"
"$bartune" emit tests/toy/geometry_forged.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/emit2" 2>&1 &&
    fail "emit accepted a forged symbol"
grep -rq system "$tmp/k" && fail "C++ of launch()'s own reached a header"
grep -q "launch().grid\[1\] is" "$tmp/emit2" || fail "emit's message (forged): $(tail -3 "$tmp/emit2")"
echo "out-of-range geometry recorded as launch_refused (4 kinds), the run went on; a lying or forging launch() is refused by emit"
