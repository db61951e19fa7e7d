#!/usr/bin/env bash
# GPU: a program that includes kernels/pipeline.cuh, built with plain nvcc and
# with -arch=sm_90, gets the CPU reference's exact output; with the tuned
# architecture it runs the tuned variant. Exit 77 without a GPU.
set -u
nvcc=$1 root=$2 kernels=${3:-$2/kernels}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build() { "$nvcc" "$@" -std=c++17 -I "$kernels" -I "$root/templates" "$root/tests/consumer.cu" \
              "$root/templates/pipeline/reference.c" -o "$tmp/consumer"; }
build -arch=sm_90 || exit 1
"$tmp/consumer" 1 >/dev/null 2>&1; rc=$?
[ $rc = 77 ] && { echo "no GPU"; exit 77; }
for n in 1 1000003 16777219; do
    "$tmp/consumer" $n expect-tuned || exit 1
done
build || exit 1   # plain nvcc: whatever it picks must be exact
"$tmp/consumer" 1000003 any || exit 1
