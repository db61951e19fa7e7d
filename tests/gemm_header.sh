#!/usr/bin/env bash
# A program of two .cu files that include kernels/NAME.cuh (the committed
# header, or one emitted here from no results: the portable variant only),
# built for the tuned architecture (TUNED-FLAGS), for plain sm_90, with
# plain nvcc and by a CMake project (a static library and a program). Mode "build" only builds (CI); mode "run" runs each on random
# shapes and odd leading dimensions (exit 77 without a GPU): the tuned
# build must pick a tuned variant where the header has one.
# Usage: gemm_header.sh BARTUNE NVCC ROOT build|run NAME TUNED-FLAGS|header
set -u
bartune=$1 nvcc=$2 root=$3 mode=$4 name=$5 tuned_flags=$6
. "$(dirname "$0")/gpu_skip.sh"
# without a GPU, skip now rather than after minutes of nvcc (the _builds test builds in CI)
[ "$mode" = run ] && skip_without_gpu "$bartune"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernels=$root/kernels expect=expect-tuned
# a header of the portable variants only (records not verified yet) expects no tuned one
grep -q 'bt_n_tuned = 0;' "$kernels/$name.cuh" 2>/dev/null && expect=any
if [ ! -f "$kernels/$name.cuh" ]; then
    "$bartune" emit "$root/gen/$name.lua" --results "$tmp/none" --kernels "$tmp/k" >/dev/null || exit 1
    kernels=$tmp/k expect=any
fi
# TUNED-FLAGS "header": the flags the header names for its first tuned device
# (bt_tuned_on: sm_90a where a variant of it needs its own features)
if [ "$tuned_flags" = header ]; then
    tuned_flags=$(grep -m1 -oE '"-(gencode|arch)=[^"]*"' "$kernels/$name.cuh" | tr -d '"')
    tuned_flags=${tuned_flags:--arch=sm_90}
fi
# one translation unit: OBJ from SRC (its output in OBJ.log)
compile() { # OBJ SRC NVCC-FLAGS...
    local obj=$1 src=$2; shift 2
    "$nvcc" "$@" -std=c++17 -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I "$kernels" \
        -I "$root/tests/header" -c "$src" -o "$obj" >"$obj.log" 2>&1
}
# the program: its two translation units at once (each holds every variant), then the link
build() { # OUT NVCC-FLAGS...
    local out=$1 a b; shift
    compile "$out.a.o" "$root/tests/header/${name}_consumer.cu" "$@" &
    a=$!
    compile "$out.b.o" "$root/tests/header/${name}_other.cu" "$@"
    b=$?
    wait $a && [ $b = 0 ] && "$nvcc" "$@" "$out.a.o" "$out.b.o" -o "$out" >>"$out.a.o.log" 2>&1 ||
        { echo "== $out ($*)"; cat "$out".?.o.log; return 1; }
}
cmake_build() {
    cmake -S "$root/tests/header/cmake_gemm" -B "$tmp/cm" -DBARTUNE_ROOT="$root" -DBARTUNE_KERNELS="$kernels" \
        -DBARTUNE_GEMM="$name" -DBARTUNE_CUDA_FLAGS="$tuned_flags" -DCMAKE_CUDA_COMPILER="$nvcc" \
        >"$tmp/cmake.log" 2>&1 && cmake --build "$tmp/cm" --parallel >>"$tmp/cmake.log" 2>&1 ||
        { echo "== CMake"; cat "$tmp/cmake.log"; return 1; }
}
# plain sm_90 (for gemm_bf16: the plain path); for sgemm it is the tuned build
same_sm90=false
case $tuned_flags in -arch=sm_90 | -gencode=arch=compute_90,code=sm_90) same_sm90=true ;; esac
# the four builds at once (minutes of nvcc one after another)
pids=()
# shellcheck disable=SC2086 # the flags are words
build "$tmp/tuned" $tuned_flags &
pids+=($!)
$same_sm90 || { build "$tmp/sm90" -arch=sm_90 & pids+=($!); }
build "$tmp/plain" &
pids+=($!)
cmake_build &
pids+=($!)
built=true
for p in "${pids[@]}"; do wait "$p" || built=false; done
$built || exit 1
[ "$mode" = build ] && { echo "built with nvcc $tuned_flags, -arch=sm_90, plain nvcc and CMake against $kernels, no warnings"; exit 0; }
"$tmp/tuned" $expect
rc=$?
[ $rc = 77 ] && { echo "no GPU"; exit 77; }
[ $rc = 0 ] || exit 1
"$tmp/cm/consumer" $expect || exit 1
$same_sm90 || "$tmp/sm90" any || exit 1
"$tmp/plain" any
