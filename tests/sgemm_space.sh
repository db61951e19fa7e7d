#!/usr/bin/env bash
# The sgemm space without a GPU: it lists for sm_90 and sm_80, and one
# variant of every barrier kind x producer kind x A layout renders and
# compiles for both; each kind's PTX holds its own instructions and none of
# another kind's.
set -u
bartune=$1 root=$2 nvcc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fail=0
for arch in sm_90 sm_80; do
    n=$("$bartune" list gen/sgemm.lua --arch $arch | tail -1 | grep -o '^[0-9]*')
    [ "${n:-0}" -ge 1000 ] || { echo "list --arch $arch: ${n:-no} variants"; fail=1; }
done
kinds=("barrier=syncthreads loaders=all" "barrier=syncthreads loaders=producers producer_warps=2"
    "barrier=named producer_warps=2" "barrier=cuda_barrier producer_warps=4"
    "barrier=mbarrier producer_warps=4" "barrier=mbarrier producer_warps=2")
# check NAME PTX MUST... -- MUSTNOT...
. "$root/tests/has_patterns.sh"
check() { has_patterns "$@"; }
i=0
for kind in "${kinds[@]}"; do
    for producer in regs cp_async bulk tensor_b; do
        for layout in k m; do
            case $producer/$kind/$layout in bulk/*mbarrier*/m | tensor_b/*mbarrier*) ;; bulk/* | tensor_b/*) continue ;; esac
            stages=3
            [ $producer = regs ] && stages=2
            sel="$kind producer=$producer a_layout=$layout bm=128 bn=64 bk=16 tm=8 tn=8 warp=block stages=$stages raster=grouped min_blocks=1"
            i=$((i + 1))
            "$bartune" render gen/sgemm.lua $sel >"$tmp/$i.cu" 2>"$tmp/$i.err" ||
                { echo "render $sel: $(cat "$tmp/$i.err")"; fail=1; continue; }
            for arch in sm_90 sm_80; do
                "$nvcc" -cubin -arch=$arch -std=c++17 -O3 -o "$tmp/$i.$arch.cubin" "$tmp/$i.cu" 2>"$tmp/$i.log" ||
                    { echo "nvcc $arch: $sel"; cat "$tmp/$i.log"; fail=1; }
            done
            [ $layout = k ] || [ $producer = bulk ] || [ $producer = tensor_b ] || continue # the PTX of a kind does not hang on the layout
            "$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/$i.ptx" "$tmp/$i.cu" || { fail=1; continue; }
            case $producer in
            bulk) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk' 'expect_tx' ;;
            cp_async) check "$sel" "$tmp/$i.ptx" 'cp\.async' -- 'cp\.async\.bulk' ;;
            # B's box by the copy engine (a map parameter), A by cp.async, the box's bytes announced
            tensor_b) check "$sel" "$tmp/$i.ptx" 'cp\.async\.bulk\.tensor\.2d' 'mbarrier\.expect_tx' 'cp\.async\.ca' \
                '\.param \.align 128 \.b8 .*_param_11\[128\]' -- 'cp\.async\.bulk\.shared' ;;
            regs) check "$sel" "$tmp/$i.ptx" -- 'cp\.async' ;;
            esac
            case $kind in
            *mbarrier*) check "$sel" "$tmp/$i.ptx" 'mbarrier\.try_wait' -- 'bar\.arrive' ;;
            *named*) check "$sel" "$tmp/$i.ptx" 'bar\.arrive' 'bar\.sync' -- 'mbarrier' ;;
            *cuda_barrier*) check "$sel" "$tmp/$i.ptx" 'mbarrier' -- 'bar\.arrive' ;;
            *syncthreads*) check "$sel" "$tmp/$i.ptx" 'bar\.sync' -- 'mbarrier' 'bar\.arrive' ;;
            esac
        done
    done
done
# split-K: a cluster of blocks per tile, summed in distributed shared memory
for kind in "barrier=syncthreads loaders=all producer=cp_async a_layout=k stages=3" \
    "barrier=mbarrier producer_warps=2 producer=bulk a_layout=m stages=3"; do
    i=$((i + 1))
    sel="$kind bm=128 bn=64 bk=16 tm=8 tn=8 warp=block raster=row min_blocks=1 split=4"
    "$bartune" render gen/sgemm.lua $sel >"$tmp/$i.cu" 2>"$tmp/$i.err" || { echo "render $sel: $(cat "$tmp/$i.err")"; fail=1; continue; }
    for arch in sm_90 sm_80; do
        "$nvcc" -cubin -arch=$arch -std=c++17 -O3 -o "$tmp/$i.$arch.cubin" "$tmp/$i.cu" 2>"$tmp/$i.log" ||
            { echo "nvcc $arch: $sel"; cat "$tmp/$i.log"; fail=1; }
    done
    "$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/$i.ptx" "$tmp/$i.cu" || { fail=1; continue; }
    check "$sel" "$tmp/$i.ptx" 'reqnctapercluster 1, 1, 4' 'barrier\.cluster\.wait' 'mapa'
done
# A parameter declared with a default after the records: SEL with P=DEFAULT
# renders as SEL alone (the records stay current), P=OTHER renders and
# compiles without spills. Leaves $tmp/P_DEFAULT.cu and $tmp/P_OTHER.cu.
twin_renders() { # P DEFAULT OTHER SEL...
    local p=$1 d=$2 o=$3 v
    shift 3
    for v in "$d" "$o"; do
        "$bartune" render gen/sgemm.lua "$@" "$p=$v" >"$tmp/${p}_$v.cu" 2>"$tmp/$p.err" ||
            { echo "render $p=$v: $(cat "$tmp/$p.err")"; fail=1; }
    done
    "$bartune" render gen/sgemm.lua "$@" >"$tmp/${p}_none.cu" 2>/dev/null
    cmp -s "$tmp/${p}_$d.cu" "$tmp/${p}_none.cu" || { echo "$p=$d renders otherwise than the default"; fail=1; }
    "$nvcc" -cubin -arch=sm_90 -std=c++17 -O3 -Xptxas -v -o "$tmp/$p.cubin" "$tmp/${p}_$o.cu" 2>"$tmp/$p.log" &&
        ! grep -q 'bytes spill stores' <(grep -v ' 0 bytes spill stores' "$tmp/$p.log") ||
        { echo "$p=$o: nvcc failed or spills"; cat "$tmp/$p.log"; fail=1; }
}
# fma_order: zigzag renders only the FMA loop differently
twin_renders fma_order rows zigzag barrier=syncthreads loaders=all producer=cp_async bm=64 bn=256 bk=32 tm=8 tn=8 \
    warp=tall stages=2 a_layout=k raster=row min_blocks=2 frag=k4
changed=$(diff "$tmp/fma_order_rows.cu" "$tmp/fma_order_zigzag.cu" | grep -c '^[<>]')
{ [ "$changed" -ge 2 ] && [ "$changed" -le 8 ] && grep -q 'kTN - 1 - jj' "$tmp/fma_order_zigzag.cu"; } ||
    { echo "fma_order=zigzag: $changed lines differ from rows (want the FMA loop alone)"; fail=1; }
# scratch_sum: spread counts its block in and waits for the tile's with an
# acquire load (the tall-K best's last needs 168 registers and spills)
twin_renders scratch_sum last spread barrier=mbarrier producer=cp_async producer_warps=2 bm=64 bn=64 bk=16 tm=8 tn=4 \
    stages=4 a_layout=m raster=row min_blocks=2 scratch_split=16
"$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/sum.ptx" "$tmp/scratch_sum_spread.cu" || { echo "nvcc -ptx: scratch_sum=spread"; fail=1; }
check "scratch_sum=spread" "$tmp/sum.ptx" 'atom\.global\.add\.u32' 'ld\.acquire\.gpu\.global\.u32' 'atom\.global\.inc\.u32'
# last: the last block's count wraps the counter to zero for the next launch (scratch_zero_kept)
"$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/last.ptx" "$tmp/scratch_sum_last.cu" || { echo "nvcc -ptx: scratch_sum=last"; fail=1; }
check "scratch_sum=last" "$tmp/last.ptx" 'atom\.global\.inc\.u32' -- 'atom\.global\.add\.u32'
# regs = setmaxnreg: the producer warpgroup gives registers to the consumers
# (sm_90a): regs=none renders as before; built for sm_90a the PTX holds both
# instructions and the 8 x 16 consumers of 128 x 256 tiles do not spill;
# built for plain sm_90 (a header in a program without the sm_90a flags) it
# holds neither. bartune compile builds that variant, alone, for sm_90a.
twin_renders regs none setmaxnreg barrier=mbarrier producer=cp_async producer_warps=4 bm=128 bn=128 bk=16 tm=8 tn=8 \
    warp=tall stages=3 a_layout=k raster=row min_blocks=1
rich="barrier=mbarrier producer=cp_async producer_warps=4 bm=128 bn=256 bk=16 tm=8 tn=16 warp=wide stages=4 a_layout=k raster=grouped fma_order=zigzag tail=1 stream_k=0"
"$bartune" render gen/sgemm.lua $rich regs=setmaxnreg >"$tmp/rich.cu" || { echo "render $rich regs=setmaxnreg"; fail=1; }
! "$bartune" render gen/sgemm.lua $rich regs=none >/dev/null 2>&1 || { echo "$rich fits 168 registers without setmaxnreg?"; fail=1; }
"$nvcc" -ptx -gencode=arch=compute_90a,code=sm_90a -std=c++17 -o "$tmp/rich.ptx" "$tmp/rich.cu" &&
    "$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/rich_plain.ptx" "$tmp/rich.cu" || { echo "nvcc -ptx: $rich"; fail=1; }
check "regs=setmaxnreg (sm_90a)" "$tmp/rich.ptx" 'setmaxnreg\.dec\.sync\.aligned\.u32 112' 'setmaxnreg\.inc\.sync\.aligned\.u32 192'
check "regs=setmaxnreg (plain sm_90)" "$tmp/rich_plain.ptx" -- 'setmaxnreg'
"$bartune" compile gen/sgemm.lua $rich --cache "$tmp/cache" >"$tmp/rich.out" 2>&1 &&
    grep -q ' spills=0/0 arch=sm_90a .*regs=setmaxnreg' "$tmp/rich.out" &&
    grep -q '1 variants compiled for sm_90 (1 of them for sm_90a, its own features), 0 failed' "$tmp/rich.out" &&
    grep -q "for 'sm_90a'" "$tmp"/cache/*.log || { echo "compile $rich:"; cat "$tmp/rich.out"; fail=1; }
# tail: tail=1 renders as before; a tail variant runs whole tiles and slices
# on paths of their own and syncs its consumers on named barrier 15
twin_renders tail 1 3 barrier=mbarrier producer=cp_async producer_warps=4 bm=64 bn=128 bk=16 tm=8 tn=8 \
    warp=block stages=4 a_layout=k raster=grouped min_blocks=2 fma_order=zigzag
"$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/tail.ptx" "$tmp/tail_3.cu" || { echo "nvcc -ptx: tail=3"; fail=1; }
check "tail=3" "$tmp/tail.ptx" 'bar\.sync\s+15, 128' 'atom(\.global)?\.inc\.u32' 'mov\.u32\s+%r[0-9]+, %nctaid\.x'
# stream_k: 0 renders as before; a stream_k variant reads its share-out back
# from the grid (rows of whole tiles in y), counts a shared tile's parts and
# sums them on its consumers' named barrier 15
sk="barrier=mbarrier producer=cp_async producer_warps=4 bm=128 bn=256 bk=8 tm=8 tn=16 warp=block stages=4 a_layout=k
    raster=row fma_order=zigzag regs=setmaxnreg tail=1"
"$bartune" render gen/sgemm.lua $sk stream_k=0 >"$tmp/sk0.cu" && "$bartune" render gen/sgemm.lua $sk >"$tmp/sk.cu" 2>/dev/null &&
    cmp -s "$tmp/sk0.cu" "$tmp/sk.cu" || { echo "stream_k=0 renders otherwise than the default"; fail=1; }
"$bartune" render gen/sgemm.lua $sk stream_k=1 >"$tmp/sk1.cu" &&
    "$nvcc" -ptx -gencode=arch=compute_90a,code=sm_90a -std=c++17 -o "$tmp/sk1.ptx" "$tmp/sk1.cu" || { echo "stream_k=1"; fail=1; }
check "stream_k=1" "$tmp/sk1.ptx" 'bar\.sync\s+15, 256' 'atom(\.global)?\.inc\.u32' 'mov\.u32\s+%r[0-9]+, %nctaid\.y' \
    'setmaxnreg\.inc\.sync\.aligned\.u32 192'
# every warp loading: whole rows of tiles by blockIdx.y, the last rows split
"$bartune" render gen/sgemm.lua barrier=syncthreads loaders=all producer=cp_async bm=64 bn=256 bk=32 tm=8 tn=8 \
    warp=tall stages=2 a_layout=k raster=row min_blocks=2 fma_order=zigzag tail=3 >"$tmp/rows.cu" &&
    "$nvcc" -ptx -arch=sm_90 -std=c++17 -o "$tmp/rows.ptx" "$tmp/rows.cu" || { echo "tail=3, loaders=all"; fail=1; }
check "tail=3 (loaders=all)" "$tmp/rows.ptx" 'bar\.sync\s+15, 256' 'mov\.u32\s+%r[0-9]+, %nctaid\.y'
[ $fail = 0 ] && echo "sgemm: $i variants of every kind render and compile for sm_90 and sm_80"
exit $fail
