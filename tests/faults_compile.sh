#!/usr/bin/env bash
# CI half of the fault suite: what nvcc decides. Each compile-side fault gets
# its own status, the others compile.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
"$bartune" compile tests/faults/faults.lua --templates tests/faults --cache "$tmp/c" \
    --compile-timeout 5 >"$tmp/out" 2>/dev/null
fail=0
expect() { grep -qE "^$2 +[0-9a-f]+ .* fault=$1 " "$tmp/out" || { echo "fault=$1: expected $2"; fail=1; }; }
expect compile_error compile_error
expect ptxas_smem compile_error
expect slow_compile compile_timeout
expect none ok
expect race ok
expect printf ok
expect first_launches_only ok
[ "$(grep -c '^ok ' "$tmp/out")" = 24 ] || { echo "expected 24 variants to compile"; fail=1; }
grep -q "27 variants compiled for sm_90, 3 failed" "$tmp/out" || fail=1
[ $fail = 0 ] || cat "$tmp/out"
# the sgemm faults are wrong at run time, not at compile time: all compile
"$bartune" compile tests/faults/sgemm_faults.lua --templates tests/faults --cache "$tmp/c" \
    >"$tmp/sgemm" 2>/dev/null
grep -q "26 variants compiled for sm_90, 0 failed" "$tmp/sgemm" || { echo "sgemm faults:"; cat "$tmp/sgemm"; fail=1; }
"$bartune" compile tests/faults/gemm_bf16_faults.lua --templates tests/faults --cache "$tmp/c" \
    >"$tmp/gemm" 2>/dev/null
grep -q "20 variants compiled for sm_90a, 0 failed" "$tmp/gemm" || { echo "gemm_bf16 faults:"; cat "$tmp/gemm"; fail=1; }
exit $fail
