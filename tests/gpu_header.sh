#!/usr/bin/env bash
# A program of two .cu files that both include kernels/pipeline.cuh, built
# with nvcc -arch=sm_90 (the tuned variant must run), with plain nvcc
# (whatever it picks must be exact) and with CMake (a static library plus a
# program). Mode "build" only builds (CI, no GPU); mode "run" runs them too
# (exit 77 without a GPU).
set -u
nvcc=$1 root=$2 mode=$3 kernels=${4:-$2/kernels}
. "$(dirname "$0")/gpu_skip.sh"
# without a GPU, skip now rather than after minutes of nvcc (the _builds test builds in CI)
[ "$mode" = run ] && [ -n "${BARTUNE:-}" ] && skip_without_gpu "$BARTUNE"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() { # OUT NVCC-FLAGS...
    local out=$1; shift
    "$nvcc" "$@" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I "$kernels" \
        -I "$root/templates" "$root/tests/header/consumer.cu" \
        "$root/tests/header/consumer_other.cu" "$root/templates/pipeline/reference.c" -o "$out"
}
build "$tmp/tuned" -arch=sm_90 || exit 1
build "$tmp/plain" || exit 1
cmake -S "$root/tests/header/cmake" -B "$tmp/cm" -DBARTUNE_ROOT="$root" -DBARTUNE_KERNELS="$kernels" \
    -DCMAKE_CUDA_COMPILER="$nvcc" >"$tmp/cmake.log" 2>&1 &&
    cmake --build "$tmp/cm" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }
[ "$mode" = build ] && { echo "built with nvcc -arch=sm_90, plain nvcc and CMake"; exit 0; }
"$tmp/tuned" any 1 >/dev/null 2>&1; [ $? = 77 ] && { echo "no GPU"; exit 77; }
expect=expect-tuned # a header of the portable variants only (records not verified yet): any
grep -q 'bt_n_tuned = 0;' "$kernels/pipeline.cuh" 2>/dev/null && expect=any
"$tmp/tuned" $expect || exit 1
"$tmp/cm/consumer" $expect 1 4097 1000003 || exit 1
"$tmp/plain" any 1 31 1000003 || exit 1
