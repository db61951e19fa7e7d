#!/usr/bin/env bash
# GPU: run --sanitize. A variant that verifies but races in shared memory is
# flagged by racecheck (a sanitizer_error record) and is then not the best;
# correct variants come out clean under memcheck, racecheck and synccheck.
# Exit 77 without a GPU or without compute-sanitizer.
. "$(dirname "$0")/lib.sh" "$@"
skip_without_gpu
command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer"; exit 77; }
args="tests/faults/faults.lua --templates tests/faults --sanitize --no-emit --results $tmp/r --kernels $tmp/k --cache $tmp/c"
"$bartune" run $args fault=hidden_race >"$tmp/out1" 2>"$tmp/err1" || { cat "$tmp/err1"; fail "run failed"; }
file=$(ls "$tmp"/r/*/faults.jsonl)
grep '"tool":"racecheck"' "$file" | grep -q '"status":"sanitizer_error"' ||
    fail "racecheck did not flag the hidden race: $(grep racecheck "$file" | cut -c1-600)"
grep -q "no variant verified" "$tmp/out1" || fail "the flagged variant is still reported as the best"
"$bartune" run $args fault=none >"$tmp/out2" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "run failed"; }
clean=$(grep '"fault":"none"' "$file" | grep -c '"status":"sanitizer_clean"')
[ "$clean" = 6 ] || fail "expected 2 correct variants x 3 tools clean, got $clean: $(grep sanitizer "$file" | grep '"fault":"none"' | cut -c1-400)"
echo "racecheck flags the hidden race; correct variants are clean under 3 tools"
