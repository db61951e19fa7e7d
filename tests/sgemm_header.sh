#!/usr/bin/env bash
# A program of two .cu files that include kernels/sgemm.cuh (the committed
# header, or one emitted here from no results: the portable variant only),
# built with nvcc -arch=sm_90 and plain nvcc. Mode "build" only builds (CI);
# mode "run" runs it on random shapes and odd leading dimensions (exit 77
# without a GPU).
set -u
bartune=$1 nvcc=$2 root=$3 mode=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernels=$root/kernels expect=expect-tuned
if [ ! -f "$kernels/sgemm.cuh" ]; then
    "$bartune" emit "$root/gen/sgemm.lua" --results "$tmp/none" --kernels "$tmp/k" >/dev/null || exit 1
    kernels=$tmp/k expect=any
fi
build() { # OUT NVCC-FLAGS...
    local out=$1; shift
    "$nvcc" "$@" -std=c++17 -O2 -I "$kernels" "$root/tests/header/sgemm_consumer.cu" \
        "$root/tests/header/sgemm_other.cu" -o "$out"
}
build "$tmp/tuned" -arch=sm_90 || exit 1
build "$tmp/plain" || exit 1
[ "$mode" = build ] && { echo "built with nvcc -arch=sm_90 and plain nvcc against $kernels"; exit 0; }
"$tmp/tuned" $expect
rc=$?
[ $rc = 77 ] && { echo "no GPU"; exit 77; }
[ $rc = 0 ] || exit 1
"$tmp/plain" any
