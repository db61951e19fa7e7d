#!/usr/bin/env bash
# bartune new writes a skeleton that works as it is (issue 16): in a fresh
# folder it lists, checks (two variants in one header, the CPU reference),
# compiles the variants of 2 stages (every barrier kind) and, with the fake runner (mode ci) or on the GPU
# (mode gpu), runs and emits a header that its check.cu program builds
# against (and on the GPU runs: every call matches). Nothing is written
# where a folder exists or the name is not an identifier.
# Usage: new_skeleton.sh BARTUNE ROOT NVCC ci|gpu
. "$(dirname "$0")/lib.sh" "$1" "$2"
nvcc=$3 mode=$4
runner=(--runner "$root/tests/fake_runner.sh")
if [ "$mode" = gpu ]; then skip_without_gpu; runner=(); fi
dirs=(--results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c")
cd "$tmp" || exit 1
"$bartune" new demo_scale >new.out || fail "new: $(cat new.out)"
for f in demo_scale.lua problems/demo_scale.lua templates/demo_scale.cu \
    templates/demo_scale/reference.c check.cu; do
    [ -f "demo_scale/$f" ] || fail "new wrote no demo_scale/$f"
done
grep -rq skeleton demo_scale && fail "the skeleton's name is left in: $(grep -rl skeleton demo_scale)"
"$bartune" new demo_scale >again.out 2>&1 && fail "new wrote over an existing folder"
grep -q "exists; nothing was written" again.out || fail "new over a folder: $(cat again.out)"
"$bartune" new 3d >bad.out 2>&1 && fail "new took a name that is not an identifier"
[ -e 3d ] && fail "new wrote a folder for a bad name"
n=$("$bartune" list demo_scale/demo_scale.lua | tail -1 | grep -o '^[0-9]*')
[ "${n:-0}" -ge 10 ] || fail "list: ${n:-no} variants"
"$bartune" check demo_scale/demo_scale.lua "${dirs[@]}" >check.out 2>&1 || fail "check: $(cat check.out)"
"$bartune" compile demo_scale/demo_scale.lua stages=2 "${dirs[@]}" >compile.out 2>&1 || fail "compile: $(tail -5 compile.out)"
grep -q " 0 failed" compile.out || fail "compile: $(tail -2 compile.out)"
"$bartune" run demo_scale/demo_scale.lua stages=2 "${runner[@]}" "${dirs[@]}" >run.out 2>&1 || fail "run: $(tail -5 run.out)"
grep -E "records by status: ok [0-9]+( \(|$)" run.out >/dev/null || fail "run: not every record ok: $(grep 'records by status' run.out)"
[ -f "$tmp/k/demo_scale.cuh" ] || fail "run emitted no header"
"$nvcc" -arch=sm_90 -std=c++17 -I "$tmp/k" demo_scale/check.cu -o check || fail "check.cu does not build"
if [ "$mode" = gpu ]; then ./check || fail "check.cu: $(./check 2>&1 | tail -3)"; fi
echo "bartune new: the skeleton lists ($n variants), checks, compiles and runs ($mode); check.cu builds"
