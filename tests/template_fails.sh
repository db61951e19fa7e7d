#!/usr/bin/env bash
# A template that fails to render a variant the space accepts is the
# template's error, not a stale record: emit says so, names the variant and
# exits non-zero, and the headers already written stay as they are. A
# record whose variant the space no longer accepts (a value taken out) is
# only stale: emit goes on without it. The toy, the fake runner.
. "$(dirname "$0")/lib.sh" "$@"
cp -r tests/toy "$tmp/t"
fk=(--runner "$root/tests/fake_runner.sh" --cache "$tmp/c" --results "$tmp/r" --kernels "$tmp/k")
"$bartune" run "$tmp/t/axpy.lua" "${fk[@]}" >"$tmp/out" 2>&1 || fail "run of the toy: $(tail -3 "$tmp/out")"
cp "$tmp/k/axpy2d.cuh" "$tmp/before.cuh"
# a template that reads a name nothing gives it: for every variant (the
# portable one fails first), then only for block_x = 16, the best's (the
# fake runner's times tie: the first recorded)
for when in 'true' 'block_x == 16'; do
    sed -i "1i //% if $when then local broken = no_such_name end" "$tmp/t/templates/axpy2d.cu"
    "$bartune" emit "$tmp/t/axpy.lua" "${fk[@]}" >"$tmp/out" 2>&1 && fail "emit with a template failing where $when exited 0"
    grep -q "no_such_name" "$tmp/out" || fail "emit's message where $when: $(head -3 "$tmp/out")"
    [ "$when" = true ] || grep -q "the template fails on a variant the space accepts (block_x=16" "$tmp/out" ||
        fail "emit's message where $when: $(head -3 "$tmp/out")"
    cmp -s "$tmp/k/axpy2d.cuh" "$tmp/before.cuh" || fail "emit wrote a header over the good one where $when"
    sed -i '1d' "$tmp/t/templates/axpy2d.cu"
done
# a value taken out of the space: its records are stale, nothing else
sed -i 's/^param("block_x", { 16, 32, 64 })/param("block_x", { 16, 32 })/' "$tmp/t/axpy.lua"
"$bartune" emit "$tmp/t/axpy.lua" "${fk[@]}" >"$tmp/out" 2>&1 || fail "emit after narrowing the space: $(tail -3 "$tmp/out")"
grep -q "template fails" "$tmp/out" && fail "a stale record was taken for a failing template: $(cat "$tmp/out")"
grep -q "block_x=64" "$tmp/k/axpy2d.cuh" && fail "the header holds a variant the space no longer has"
echo "template fails: emit exits non-zero and keeps the header; stale records are only stale"
