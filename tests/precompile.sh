#!/usr/bin/env bash
# tools/precompile.sh (cubins compiled ahead of a device call, issue 25's
# device time): the fake runner's run under a card's name fills the cache,
# the archive holds one cubin (and ptxas log) per variant, a cache unpacked
# from it compiles nothing again, results/ is not written, and a command
# other than run or bench is refused.
. "$(dirname "$0")/lib.sh" "$@"
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2 barrier=named"
export BARTUNE=$bartune PRECOMPILE_CACHE=$tmp/cache PRECOMPILE_OUT=$tmp/cubins.tar.xz
before=$(find results -type f -exec md5sum {} + | sort)
# shellcheck disable=SC2086 # the selection is words
out=$(bash tools/precompile.sh "NVIDIA H200" run gen/pipeline.lua $sel --size n=1000 2>&1) ||
    fail "precompile.sh failed: $out"
[[ $out == "2 cubins in $tmp/cubins.tar.xz (2 compiled now)" ]] || fail "precompile.sh said: $out"
[ "$(tar tJf "$tmp/cubins.tar.xz" | grep -c '\.cubin$')" = 2 ] || fail "the archive lacks the 2 cubins"
[ "$before" = "$(find results -type f -exec md5sum {} + | sort)" ] || fail "precompile.sh wrote into results/"
mkdir "$tmp/device" && tar xJf "$tmp/cubins.tar.xz" -C "$tmp/device"
# shellcheck disable=SC2086
"$bartune" compile gen/pipeline.lua --arch sm_90 --cache "$tmp/device" $sel >/dev/null 2>"$tmp/err"
[ "$(grep -c "(cached)" "$tmp/err")" = 2 ] || { cat "$tmp/err"; fail "the unpacked cubins were compiled again"; }
bash tools/precompile.sh "NVIDIA H200" show gen/pipeline.lua >"$tmp/bad" 2>&1 && fail "show was taken"
grep -q "COMMAND is run or bench" "$tmp/bad" || fail "no reason given: $(cat "$tmp/bad")"
echo "precompile.sh packs cubins a device run finds in its cache"
