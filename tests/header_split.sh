#!/usr/bin/env bash
# The compiled-once form of an emitted header (kernels/<name>.h, .cu, .cmake):
# a CMake project compiles the kernels once as a library and its plain C++
# units include only the declarations, for the toy and for gemm_bf16 with
# a tuned variant (fake-runner runs); prints the compile time of one unit
# of each form (the single header against the declarations).
# Usage: header_split.sh BARTUNE NVCC ROOT
set -u
bartune=$1 nvcc=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fail() { echo "FAIL: $*"; exit 1; }
fk=(--runner "$root/tests/fake_runner.sh" --cache "$tmp/c")
"$bartune" run tests/toy/axpy.lua "${fk[@]}" --results "$tmp/r1" --kernels "$tmp/k1" >/dev/null 2>&1 ||
    fail "toy run failed"
"$bartune" run gen/gemm_bf16.lua --size M=256 --size N=256 --size K=128 kind=wgmma bn=64 wm=64 consumers=1 \
    producer=warp cluster=1 grid=tile raster=row epilogue=direct "${fk[@]}" --results "$tmp/r2" \
    --kernels "$tmp/k2" >/dev/null 2>&1 || fail "gemm_bf16 run failed"
for pair in "axpy2d $tmp/k1" "gemm_bf16 $tmp/k2"; do
    read -r name k <<<"$pair"
    for f in h cu cmake; do [ -f "$k/$name.$f" ] || fail "$name.$f was not written"; done
    cmake -S tests/header/cmake_split -B "$tmp/b_$name" -DBARTUNE_KERNELS="$k" -DBARTUNE_NAME="$name" \
        -DCMAKE_CUDA_COMPILER="$nvcc" >"$tmp/log" 2>&1 && cmake --build "$tmp/b_$name" >>"$tmp/log" 2>&1 ||
        { tail -30 "$tmp/log"; fail "$name: the CMake project of the compiled-once form does not build"; }
done
# one unit of each form (gemm_bf16, one tuned variant): the whole header, the declarations
printf '#include "gemm_bf16.cuh"\nint main() { return 0; }\n' >"$tmp/whole.cu"
printf '#include "gemm_bf16.h"\nint main() { return 0; }\n' >"$tmp/decl.cpp"
t0=$(date +%s.%N)
"$nvcc" -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I "$tmp/k2" -c "$tmp/whole.cu" -o "$tmp/w.o" ||
    fail "the whole header does not build"
t1=$(date +%s.%N)
g++ -std=c++17 -I "$tmp/k2" -I "$(dirname "$(dirname "$nvcc")")/include" -c "$tmp/decl.cpp" -o "$tmp/d.o" ||
    fail "the declarations do not build with g++"
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "one unit including gemm_bf16.cuh (one tuned variant and the portable one): %.2f s; including gemm_bf16.h: %.2f s\n", b - a, c - b }'
echo "the compiled-once form builds as a CMake library with plain C++ units (toy, gemm_bf16)"
