#!/usr/bin/env bash
# tests/header/trust.cu against a committed header (kernels/NAME.cuh): build
# (CI) or build and run each mode in a process of its own (GPU; exit 77
# without one): a first call under capture and its graph's speed, two
# threads' first calls, calls in two streams at once, the path of the tuned build (and, for an sm_90a
# space, of a plain -arch=sm_90 build: the portable variant, saying why),
# C's padding, an error the caller left pending, and for a GEMM a call of
# more rows than one grid's y holds in tiles, BLAS's alpha = 0 and K = 0, and
# calls of several shapes in one stream and in 40 streams (reuse), and
# calls after cudaDeviceReset (reset), and calls from eight threads in seven
# streams at once (contend).
# Usage: header_trust.sh NVCC ROOT NAME build|run
set -u
nvcc=$1 root=$2 name=$3 mode=$4
. "$(dirname "$0")/gpu_skip.sh"
# without a GPU, skip now rather than after minutes of nvcc (the _builds test builds in CI)
[ "$mode" = run ] && [ -n "${BARTUNE:-}" ] && skip_without_gpu "$BARTUNE"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
def=TRUST_$(tr a-z A-Z <<<"$name") tuned=-arch=sm_90 specific=false
[ "$name" = gemm_bf16 ] && tuned=-gencode=arch=compute_90a,code=sm_90a specific=true
# some variants built for sm_90a (sgemm's setmaxnreg): the tuned build takes
# the flags the header names, and a plain sm_90 build its other tuned variants
mixed=false
flags=$(grep -m1 -oE '"-(gencode|arch)=[^"]*"' "$root/kernels/$name.cuh" | tr -d '"') # as gemm_header.sh reads them
if ! $specific && [[ $flags == *sm_90a ]]; then tuned=$flags mixed=true; fi
build() { # OUT FLAGS...
    local out=$1; shift
    "$nvcc" "$@" -std=c++17 -O2 -D"$def" -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror \
        -I "$root/kernels" -I "$root/tests/header" "$root/tests/header/trust.cu" -o "$out" ||
        fail "trust.cu for $name ($*) does not build"
}
build "$tmp/tuned" $tuned & # both builds at once
tuned_pid=$!
if $specific || $mixed; then build "$tmp/sm90" -arch=sm_90; fi
wait $tuned_pid || exit 1
[ "$mode" = build ] && { echo "trust.cu builds for $name ($tuned$($specific || $mixed && echo ", -arch=sm_90")), no warnings"; exit 0; }
"$tmp/tuned" capture
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "$name: capture"
modes="threads streams padding pending"
# a GEMM: more rows than one grid's y holds in tiles; alpha = 0 and K = 0 reading no A or B
[ "$name" = pipeline ] || modes="$modes tall blas reuse reset contend"
for m in $modes; do "$tmp/tuned" $m || fail "$name: $m"; done
if grep -q 'bt_n_tuned = 0;' "$root/kernels/$name.cuh"; then
    echo "$name: the header holds the portable variants only (records not verified yet): no tuned path to check"
else
    "$tmp/tuned" path-tuned || fail "$name: the tuned build does not take a tuned variant"
    if $specific; then "$tmp/sm90" path-portable || fail "$name: the plain sm_90 build does not say why it falls back"; fi
    if $mixed; then "$tmp/sm90" path-tuned || fail "$name: the plain sm_90 build does not take a plain tuned variant"; fi
fi
echo "$name header: capture, threads, streams, padding, pending errors$(grep -q 'bt_n_tuned = 0;' "$root/kernels/$name.cuh" || echo ", paths") ok"
