#!/usr/bin/env bash
# GPU: bartune run on real variants of every barrier and producer kind at an
# n that is not a multiple of any tile; every one must verify, and a second
# run must skip them all. Exit 77 without a GPU.
set -u
bartune=$1 root=$2 nvcc=${3:-nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
"$bartune" devices >/dev/null 2>&1; [ $? = 4 ] && { echo "no GPU"; exit 77; }
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
args="--size n=1000003 --results $tmp/r --kernels $tmp/k --cache $tmp/c"
"$bartune" run gen/pipeline.lua $args $sel >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; exit 1; }
grep -q "records by status: ok 12$" "$tmp/out" || { echo "not all 12 verified"; cat "$tmp/out" "$tmp/err"; exit 1; }
"$bartune" run gen/pipeline.lua $args $sel >"$tmp/out2" 2>"$tmp/err2" || exit 1
grep -q "0 measured, 12 already recorded" "$tmp/err2" || { echo "rerun measured again"; cat "$tmp/err2"; exit 1; }
[ "$(wc -l <"$tmp"/r/*/pipeline.jsonl)" = 12 ] || { echo "records duplicated"; exit 1; }
# the headers it emitted serve a program
bash "$root/tests/gpu_header.sh" "$nvcc" "$root" run "$tmp/k"
