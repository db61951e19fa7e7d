#!/usr/bin/env bash
# Every variant of a small space compiles for sm_90, and a second compile
# takes every cubin from the cache (keys are content hashes).
set -eu
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4"
"$bartune" compile gen/pipeline.lua --arch sm_90 --cache "$tmp" $sel >"$tmp/out1" 2>"$tmp/err1"
grep -q "12 variants compiled for sm_90, 0 failed" "$tmp/out1" || { cat "$tmp/out1" "$tmp/err1"; exit 1; }
# twelve distinct keys (syncthreads x form, named, cuda_barrier x form... with
# regs/cp_async, bulk x release), one cubin each
[ "$(awk '/^ok /{print $2}' "$tmp/out1" | sort -u | wc -l)" = 12 ] || { echo "keys not distinct"; exit 1; }
[ "$(ls "$tmp"/*.cubin | wc -l)" = 12 ] || { echo "expected 12 cubins"; exit 1; }
# ptxas' report is parsed: registers are never 0 for these kernels
! grep -q "regs=0 " "$tmp/out1" || { echo "registers not parsed"; exit 1; }
"$bartune" compile gen/pipeline.lua --arch sm_90 --cache "$tmp" $sel >"$tmp/out2" 2>"$tmp/err2"
[ "$(grep -c "(cached)" "$tmp/err2")" = 12 ] || { echo "second compile was not all cached"; cat "$tmp/err2"; exit 1; }
diff <(awk '{print $2}' "$tmp/out1") <(awk '{print $2}' "$tmp/out2") >/dev/null || { echo "keys changed"; exit 1; }
# a different architecture is a different key
"$bartune" compile gen/pipeline.lua --arch sm_80 --cache "$tmp" $sel producer=regs >"$tmp/out3" 2>/dev/null
! grep -q "(cached)" "$tmp/out3"
echo "ok"
