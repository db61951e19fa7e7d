#!/usr/bin/env bash
# The gemm_bf16 space without a GPU: it lists for sm_90 (Hopper kinds) and
# sm_80 (the plain kind alone); one variant of every kind renders and
# compiles for sm_90a, and its PTX holds its own instructions (wgmma, the
# bulk tensor copy, setmaxnreg, multicast, the ping-pong order, the TMA
# store, cluster reads of split-K) and none of another kind's. With "sass"
# (a GPU-machine test: cuobjdump is there), the machine code too: HGMMA,
# UTMALDG, and no FFMA main loop. Usage: gemm_bf16_space.sh BARTUNE ROOT NVCC [sass]
set -u
bartune=$1 root=$2 nvcc=$3 mode=${4:-ptx}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
if [ "$mode" = sass ] && ! command -v cuobjdump >/dev/null; then echo "no cuobjdump"; exit 77; fi
fail=0
n=$("$bartune" list gen/gemm_bf16.lua --arch sm_90 | tail -1 | grep -o '^[0-9]*')
[ "${n:-0}" -ge 1000 ] || { echo "list --arch sm_90: ${n:-no} variants"; fail=1; }
"$bartune" list gen/gemm_bf16.lua --arch sm_80 | grep -q '^kind=simt$' || { echo "sm_80: not the plain kind alone"; fail=1; }
# kinds that hold two stages while they wait for a third deadlock on a ring of
# two (overlap = two hung on the H200): the space has none of them
for held in "overlap=two" "inflight=2"; do
    "$bartune" list gen/gemm_bf16.lua --arch sm_90 $held stages=2 >"$tmp/held" 2>&1 &&
        { echo "$held with two stages is in the space"; fail=1; }
    grep -q "${held%%=*} = ${held#*=} holds .* three stages or more" "$tmp/held" ||
        { echo "$held stages=2: $(tail -1 "$tmp/held")"; fail=1; }
done
# one warpgroup's scratch_split (clusters along M): spread only; the last CTA summing alone lost
"$bartune" list gen/gemm_bf16.lua --arch sm_90 consumers=1 cluster=2 grid=tile epilogue=direct \
    scratch_split=16 scratch_sum=last >"$tmp/last" 2>&1 && { echo "one warpgroup's scratch_sum=last is in the space"; fail=1; }
grep -q "one warpgroup's scratch_split (clusters along M): scratch_sum = spread" "$tmp/last" ||
    { echo "consumers=1 scratch_sum=last: $(tail -1 "$tmp/last")"; fail=1; }
# check NAME FILE MUST... -- MUSTNOT...
. "$root/tests/has_patterns.sh"
check() { has_patterns "$@"; }
base="kind=wgmma bn=128 wm=64 stages=4 raster=grouped"
kinds=(
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=direct"
    "consumers=2 schedule=cooperative producer=warpgroup regs=none cluster=1 grid=tile epilogue=tma"
    "consumers=2 schedule=pingpong order=named producer=warp cluster=1 grid=persistent epilogue=direct"
    "consumers=2 schedule=pingpong order=mbarrier producer=warpgroup regs=setmaxnreg cluster=2 grid=tile epilogue=tma"
    "consumers=2 schedule=cooperative producer=warp cluster=1 grid=tile epilogue=direct split=4"
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct split_one=4"
    "consumers=2 schedule=cooperative producer=warp cluster=1 grid=persistent epilogue=direct c_early=l2"
    "consumers=2 schedule=pingpong order=mbarrier producer=warp cluster=1 grid=persistent epilogue=direct c_early=regs"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=tma_store"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=tma_store c_ahead=tile c_early=l2"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=1 grid=persistent epilogue=tma_store c_ahead=box c_early=late c_lead=16"
    "consumers=2 schedule=cooperative producer=warp cluster=1 grid=tile epilogue=direct split=1 scratch_split=8"
    "consumers=2 schedule=cooperative producer=warpgroup regs=none cluster=1 grid=tile epilogue=direct split=1 scratch_split=16 scratch_sum=spread"
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct split_one=4 split_scratch=2 raster=row"
    # split_scratch at 12 stages (~200 KB in flight), in pairs of CTAs
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct split_one=2 split_scratch=4 raster=row stages=12 bn=64"
    "consumers=1 producer=warp cluster=4 grid=tile epilogue=direct"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=tma_store c_early=late overlap=on"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=1 grid=persistent epilogue=tma_store c_early=off overlap=on stream_k=on"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=tma_store c_early=late inflight=2"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 cluster_n=2 grid=persistent epilogue=tma_store c_early=late overlap=two"
    "consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent epilogue=tma_store c_early=off overlap=two"
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct split_one=4 raster=row fences=light"
    "consumers=2 schedule=cooperative producer=warp cluster=1 cluster_n=2 grid=persistent epilogue=tma stages=8 raster=row bn=64 fences=light"
    # split-K with A multicast along N: 2 tiles x 8 slices in a non-portable
    # cluster of 16; two warpgroups, 2 x 2, sums through scratch too
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=direct split_one=8 cluster_n=2 raster=row stages=8 bn=64 wm=128 fences=light"
    "consumers=2 schedule=cooperative producer=warp cluster=1 grid=tile epilogue=direct split=2 cluster_n=2 split_scratch=4 raster=row bn=64"
    # one warpgroup's 128 x 64 tiles of a tile grid in pairs along N (cuBLAS's 1024^3 geometry)
    "consumers=1 producer=warp cluster=1 grid=tile epilogue=tma cluster_n=2 raster=row stages=8 bn=64 wm=128"
    # one warpgroup's tiles in pairs along M sharing B, split-K summed by every CTA (spread)
    "consumers=1 producer=warp cluster=2 grid=tile epilogue=direct scratch_split=16 scratch_sum=spread raster=row stages=8 bn=64 wm=128 fences=light"
)
i=0
for kind in "${kinds[@]}"; do
    i=$((i + 1))
    sel="$base $kind"
    "$bartune" render gen/gemm_bf16.lua $sel >"$tmp/$i.cu" 2>"$tmp/$i.err" ||
        { echo "render $sel: $(cat "$tmp/$i.err")"; fail=1; continue; }
    gen="-gencode=arch=compute_90a,code=sm_90a"
    "$nvcc" -cubin $gen -std=c++17 -O3 -Xptxas -v -o "$tmp/$i.cubin" "$tmp/$i.cu" 2>"$tmp/$i.log" ||
        { echo "nvcc sm_90a: $sel"; cat "$tmp/$i.log"; fail=1; continue; }
    # c_early = regs holds C's old values beside the accumulators: the space
    # allows it only where ptxas keeps them all in registers; tma_store's
    # boxes (also with C's old values loaded boxes ahead: c_ahead), with
    # setmaxnreg's registers, and scratch_split's and split_scratch's sums spill
    # nothing either
    # a wgmma left in flight across a branch on the thread, or with too few
    # registers, makes ptxas serialise every wgmma of the kernel (C7511, C7518)
    ! grep -q "wgmma.mma_async instructions are serialized" "$tmp/$i.log" || { echo "serialized wgmmas: $sel"; grep serialized "$tmp/$i.log"; fail=1; }
    case $kind in
    *c_early=regs* | *epilogue=tma_store* | *scratch_split=* | *split_scratch=*) grep -q " 0 bytes spill stores" "$tmp/$i.log" || { echo "spills: $sel"; cat "$tmp/$i.log"; fail=1; } ;;
    esac
    "$nvcc" -ptx -arch=compute_90a -std=c++17 -O3 -o "$tmp/$i.ptx" "$tmp/$i.cu" || { fail=1; continue; }
    n=128  # the tile's columns: wgmma's N
    case $kind in *bn=64*) n=64 ;; esac
    check "$sel" "$tmp/$i.ptx" "wgmma\\.mma_async\\.sync\\.aligned\\.m64n${n}k16\\.f32\\.bf16\\.bf16" \
        'cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global' 'mbarrier\.try_wait\.parity' 'expect_tx'
    case $kind in
    *setmaxnreg*) check "$sel" "$tmp/$i.ptx" 'setmaxnreg\.inc' 'setmaxnreg\.dec' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'setmaxnreg' ;;
    esac
    case $kind in
    # split-K slices sharing A: multicast and the sums read across the cluster
    *split_one=8*cluster_n=2*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'ld\.shared::cluster\.v4\.f32' 'reqnctapercluster 16' ;;
    *split=2*cluster_n=2*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'ld\.shared::cluster\.v4\.f32' 'reqnctapercluster 4' ;;
    *cluster=2*cluster_n=2*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'mapa' 'reqnctapercluster 4' ;;  # 2 x 2: A and B multicast
    *cluster_n=2*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'mapa' 'reqnctapercluster 2' ;;  # 1 x 2: A multicast
    *cluster=2*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'mapa' 'reqnctapercluster 2' ;;
    # four CTAs, two boxes of B: each loads half a box's rows (b_rows)
    *cluster=4*) check "$sel" "$tmp/$i.ptx" 'multicast::cluster' 'mapa' 'reqnctapercluster 4' ;;
    *split=4* | *split_one=4*) check "$sel" "$tmp/$i.ptx" 'ld\.shared::cluster\.v4\.f32' 'reqnctapercluster 4' -- 'multicast' ;;
    *split_one=2*) check "$sel" "$tmp/$i.ptx" 'ld\.shared::cluster\.v4\.f32' 'reqnctapercluster 2' -- 'multicast' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'multicast' 'ld\.shared::cluster' ;;
    esac
    case $kind in
    *overlap=on* | *overlap=two*) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk\.tensor\.2d\.global\.shared::cta' 'fence\.proxy\.async' \
        'cp\.async\.bulk\.wait_group\.read 0' 'stmatrix\.sync\.aligned\.m8n8\.x4' ;;
    *epilogue=tma_store*) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk\.tensor\.2d\.global\.shared::cta' 'fence\.proxy\.async' \
        'cp\.async\.bulk\.wait_group\.read 0' ;;
    *epilogue=tma*) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk\.tensor\.2d\.global\.shared::cta' 'fence\.proxy\.async' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'cp\.async\.bulk\.tensor\.2d\.global\.shared::cta' ;;
    esac
    # stream-K: a piece's sums in scratch, a flag raised (exchange) and waited for (acquire),
    # then lowered by its waiter (scratch_zero_kept)
    case $kind in
    *stream_k=on*) check "$sel" "$tmp/$i.ptx" 'atom\.global\.exch\.b32' 'ld\.acquire\.gpu\.global\.u32' 'ld\.global\.cg\.v4\.f32' ;;
    # scratch_sum = spread: a tile's CTAs count themselves in and wait for each other,
    # then count again up to where the count wraps to zero (scratch_zero_kept)
    *scratch_sum=spread*) check "$sel" "$tmp/$i.ptx" 'atom\.global\.add\.u32' 'ld\.acquire\.gpu\.global\.u32' \
        'atom\.global\.inc\.u32' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'ld\.acquire\.gpu' ;;
    esac
    # inflight = 2: the main loop waits with two wgmma groups still in flight
    case $kind in
    *inflight=2*) check "$sel" "$tmp/$i.ptx" 'wgmma\.wait_group\.sync\.aligned 2' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'wgmma\.wait_group\.sync\.aligned 2' ;;
    esac
    # split-K through scratch: a counter per tile (per row slice of the
    # cluster's sums: split_scratch) that wraps to zero at the last count
    # (atomicInc: scratch_zero_kept), the slices' sums read from L2
    case $kind in
    *scratch_sum=spread*) ;;
    *scratch_split=* | *split_scratch=*) check "$sel" "$tmp/$i.ptx" 'atom\.global\.inc\.u32' 'ld\.global\.cg\.v4\.f32' \
        -- 'atom\.global\.add\.u32' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'atom\.global\.(add|inc)\.u32' ;;
    esac
    # C's lines asked of L2 ahead: c_early = l2 as a tile starts, split-K
    # (split, split_one > 1) for the row slice its reduce stores
    case $kind in
    *c_early=l2* | *" split="[248]* | *split_one=[248]*) check "$sel" "$tmp/$i.ptx" 'prefetch\.global\.L2' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'prefetch\.global\.L2' ;;
    esac
    case $kind in
    *c_early=late*) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk\.prefetch\.tensor\.2d\.L2' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'cp\.async\.bulk\.prefetch' ;;
    esac
    # fences = light: relaxed cluster barriers at the ends (split-K's sums
    # still released between them), the producer's tail where CTAs multicast,
    # the copy engine's stores of C waited for until read
    case $kind in
    *split_one=[48]*fences=light*) check "$sel" "$tmp/$i.ptx" 'barrier\.cluster\.arrive\.relaxed' 'barrier\.cluster\.arrive\.release' ;;
    *fences=light*) check "$sel" "$tmp/$i.ptx" 'barrier\.cluster\.arrive\.relaxed' \
        -- 'barrier\.cluster\.arrive\.release' 'cp\.async\.bulk\.wait_group 0' ;;
    *cluster=1*) check "$sel" "$tmp/$i.ptx" -- 'barrier\.cluster\.arrive\.relaxed' ;;
    *) check "$sel" "$tmp/$i.ptx" 'barrier\.cluster\.arrive\.release' -- 'barrier\.cluster\.arrive\.relaxed' ;;
    esac
    case $kind in
    *order=named*) check "$sel" "$tmp/$i.ptx" 'bar\.arrive' ;;
    *) check "$sel" "$tmp/$i.ptx" -- 'bar\.arrive' ;;
    esac
    if [ "$mode" = sass ]; then
        cuobjdump -sass "$tmp/$i.cubin" >"$tmp/$i.sass"
        check "$sel" "$tmp/$i.sass" "HGMMA\\.64x${n}x16" 'UTMALDG' 'SYNCS'
    fi
done
# a cluster splits B's 64-column boxes, or each box's rows, evenly: no
# 192-column tiles (3 boxes) in clusters of 2 or 4, 64-column ones in 4 (16
# rows of a box each; the template's static_asserts refuse the rest at
# compile time), and no split rows beside cluster_n
"$bartune" list gen/gemm_bf16.lua --arch sm_90 | grep -E '^kind=.* cluster=[24]' >"$tmp/c4.txt"
grep -q ' bn=64 .* cluster=4 ' "$tmp/c4.txt" && ! grep -q ' bn=192 ' "$tmp/c4.txt" &&
    ! grep -E ' bn=(64|128) .*cluster=4 .*cluster_n=2| bn=64 .*cluster=2 .*cluster_n=2' "$tmp/c4.txt" | grep -q . ||
    { echo "clusters and B's boxes: $(grep -m2 -E ' bn=192 |cluster_n=2' "$tmp/c4.txt")"; fail=1; }
# cluster_n under split-K, launched (fake runner) at 256 x 256 x 16384: 2 x 4
# tiles of 128 x 64 in units of 2 along N. split_one = 8: 4 units x 16 CTAs,
# a cluster of 16 that launch() declares (non-portable); x split_scratch = 4:
# 4 units x 8 CTAs a grid row, 4 rows, scratch of a counter each (one
# 256-byte line) and 4 slots of a 32 x 64 fp32 slice each
geo() { # SELECTION: the record's geometry as "grid cluster scratch"
    rm -rf "$tmp/gr"
    "$bartune" run gen/gemm_bf16.lua kind=wgmma bn=64 wm=128 consumers=1 producer=warp stages=8 \
        grid=tile raster=row epilogue=direct fences=light "$@" --size M=256 --size N=256 --size K=16384 \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/gr" --no-emit --cache "$tmp/gc" >"$tmp/gr.log" 2>&1 ||
        { echo "fake run $*: $(tail -3 "$tmp/gr.log")"; return; }
    python3 -c 'import json, sys
r = json.loads(open(sys.argv[1]).readline()); g = r["geometry"]
print(r["status"], g["grid"], g.get("cluster"), g.get("scratch"))' "$tmp"/gr/*/gemm_bf16.jsonl
}
g=$(geo cluster=1 cluster_n=2 split_one=8)
[ "$g" = "ok [64, 1, 1] 16 None" ] || { echo "split_one=8 cluster_n=2 launched as: $g"; fail=1; }
g=$(geo cluster=1 cluster_n=2 split_one=4 split_scratch=4)
[ "$g" = "ok [32, 4, 1] None 1048832" ] || { echo "split_one=4 split_scratch=4 cluster_n=2 launched as: $g"; fail=1; }
# pairs along M x scratch_split = 16, spread: 1 x 4 units of 2 tiles, each
# tile's 16 CTAs in a row of pairs (1-D: 128 CTAs), a counter a tile (one
# line) and 16 slots of 128 x 64 fp32 a tile
g=$(geo cluster=2 scratch_split=16 scratch_sum=spread)
[ "$g" = "ok [128, 1, 1] None 4194560" ] || { echo "cluster=2 scratch_split=16 spread launched as: $g"; fail=1; }
# c_ahead holds boxes of C's old values beside the accumulators: a one-warp
# producer's kernels spill with it (128 x 256), so they are not offered it
"$bartune" list gen/gemm_bf16.lua --arch sm_90 c_ahead=tile producer=warp bn=256 wm=64 consumers=2 >"$tmp/ahead.txt" 2>&1
! grep -q '^kind=' "$tmp/ahead.txt" || { echo "c_ahead with a one-warp producer at 128 x 256: $(head -1 "$tmp/ahead.txt")"; fail=1; }
# gemm_bf16_f32c (the space extended, C in fp32): only the direct epilogue;
# its kernels store C as float pairs and convert nothing to bf16
"$bartune" list gen/gemm_bf16_f32c.lua --arch sm_90 >"$tmp/f32c.txt" || { echo "f32c: list failed"; fail=1; }
! grep -qE 'epilogue=tma|c_early=regs' "$tmp/f32c.txt" && grep -q 'epilogue=direct' "$tmp/f32c.txt" ||
    { echo "f32c: epilogues other than direct, or none: $(grep -m1 -E 'epilogue=tma|c_early=regs' "$tmp/f32c.txt")"; fail=1; }
for sel in "bn=128 wm=64 stages=4 raster=grouped consumers=2 schedule=cooperative producer=warpgroup regs=setmaxnreg cluster=2 grid=persistent c_early=l2" \
    "bn=64 wm=64 stages=4 raster=row consumers=2 schedule=cooperative producer=warp cluster=1 grid=tile split=8"; do
    sel="kind=wgmma epilogue=direct $sel"
    "$bartune" render gen/gemm_bf16_f32c.lua $sel >"$tmp/f.cu" &&
        "$nvcc" -cubin -gencode=arch=compute_90a,code=sm_90a -std=c++17 -O3 -Xptxas -v -o "$tmp/f.cubin" "$tmp/f.cu" 2>"$tmp/f.log" &&
        grep -q " 0 bytes spill stores" "$tmp/f.log" &&
        "$nvcc" -ptx -arch=compute_90a -std=c++17 -O3 -o "$tmp/f.ptx" "$tmp/f.cu" ||
        { echo "f32c $sel: render, compile or spills: $(cat "$tmp/f.log")"; fail=1; continue; }
    check "f32c $sel" "$tmp/f.ptx" 'st\.global\.v2\.f32' 'wgmma\.mma_async' -- 'cvt\.rn\.bf16' 'st\.global\.b16'
done
"$bartune" render gen/gemm_bf16_f32c.lua kind=simt --arch sm_80 >"$tmp/fs.cu" &&
    "$nvcc" -ptx -arch=sm_80 -std=c++17 -o "$tmp/fs.ptx" "$tmp/fs.cu" || { echo "f32c simt"; fail=1; }
check "f32c kind=simt" "$tmp/fs.ptx" 'st\.global\.f32' -- 'cvt\.rn\.bf16' 'st\.global\.b16'
# the problems' cuBLAS baselines build as bench builds them (C bf16, C fp32)
for bl in cublas_baseline cublas_baseline_f32c; do
    "$nvcc" -shared -Xcompiler=-fPIC -O2 -arch=sm_90 -Itemplates -o "$tmp/$bl.so" "templates/gemm_bf16/$bl.cu" \
        -lcublas >"$tmp/bl.log" 2>&1 || { echo "$bl: $(cat "$tmp/bl.log")"; fail=1; }
done
# the plain kind: any GPU, no Hopper instruction
"$bartune" render gen/gemm_bf16.lua kind=simt --arch sm_80 >"$tmp/simt.cu" || fail=1
for arch in sm_75 sm_80; do
    "$nvcc" -ptx -arch=$arch -std=c++17 -o "$tmp/simt.$arch.ptx" "$tmp/simt.cu" || { echo "simt $arch"; fail=1; }
done
check "kind=simt" "$tmp/simt.sm_80.ptx" 'fma\.rn\.f32' -- 'wgmma' 'cp\.async\.bulk'
[ $fail = 0 ] && echo "gemm_bf16: $i Hopper kinds render, compile for sm_90a and hold their instructions ($mode); the plain kind for sm_75/80; gemm_bf16_f32c's kernels store fp32"
exit $fail
