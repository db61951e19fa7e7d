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
grep -qE "records by status: ok 12( |$)" "$tmp/out" || { echo "not all 12 verified"; cat "$tmp/out" "$tmp/err"; exit 1; }
"$bartune" run gen/pipeline.lua $args $sel >"$tmp/out2" 2>"$tmp/err2" || exit 1
grep -q "0 measured, 12 already recorded" "$tmp/err2" || { echo "rerun measured again"; cat "$tmp/err2"; exit 1; }
[ "$(wc -l <"$tmp"/r/*/pipeline.jsonl)" = 12 ] || { echo "records duplicated"; exit 1; }
# every GPU of the machine (one is enough): the same records as one GPU
"$bartune" run gen/pipeline.lua --gpus all --size n=1000003 --results "$tmp/r2" --kernels "$tmp/k2" \
    --cache "$tmp/c" --no-emit $sel >"$tmp/out3" 2>"$tmp/err3" || { cat "$tmp/err3"; exit 1; }
diff <(grep -o '"id":"[0-9a-f]*"' "$tmp"/r/*/pipeline.jsonl | sort) \
    <(grep -o '"id":"[0-9a-f]*"' "$tmp"/r2/*/pipeline.jsonl | sort) >/dev/null ||
    { echo "--gpus all recorded other configurations"; cat "$tmp/err3"; exit 1; }
grep -qE "records by status: ok 12( |$)" "$tmp/out3" || { echo "--gpus all: not all 12 verified"; cat "$tmp/out3"; exit 1; }
# early rejection on the real runner: over 1.2 x the best so far, one timed
# launch; the best is never a rejected one
"$bartune" run gen/pipeline.lua --reject 1.2 --size n=1000003 --results "$tmp/r3" --kernels "$tmp/k3" \
    --cache "$tmp/c" --no-emit $sel >"$tmp/out4" 2>"$tmp/err4" || { cat "$tmp/err4"; exit 1; }
f=$(echo "$tmp"/r3/*/pipeline.jsonl)
grep '"rejected":true' "$f" | grep -qv '"timed_launches":1' && { echo "a rejected record timed more than once"; exit 1; }
awk -F'"median_ms":' '{ split($2, a, /[,}]/); if (n++ == 0 || a[1] < best) { best = a[1]; rej = $0 ~ /"rejected":true/ } }
    END { exit rej }' "$f" || { echo "the fastest record is a rejected one"; exit 1; }
echo "early rejection: $(grep -c '"rejected":true' "$f") of 12 rejected at 1.2x"
# the headers it emitted serve a program
bash "$root/tests/gpu_header.sh" "$nvcc" "$root" run "$tmp/k"
