#!/usr/bin/env bash
# Ctrl-C (SIGINT) during compiles: bartune exits 130 at once, its nvcc
# children are gone and no partial compile output is left in the cache.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
"$bartune" compile tests/faults/faults.lua --templates tests/faults --cache "$tmp/c" \
    --compile-timeout 600 >/dev/null 2>&1 &
pid=$!
sleep 3
kill -INT "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { echo "bartune still running 5 s after Ctrl-C"; kill -9 "$pid"; exit 1; }
wait "$pid"; rc=$?
[ $rc = 130 ] || { echo "exit code $rc, expected 130"; exit 1; }
sleep 0.5
pgrep -f "$tmp/c" >/dev/null && { echo "nvcc still running:"; pgrep -af "$tmp/c"; exit 1; }
ls "$tmp"/c | grep -q '\.tmp\.' && { echo "partial outputs left:"; ls "$tmp/c"; exit 1; }
echo ok
