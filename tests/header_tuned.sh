#!/usr/bin/env bash
# Headers with tuned variants (from a fake-runner run of two variants at one
# small size) build warning-free under -Wall -Wextra -Werror, host and
# device, for the tuned target and for plain sm_90, with the consumer test
# programs of tests/header (CI: no GPU runs them; gpu_*_header do).
# Usage: header_tuned.sh BARTUNE NVCC ROOT
set -u
bartune=$1 nvcc=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; exit 1; }
werror=(-std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror)
fk=(--runner "$root/tests/fake_runner.sh" --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c")
tune() { # SPACE SIZES... -- K=V...
    "$bartune" run "gen/$1.lua" "${@:2}" "${fk[@]}" >"$tmp/out" 2>&1 || fail "$1: run: $(tail -3 "$tmp/out")"
    grep -q "tuned variant" "$tmp/out" && ! grep -q "(0 tuned variants" "$tmp/out" ||
        fail "$1: no tuned variant emitted: $(grep wrote "$tmp/out")"
}
tune gemm_bf16 --size M=256 --size N=256 --size K=128 kind=wgmma bn=64 wm=64 consumers=1 producer=warp \
    stages=2 cluster=1 grid=tile raster=row
tune gemm_bf16 --size M=512 --size N=256 --size K=128 kind=wgmma bn=64 wm=64 consumers=1 producer=warp \
    stages=2 cluster=1 grid=tile raster=row
# a persistent grid of clusters of 4 (launch().persistent): the header counts the clusters that fit
tune gemm_bf16 --size M=1024 --size N=256 --size K=128 kind=wgmma bn=256 wm=64 consumers=2 schedule=cooperative \
    producer=warpgroup regs=setmaxnreg stages=2 cluster=4 grid=persistent raster=row epilogue=direct
# split-K through scratch, one warpgroup's tiles in clusters of 2 along M summed by every CTA
# (spread): its launcher sizes the scratch (a counter a tile, then the slots) from the call
tune gemm_bf16 --size M=256 --size N=256 --size K=4096 kind=wgmma bn=128 wm=64 consumers=1 producer=warp \
    stages=6 cluster=2 grid=tile raster=row epilogue=direct scratch_split=16 scratch_sum=spread fences=light
"$bartune" emit gen/gemm_bf16.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/out" 2>&1 || fail "emit: $(tail -3 "$tmp/out")"
grep -q '(4 tuned variants + portable)' "$tmp/out" || fail "gemm_bf16: not four tuned variants: $(grep wrote "$tmp/out")"
[ "$(grep -c 'const long long bt_scratch_zero = ' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh)" = 1 ] ||
    fail "gemm_bf16: not one launcher (the scratch_split one's) giving its kernel scratch"
# its 16 CTAs a tile in clusters of 2 wait for each other (launch().together): refused where
# fewer than 32 run at once, not hung
grep -q 'if (bt_most < 32LL) return cudaErrorCooperativeLaunchTooLarge;' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh ||
    fail "gemm_bf16: the spread launcher does not refuse a device that runs fewer than its 32 waiting CTAs at once"
# (and the spread one below: the clusters of its waiting CTAs that fit)
[ "$(grep -c 'cudaOccupancyMaxActiveClusters(&bt_n' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh)" = 2 ] ||
    fail "gemm_bf16: not two launchers (the persistent cluster-4 variant's, the spread one's) counting the clusters that fit"
grep -q 'const long long bt_run_x = bt_grid_x < bt_most' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh ||
    fail "gemm_bf16: the persistent launcher does not lower its grid to the clusters that fit"
# what reads nothing of a variant is written once however many variants there are
[ "$(grep -c 'bartune-shared .* begin' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh)" = 1 ] ||
    fail "gemm_bf16's shared PTX wrappers are not written once"
[ "$(grep -c 'namespace bartune_common {' "$tmp"/k/fake-gpu-sm90/gemm_bf16.cuh)" = 1 ] ||
    fail "bartune_common is not written once"
for flags in "-gencode=arch=compute_90a,code=sm_90a" "-arch=sm_90"; do
    # shellcheck disable=SC2086 # the flags are words
    "$nvcc" $flags "${werror[@]}" -I "$tmp/k" -I tests/header tests/header/gemm_bf16_consumer.cu \
        tests/header/gemm_bf16_other.cu -o "$tmp/g" 2>"$tmp/err" || fail "gemm_bf16 ($flags): $(head -20 "$tmp/err")"
done
tune sgemm --size M=256 --size N=256 --size K=128 barrier=syncthreads loaders=all producer=regs bm=64 bn=64 \
    bk=8 tm=4 tn=4 a_layout=k raster=row min_blocks=1 split=1
# a variant built for sm_90a in a space of plain ones (regs=setmaxnreg): its
# launcher alone asks for sm_90a code, and the device's flags build it; it is
# a stream_k one, whose launcher's grid (S x rounds + 1) and scratch come from launch()
tune sgemm --size M=512 --size N=512 --size K=128 barrier=mbarrier producer=cp_async producer_warps=4 bm=128 \
    bn=256 bk=16 tm=8 tn=16 warp=wide stages=4 a_layout=k raster=grouped fma_order=zigzag regs=setmaxnreg stream_k=1
# a tensor_b one: its map of B optional (launch().tensor_maps), encoded only where B's address and
# ldb allow the copy engine, zeros elsewhere
tune sgemm --size M=384 --size N=256 --size K=128 barrier=mbarrier producer=tensor_b producer_warps=4 bm=64 \
    bn=64 bk=16 tm=4 tn=4 stages=4 a_layout=m raster=row min_blocks=2 scratch_split=1
h=$tmp/k/fake-gpu-sm90/sgemm.cuh
grep -q 'bt_aligned = reinterpret_cast<unsigned long long>(static_cast<const void \*>(B)) % 16 == 0' "$h" &&
    grep -q 'if (bt_aligned) {' "$h" || fail "sgemm: no tensor_b launcher encoding B's map only where aligned"
grep -q 'run_stream_k(M, N, K' "$h" && grep -q 'bt_grid_y = .*bt_sms' "$h" ||
    fail "sgemm: no stream_k variant whose grid rows count the device's SMs: $(grep 'bt_grid_y' "$h")"
[ "$(grep -c 'usable_code((const void \*)bt_kernel, 90, true' "$h")" = 1 ] &&
    [ "$(grep -c 'usable_code((const void \*)bt_kernel, 70, false' "$h")" = 1 ] ||
    fail "sgemm: not one launcher asking for sm_90a code and one for plain: $(grep 'usable_code((const' "$h")"
grep -q '"-gencode=arch=compute_90a,code=sm_90a"}' "$tmp/k/sgemm.cuh" && grep -q '"90a;75-virtual"' "$tmp/k/sgemm.cmake" ||
    fail "sgemm: the device's flags do not build its sm_90a variant: $(grep -h 'compute_\|ARCHITECTURES' "$tmp"/k/sgemm.cuh "$tmp/k/sgemm.cmake")"
for flags in "-gencode=arch=compute_90a,code=sm_90a" "-arch=sm_90"; do
    # shellcheck disable=SC2086 # the flags are words
    "$nvcc" $flags "${werror[@]}" -I "$tmp/k" -I tests/header tests/header/sgemm_consumer.cu \
        tests/header/sgemm_other.cu -o "$tmp/s" 2>"$tmp/err" || fail "sgemm ($flags): $(head -20 "$tmp/err")"
done
tune pipeline --size n=100000 barrier=none consumer_warps=4 cvec=4 chunk=stride
"$nvcc" -arch=sm_90 "${werror[@]}" -I "$tmp/k" -I templates tests/header/consumer.cu \
    tests/header/consumer_other.cu templates/pipeline/reference.c -o "$tmp/p" 2>"$tmp/err" ||
    fail "pipeline: $(head -20 "$tmp/err")"
echo "tuned headers of gemm_bf16, sgemm and pipeline build under -Wall -Wextra -Werror (host and device)"
