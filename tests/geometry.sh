#!/usr/bin/env bash
# Geometry out of range and geometry that lies (issue 17, class 4), with the
# fake runner: launch() giving a grid or block of 0, a negative one, 2^31, or
# 2^40 bytes of shared memory or scratch memory, or a negative scratch, is a launch_refused record of that
# configuration and the run goes on; a launch() whose symbolic geometry (the
# header's) differs from its numbers at the measured sizes makes emit refuse,
# and the header already there stays as it was.
. "$(dirname "$0")/lib.sh" "$@"
dirs="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c"
"$bartune" run tests/toy/geometry.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/run" 2>&1 ||
    fail "the run stopped: $(tail -3 "$tmp/run")"
f=$(ls "$tmp"/r/*/geometry.jsonl)
for s in zero_grid huge_grid negative_block huge_smem huge_scratch negative_scratch zero_past_scratch negative_zero; do
    grep "\"shape\":\"$s\"" "$f" | grep -q '"status":"launch_refused"' ||
        fail "shape=$s: not launch_refused: $(grep "\"shape\":\"$s\"" "$f" | head -c 300)"
done
[ "$(grep -c '"status":"ok"' "$f")" = 4 ] || fail "the four fine shapes were not all measured"
grep '"shape":"scratch"' "$f" | grep -q '"scratch":120000' || fail "the record of shape=scratch lacks its scratch bytes"
grep '"shape":"negative_scratch"' "$f" | grep -q 'scratch = -4 bytes' || fail "the message does not say the scratch was negative"
grep '"shape":"scratch_zero"' "$f" | grep -q '"scratch_zero":256' || fail "the record of shape=scratch_zero lacks its zero prefix"
grep '"shape":"zero_past_scratch"' "$f" | grep -q 'scratch_zero = 1028 bytes, outside 0..scratch (1024)' ||
    fail "the message does not say the zero prefix passed the scratch memory: $(grep '"shape":"zero_past_scratch"' "$f" | head -c 400)"
grep '"shape":"huge_grid"' "$f" | grep -q 'grid\[1\] = 2147483648' || fail "the message does not say what was wrong"
# the lie: measured, then emit refuses and leaves the header that was there
"$bartune" run tests/toy/geometry_lies.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/lies" 2>&1 ||
    fail "run (lies): $(tail -3 "$tmp/lies")"
mkdir -p "$tmp/k/fake-gpu-sm90"
echo "// kept" >"$tmp/k/fake-gpu-sm90/geometry_lies.cuh"
"$bartune" emit tests/toy/geometry_lies.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/emit" 2>&1 &&
    fail "emit wrote a header whose geometry is not what was measured"
grep -q "another geometry than the one measured at cols=[0-9]* rows=[0-9]*: grid\[2\] is [0-9]* measured, [0-9]* in the header" "$tmp/emit" ||
    fail "emit's message: $(tail -3 "$tmp/emit")"
ls "$tmp"/k/*/geometry_lies.cuh >/dev/null 2>&1 && ! grep -q kept "$tmp"/k/*/geometry_lies.cuh &&
    fail "the header there before was replaced"
# the portable variant, measured at no one tuple, is held to launch() at every tuned tuple
"$bartune" emit tests/toy/geometry_lies.lua --results "$tmp/none" --kernels "$tmp/kp" >"$tmp/emitp" 2>&1 &&
    fail "emit wrote a portable header whose geometry is not launch()'s"
grep -q "another geometry than the one measured at cols=3001 rows=1000" "$tmp/emitp" ||
    fail "emit's message (portable): $(tail -3 "$tmp/emitp")"
[ -e "$tmp/kp/portable/geometry_lies.cuh" ] && fail "the lying portable header was written"
# a forged symbol carrying C++ never reaches a header
"$bartune" run tests/toy/geometry_forged.lua --size rows=100 --size cols=300 --no-emit $dirs >"$tmp/forged" 2>&1 ||
    fail "run (forged): $(tail -3 "$tmp/forged")"
"$bartune" emit tests/toy/geometry_forged.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/emit2" 2>&1 &&
    fail "emit accepted a forged symbol"
grep -rq system "$tmp/k" && fail "C++ of launch()'s own reached a header"
grep -q "launch().grid\[1\] is" "$tmp/emit2" || fail "emit's message (forged): $(tail -3 "$tmp/emit2")"
# launch().cluster: over 8 the header asks for a non-portable cluster size
# before launching; not otherwise; outside 1..16 the space is told
for shape in sixteen plain kept; do
    "$bartune" run tests/toy/geometry_cluster.lua shape=$shape --size rows=100 --size cols=300 \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/rc-$shape" --kernels "$tmp/kc-$shape" --cache "$tmp/c" \
        >"$tmp/cl" 2>&1 || fail "run (cluster, $shape): $(tail -3 "$tmp/cl")"
done
grep -q "cudaFuncAttributeNonPortableClusterSizeAllowed, 1)" "$tmp"/kc-sixteen/*/geometry_cluster.cuh ||
    fail "the header of a 16-CTA cluster does not ask for the size"
grep -q "NonPortableCluster" "$tmp"/kc-plain/*/geometry_cluster.cuh &&
    fail "a header without launch().cluster asks for a non-portable cluster size"
# launch().scratch_zero_kept: the stream's scratch kept between calls (no memset, no free)
grep -q "bartune_scratch::with_kept((size_t)bt_scratch, (size_t)bt_scratch_zero" "$tmp"/kc-kept/*/geometry_cluster.cuh ||
    fail "the header of a scratch_zero_kept variant does not keep the stream's scratch"
grep -q "bartune_scratch::with_kept(" "$tmp"/kc-plain/*/geometry_cluster.cuh && fail "a header without scratch keeps scratch"
for shape in kept_bad kept_alone; do
    "$bartune" run tests/toy/geometry_cluster.lua shape=$shape --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1 &&
        fail "launch() of shape=$shape was run"
done
"$bartune" run tests/toy/geometry_cluster.lua shape=kept_bad --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1
grep -q "launch().scratch_zero_kept must be true or false" "$tmp/cl" || fail "scratch_zero_kept = 1: $(tail -3 "$tmp/cl")"
"$bartune" run tests/toy/geometry_cluster.lua shape=kept_alone --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1
grep -q "launch().scratch_zero_kept without launch().scratch" "$tmp/cl" || fail "scratch_zero_kept alone: $(tail -3 "$tmp/cl")"
"$bartune" run tests/toy/geometry_cluster.lua shape=bad --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1 &&
    fail "launch().cluster = 17 was run"
grep -q "launch().cluster must be an integer from 1 to 16" "$tmp/cl" || fail "cluster = 17: $(tail -3 "$tmp/cl")"
"$bartune" run tests/toy/geometry_cluster.lua shape=persistent_bad --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1 &&
    fail "launch().persistent = 1 was run"
grep -q "launch().persistent must be true or false" "$tmp/cl" || fail "persistent = 1: $(tail -3 "$tmp/cl")"
"$bartune" run tests/toy/geometry_cluster.lua shape=together_bad --size rows=100 --size cols=300 $dirs >"$tmp/cl" 2>&1 &&
    fail "launch().together = 0 was run"
grep -q "launch().together must be an integer of 1 or more" "$tmp/cl" || fail "together = 0: $(tail -3 "$tmp/cl")"
# a space path with a newline in it reaches the header's comments as one line
d="toy
#error the path escaped its comment"
mkdir -p "$tmp/$d" && cp -r tests/toy/templates tests/toy/problems "$tmp/$d/" && cp tests/toy/geometry.lua "$tmp/$d/g.lua"
(cd "$tmp" && "$bartune" run "$d/g.lua" shape=fine --size rows=100 --size cols=300 $dirs >"$tmp/nl" 2>&1) ||
    fail "run (newline path): $(tail -3 "$tmp/nl")"
grep -rq "^#error" "$tmp"/k/ && fail "a newline in the space's path started a line of the header"
grep -rq "Generated by bartune from toy_#error the path escaped its comment/g.lua" "$tmp/k" ||
    fail "the header does not name the path made plain: $(grep -rh Generated "$tmp/k" | head -2)"
echo "out-of-range geometry recorded as launch_refused (8 kinds, scratch memory and its zero prefix among them), the run went on; a lying or forging launch() is refused by emit; a path's newline stays in its comment; launch().cluster over 8 and scratch_zero_kept reach the header"
