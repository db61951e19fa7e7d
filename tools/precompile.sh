#!/usr/bin/env bash
# Compiles here, ahead of a device call, the cubins that call's runs will ask
# for, and packs them as .landcache.tar.xz: carry it, and tools/gpu-build.sh
# unpacks it into build/variants (the CLI's compile cache), so the device
# measures them without compiling (device time is the scarce thing; its 16
# cores still take ~1 s a wgmma variant). The fake runner stands in for the
# GPU under the card's name, so a command picks here what it picks there
# first: a tuple's records verified under other checks, its twins, bench's
# rows. After those, ils follows measured times, which the fake runner does
# not have: its later picks are guesses. The cache key holds nvcc's version
# (entries another nvcc made are not found there; they cost the carry alone).
#
#   tools/precompile.sh CARD COMMAND SPACE [options...]   COMMAND: run or bench
#   tools/precompile.sh "NVIDIA H200" run gen/gemm_bf16.lua --tuple "M=8192 N=8192 K=8192" \
#       --strategy ils --budget 4
#
# Each call adds to the cache PRECOMPILE_CACHE (build/precompile) and packs all
# of it into PRECOMPILE_OUT (.landcache.tar.xz). The records of the fake runs
# go to a copy of results/ that is thrown away: results/ is never written.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: tools/precompile.sh CARD run|bench SPACE [options...]" >&2; exit 2; }
card=$1 cmd=$2
shift 2
case $cmd in
run) more=(--no-emit) ;;
bench) more=(--sustain 0) ;;
*) echo "tools/precompile.sh: COMMAND is run or bench, not '$cmd'" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
b=${BARTUNE:-$root/build/bartune}
cache=${PRECOMPILE_CACHE:-$root/build/precompile}
archive=${PRECOMPILE_OUT:-$root/.landcache.tar.xz}
[ -x "$b" ] || { echo "tools/precompile.sh: no $b: build bartune first (cmake --build build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/results" "$tmp/results"
mkdir -p "$cache"
FAKE_RUNNER_NAMES=$card "$b" "$cmd" "$@" "${more[@]}" --runner "$root/tests/fake_runner.sh" \
    --results "$tmp/results" --kernels "$tmp/kernels" --cache "$cache" >"$tmp/log" 2>&1 ||
    { tail -20 "$tmp/log" >&2; echo "tools/precompile.sh: bartune $cmd failed (above)" >&2; exit 1; }
# the cubins and their ptxas logs (the references' .so files are the host's own)
(cd "$cache" && find . -maxdepth 1 -name '*.cubin' | sed 's|^\./||; s|\.cubin$||' | sort) >"$tmp/keys"
while read -r k; do
    echo "$k.cubin"
    [ -f "$cache/$k.log" ] && echo "$k.log"
done <"$tmp/keys" >"$tmp/files"
tar cJf "$archive.tmp" -C "$cache" -T "$tmp/files"
mv "$archive.tmp" "$archive"
echo "$(wc -l <"$tmp/keys") cubins in $archive ($(grep '^\[compile ' "$tmp/log" | grep -vc '(cached)' || true) compiled now)"
