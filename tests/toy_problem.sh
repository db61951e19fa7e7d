#!/usr/bin/env bash
# A second problem needs no edit under tuner/ or runner/: tests/toy holds a
# problem (problems/axpy2d.lua: inout buffer, scalar, 2-D grid, bound rule),
# a space, a template and a CPU reference, nothing else, found beside the
# space with no path flags. Mode "ci": list,
# render, compile, then a run with the fake runner (the reference library
# builds; records and headers are written) and the emitted header builds
# into a program. Mode "gpu": the same on the GPU, where every correct
# variant verifies, the faulty one is caught, and the program's results are
# within the bound (exit 77 without a GPU).
set -u
bartune=$1 root=$2 nvcc=$3 mode=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
# no path flags: problems/ and templates/ beside the space are found as they are
toy="tests/toy/axpy.lua"
dirs="--results $tmp/r --kernels $tmp/k --cache $tmp/c"
fail() { echo "$*"; exit 1; }
if [ "$mode" = gpu ]; then
    "$bartune" devices >/dev/null 2>&1; [ $? = 4 ] && { echo "no GPU"; exit 77; }
    runner=()
else
    runner=(--runner "$root/tests/fake_runner.sh")
fi
"$bartune" list $toy >"$tmp/list" || fail "list failed"
grep -q "10 variants for generic sm_90" "$tmp/list" || fail "list: $(tail -1 "$tmp/list")"
"$bartune" render $toy block_x=32 block_y=4 fault=none >"$tmp/r.cu" || fail "render failed"
grep -q "bartune_kernel(const float\* __restrict__ x, float\* __restrict__ y, float a, int rows, int cols)" "$tmp/r.cu" ||
    fail "render: not the toy kernel"
"$bartune" compile $toy --cache "$tmp/c" >"$tmp/compile" 2>/dev/null || fail "compile failed"
grep -q "10 variants compiled for sm_90, 0 failed" "$tmp/compile" || fail "compile: $(tail -1 "$tmp/compile")"
"$bartune" run $toy "${runner[@]}" $dirs >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "run failed"; }
file=$(ls "$tmp"/r/*/axpy2d.jsonl) || fail "no results file"
[ "$(grep -c . "$file")" = 40 ] || fail "expected 40 records (20 launch configurations x 2 sizes), got $(grep -c . "$file")"
ls "$tmp"/c/ref-*.so >/dev/null || fail "the CPU reference library was not built"
if [ "$mode" = gpu ]; then
    [ "$(grep '"fault":"none"' "$file" | grep -c '"status":"ok"')" = 36 ] || fail "not every correct variant verified"
    [ "$(grep '"fault":"skip_last_col"' "$file" | grep -c '"status":"wrong_result"')" = 4 ] ||
        fail "the faulty variant was not caught: $(grep skip_last_col "$file" | head -1 | cut -c1-400)"
fi
[ -f "$tmp/k/axpy2d.cuh" ] || fail "no header emitted"
"$nvcc" -std=c++17 -arch=sm_90 -I "$tmp/k" tests/toy/consumer.cu -o "$tmp/consumer" || fail "header does not build"
if [ "$mode" = gpu ]; then
    "$tmp/consumer" expect-tuned || fail "the emitted toy kernel is wrong"
fi
echo "toy problem: list, render, compile, run ($mode), emit and header ok"
