#!/usr/bin/env bash
# The hostile and bad-input CLI cases (tests/cases/*.case) against an
# AddressSanitizer + UBSan build of bartune (-DBARTUNE_SANITIZE=ON, in
# build-asan/): each case must behave as it says and the sanitizers must
# report nothing (leaks included). Usage: tools/asan-cases.sh [PATTERN]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake -S . -B build-asan -G Ninja -DBARTUNE_SANITIZE=ON >/dev/null && cmake --build build-asan >/dev/null ||
    { echo "the sanitizer build failed"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
fail=0 n=0
for c in tests/cases/*${1:-}*.case; do
    n=$((n + 1))
    if ! bash tests/run_case.sh build-asan/bartune "$c" "$root" >"$log/out" 2>&1 ||
        grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log/out"; then
        echo "== $c"; head -40 "$log/out"; fail=1
    fi
done
# run_case.sh keeps bartune's stderr only on failure: the sanitizers' reports
# reach it through the exit code (ASan exits 1, UBSan halts), which the case's
# expected code then does not match
[ $fail = 0 ] && echo "$n cases clean under AddressSanitizer and UBSan"
exit $fail
