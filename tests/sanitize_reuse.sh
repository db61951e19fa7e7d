#!/usr/bin/env bash
# run --sanitize at a size where no stage of the ring is reused: racecheck is
# not run there (it would report clean on a race it cannot see) and the
# record says why and what size to use; at a size with reuse it is run (here
# without compute-sanitizer, so it fails to start: the fake runner, no GPU).
# A ring the space declares racecheck_blind() is not given to racecheck at
# any size, and the record says why; a racecheck_blind() that returns
# anything but nil or text is an error naming the space.
. "$(dirname "$0")/lib.sh" "$@"
"$bartune" new "$tmp/sk" >/dev/null 2>&1 || fail "new failed"
one="barrier=cuda_barrier producer_warps=1 consumer_warps=2 stages=2 tile=1024 blocks_per_sm=1"
for n in 1000 10000000; do
    PATH=/usr/bin:/bin "$bartune" run "$tmp/sk/sk.lua" $one --size n=$n --sanitize --no-emit \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/r$n" --kernels "$tmp/k" \
        --cache "$tmp/c" >/dev/null 2>"$tmp/err$n" || fail "run at n=$n failed: $(cat "$tmp/err$n")"
done
race=$(grep '"tool":"racecheck"' "$tmp"/r1000/*/sk.jsonl)
grep -q 'goes round its ring 0 time(s)' <<<"$race" || fail "racecheck at n=1000: $race"
grep -q 'racecheck not run' "$tmp/err1000" || fail "the run did not say racecheck was not run"
race=$(grep '"tool":"racecheck"' "$tmp"/r10000000/*/sk.jsonl)
grep -q 'goes round its ring' <<<"$race" && fail "racecheck refused at n=10^7: $race"
grep -q '"status":"sanitizer_failed"' <<<"$race" || fail "racecheck at n=10^7: $race"
PATH=/usr/bin:/bin "$bartune" run "$tmp/sk/sk.lua" ${one/cuda_barrier/named} --size n=10000000 --sanitize \
    --no-emit --runner "$root/tests/fake_runner.sh" --results "$tmp/rn" --kernels "$tmp/k" \
    --cache "$tmp/c" >/dev/null 2>"$tmp/errn" || fail "run of the named ring failed: $(cat "$tmp/errn")"
race=$(grep '"tool":"racecheck"' "$tmp"/rn/*/sk.jsonl)
grep -q 'racecheck cannot judge.*bar.arrive' <<<"$race" || fail "the named ring went to racecheck: $race"
grep -q 'racecheck not run: racecheck cannot judge' "$tmp/errn" || fail "the run did not say why: $(cat "$tmp/errn")"
# bad_blind NAME LUA-BODY EXPECTED: a racecheck_blind() returning what it should not
bad_blind() {
    sed -i "s/^racecheck_blind(.*)\$/racecheck_blind(function() return $2 end)/" "$tmp/sk/sk.lua"
    PATH=/usr/bin:/bin "$bartune" run "$tmp/sk/sk.lua" $one --size n=10000000 --sanitize --no-emit \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/r$1" --kernels "$tmp/k" --cache "$tmp/c" \
        >/dev/null 2>"$tmp/err$1"
    grep -q "$3" "$tmp/err$1" || fail "a racecheck_blind() returning $2: $(cat "$tmp/err$1")"
}
bad_blind number 5 'sk.lua: racecheck_blind() must return nil or a string'
bad_blind lines '"two\\nlines"' 'racecheck_blind() must return .*printable.*got "two?lines"'
echo "racecheck refused where no stage is reused or the space says it cannot judge, run where stages are"
