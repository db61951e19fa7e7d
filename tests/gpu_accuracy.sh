#!/usr/bin/env bash
# The accuracy test never rejects a correct kernel (issue 17, class 1): the
# sgemm barrier and producer kinds (one tile shape) at every shape of the
# problem's tune list all verify, within the problem's accuracy; the
# worst RMS and maximum error (in units of an honest fp32 evaluation's)
# are printed. Its faults (TF32, a relative 1e-4) are gpu_faults'.
. "$(dirname "$0")/lib.sh" "$@"
kinds="bm=64 bn=128 bk=16 tm=8 tn=8 warp=tall stages=3 a_layout=m raster=row min_blocks=1 split=1 producer_warps=2"
# without a GPU too: the tile shape still names the ten kinds in the space as it is, and
# the cp.async kinds' tail = 3 and 4 (the last round's tiles split along K): 18 variants
# shellcheck disable=SC2086 # the kinds are words
listed=$("$bartune" list gen/sgemm.lua $kinds 2>&1 | tail -1)
grep -q "^18 variants" <<<"$listed" ||
    fail "the accuracy test's tile shape no longer names 10 kinds (18 variants) of gen/sgemm.lua: ${listed:0:300}"
# the kinds that split a shape's partly filled last round: stream_k (a register-rich kind)
# and tail with every warp loading (rows of tiles), one variant each; and tensor_b (B by the
# copy engine) with the register-rich consumers, at 4-byte-aligned check sizes through cp.async
splits=("barrier=mbarrier producer=cp_async producer_warps=4 bm=128 bn=128 bk=16 tm=8 tn=8 warp=wide stages=4
    a_layout=k raster=row fma_order=zigzag regs=setmaxnreg stream_k=1"
    "barrier=syncthreads loaders=all producer=cp_async bm=64 bn=256 bk=16 tm=8 tn=8 warp=wide stages=3 a_layout=k
    raster=row min_blocks=2 fma_order=zigzag tail=3"
    "barrier=mbarrier producer=tensor_b producer_warps=4 bm=128 bn=256 bk=8 tm=8 tn=16 warp=block stages=4
    a_layout=k raster=row fma_order=zigzag regs=setmaxnreg")
for sel in "${splits[@]}"; do
    # shellcheck disable=SC2086
    grep -q "^1 variants" <<<"$("$bartune" list gen/sgemm.lua $sel 2>&1 | tail -1)" ||
        fail "gen/sgemm.lua no longer names one variant of: $sel"
done
skip_without_gpu
# shellcheck disable=SC2086
"$bartune" run gen/sgemm.lua $kinds --reps 10 --timeout 5 --no-emit --results "$tmp/r" \
    --kernels "$tmp/k" >"$tmp/out" 2>&1 || fail "run failed: $(tail -5 "$tmp/out")"
f=$(ls "$tmp"/r/*/sgemm.jsonl)
n=$(grep -c '"status":"ok"' "$f")
bad=$(grep -v '"status":"ok"' "$f" | head -3 | cut -c1-400)
[ -z "$bad" ] || fail "correct sgemm kernels rejected: $bad"
[ "$n" = 144 ] || fail "expected 18 variants x 8 shapes = 144 ok records, got $n"
rms=$(grep -o '"error_rms":[0-9.e+-]*' "$f" | cut -d: -f2 | sort -g | tail -1)
max=$(grep -o '"error_max":[0-9.e+-]*' "$f" | cut -d: -f2 | sort -g | tail -1)
echo "144 of 144 sgemm kind-and-shape measurements verified; worst error_rms $rms (limit 1.5), error_max $max (limit 32)"
for sel in "${splits[@]}"; do
    # shellcheck disable=SC2086
    "$bartune" run gen/sgemm.lua $sel --reps 10 --timeout 5 --no-emit --results "$tmp/s" \
        --kernels "$tmp/k" >"$tmp/out" 2>&1 || fail "run $sel failed: $(tail -5 "$tmp/out")"
done
f=$(ls "$tmp"/s/*/sgemm.jsonl)
bad=$(grep -v '"status":"ok"' "$f" | head -3 | cut -c1-400)
[ -z "$bad" ] || fail "stream_k, tail (every warp loading) or tensor_b rejected: $bad"
n=$(grep -c '"status":"ok"' "$f")
[ "$n" = 24 ] || fail "expected 3 variants x 8 shapes = 24 ok records, got $n"
echo "stream_k, tail (every warp loading) and tensor_b (setmaxnreg): 24 of 24 verified at every shape"
