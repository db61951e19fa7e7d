#!/usr/bin/env bash
# What bartune writes, it reads (issue 17): a space whose derive() sets values
# no record can hold (text with a '+', a float) runs twice with the fake
# runner, and show and emit read the file; the record leaves those values
# out. A name too long for a record is refused where it is declared
# (tests/cases/hostile_long_name.case).
. "$(dirname "$0")/lib.sh" "$@"
dirs="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c"
for i in 1 2; do
    "$bartune" run tests/toy/derived_text.lua $dirs >"$tmp/run$i" 2>&1 || fail "run $i: $(tail -3 "$tmp/run$i")"
done
grep -qE "0 measured, [1-9][0-9]* already recorded" "$tmp/run2" || fail "the second run did not read the first's records: $(tail -2 "$tmp/run2")"
"$bartune" show tests/toy/derived_text.lua --results "$tmp/r" >"$tmp/show" 2>&1 || fail "show: $(tail -3 "$tmp/show")"
grep -q '"note"\|"ratio"' "$tmp"/r/*/derived_text.jsonl && fail "a record holds a value it cannot read back"
grep -q '"block_y":8' "$tmp"/r/*/derived_text.jsonl || fail "the plain derived values are not recorded"
echo "records of a space with unrecordable derived values are written and read back"
