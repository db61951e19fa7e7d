#!/usr/bin/env bash
# Which variant an emitted header runs on which device (no GPU: the device
# is tests/header/dispatch_mock.cu's answer to the runtime's queries). Card A
# tuned at two sizes, card B at one: B runs its own variant at its size and
# A's at A's other size (a like device's exact size beats its own far one),
# a card tuned on neither runs the nearest size, and another compute
# capability the portable variant. And emit removes a device's header once the
# device has no variant left.
# Usage: header_dispatch.sh BARTUNE NVCC ROOT
set -u
bartune=$1 nvcc=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
cfg=(barrier=none chunk=stride consumer_warps=4 cvec=4 prefetch=0 blocks_per_sm=4)
tune() { # CARD N
    FAKE_RUNNER_NAMES="$1" "$bartune" run gen/pipeline.lua "${cfg[@]}" --size n="$2" \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c" \
        --no-emit >"$tmp/out" 2>&1 || fail "$1 at n=$2: $(tail -3 "$tmp/out")"
}
tune "Card A" 1024
tune "Card A" 1048576
tune "Card B" 1024
"$bartune" emit gen/pipeline.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/out" 2>&1 ||
    fail "emit: $(tail -3 "$tmp/out")"
grep -q '(3 tuned variants + portable)' "$tmp/out" || fail "not three tuned variants: $(grep wrote "$tmp/out")"
"$nvcc" -arch=sm_90 -std=c++17 -cudart shared -I "$tmp/k" tests/header/dispatch_mock.cu \
    tests/header/dispatch_mock_runtime.cpp -o "$tmp/mock" \
    2>"$tmp/err" || fail "dispatch_mock does not build: $(head -20 "$tmp/err")"
picks() { "$tmp/mock" "$@" | cut -d: -f1 | tr '\n' ';'; }
got=$(picks "Card B" 9 0 4 1024 1048576)
[ "$got" = "card-b-sm90 at n=1024;card-a-sm90 at n=1048576;" ] ||
    fail "card B (tuned at 1024) should run its own at 1024 and A's at 1048576: $got"
got=$(picks "Card A" 9 0 4 1024 1000000)
[ "$got" = "card-a-sm90 at n=1024;card-a-sm90 at n=1048576;" ] || fail "card A should run its own: $got"
got=$(picks "Card C" 9 0 8 900000)
[ "$got" = "card-a-sm90 at n=1048576;" ] || fail "an untuned card of the same capability, nearest size: $got"
got=$("$tmp/mock" "Card B" 8 0 4 1024)
grep -q "^portable (no variant was tuned on a device of this compute capability)" <<<"$got" ||
    fail "another compute capability should run the portable variant: $got"
# a device left with no verified variant: its old header goes (the dispatcher
# no longer includes it); a file of the same name that bartune did not write stays
mkdir -p "$tmp/k/mine" && echo "// my own" >"$tmp/k/mine/pipeline.cuh"
rm -r "$tmp/r/card-b-sm90"
"$bartune" emit gen/pipeline.lua --results "$tmp/r" --kernels "$tmp/k" >"$tmp/out" 2>&1 ||
    fail "emit without card B: $(tail -3 "$tmp/out")"
[ ! -e "$tmp/k/card-b-sm90/pipeline.cuh" ] && grep -q "removed .*card-b-sm90/pipeline.cuh" "$tmp/out" ||
    fail "card B's header outlived its records: $(grep -v wrote "$tmp/out")"
[ -f "$tmp/k/card-a-sm90/pipeline.cuh" ] && [ -f "$tmp/k/mine/pipeline.cuh" ] ||
    fail "emit removed a header still included, or a file bartune did not write"
echo "the header runs a device's own variant near its sizes, a like device's elsewhere, portable on others; a device's header goes with its last variant"
