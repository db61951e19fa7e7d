#!/usr/bin/env bash
# The sgemm space's thread mappings on the host (tests/sgemm/cover.cu, no
# GPU): for the whole-tile mapping and both warp tiles, at the tile shapes
# the space holds, every element of the block tile belongs to one consumer
# thread, a warp tile's warp stays within it, and no float4 read of a stage
# has a bank conflict; a warp tile reads fewer distinct bytes of a stage
# per k than the whole-tile mapping of the same tile.
set -u
bartune=$1 root=$2 nvcc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fail=0
i=0
for tile in "bm=64 bn=64" "bm=128 bn=128" "bm=64 bn=256" "bm=128 bn=256"; do
    for threads in "tm=8 tn=8 warp=block" "tm=8 tn=8 warp=wide" "tm=8 tn=8 warp=tall" "tm=4 tn=4" \
        "tm=8 tn=16 warp=block" "tm=8 tn=16 warp=wide" "tm=8 tn=16 warp=tall"; do
        for layout in k m; do
            sel="barrier=syncthreads loaders=all producer=cp_async $tile bk=16 $threads stages=3 a_layout=$layout raster=row"
            i=$((i + 1))
            if ! "$bartune" render gen/sgemm.lua $sel >"$tmp/v$i.cu" 2>"$tmp/err"; then
                grep -q "the constraints leave no variant" "$tmp/err" || { echo "render $sel: $(cat "$tmp/err")"; fail=1; }
                i=$((i - 1)) # not in the space
                continue
            fi
            "$nvcc" -arch=sm_90 -std=c++17 -DVARIANT="\"$tmp/v$i.cu\"" -o "$tmp/cover" tests/sgemm/cover.cu 2>"$tmp/err" ||
                { echo "build $sel:"; cat "$tmp/err"; fail=1; continue; }
            out=$("$tmp/cover") || { echo "$sel: $out"; fail=1; continue; }
            echo "$layout-major A: $out" >>"$tmp/all"
        done
    done
done
cat "$tmp/all"
# a warp tile reads fewer distinct bytes per k than the whole-tile mapping
for layout in k; do
    block=$(grep "^$layout-major A: 128x128 tile, threads 8x8, groups 128x128" "$tmp/all" | grep -o '[0-9]* distinct')
    wide=$(grep "^$layout-major A: 128x128 tile, threads 8x8, groups 32x64" "$tmp/all" | grep -o '[0-9]* distinct')
    [ -n "$block" ] && [ -n "$wide" ] && [ "${wide% *}" -lt "${block% *}" ] ||
        { echo "128x128: the wide warp tile reads ${wide:-?}, the whole-tile mapping ${block:-?} bytes per k"; fail=1; }
done
[ "$i" -ge 16 ] || { echo "only $i variants checked"; fail=1; }
[ $fail = 0 ] && echo "sgemm: $i thread mappings own every element once, without bank conflicts"
exit $fail
