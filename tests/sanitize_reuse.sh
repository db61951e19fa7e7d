#!/usr/bin/env bash
# run --sanitize at a size where no stage of the ring is reused: racecheck is
# not run there (it would report clean on a race it cannot see) and the
# record says why and what size to use; at a size with reuse it is run (here
# without compute-sanitizer, so it fails to start: the fake runner, no GPU).
. "$(dirname "$0")/lib.sh" "$@"
"$bartune" new "$tmp/sk" >/dev/null 2>&1 || fail "new failed"
one="barrier=named producer_warps=1 consumer_warps=2 stages=2 tile=1024 blocks_per_sm=1"
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
echo "racecheck refused where no stage is reused, run where stages are"
