#!/usr/bin/env bash
# run --rank energy with the fake runner (which answers the energy of a
# sustained launch inverse to its time): the records carry joules, and emit
# and show rank by them, not by time; without --rank the fastest wins as
# before; --rank energy with --sustain 0 is refused. Also show --size on the
# same records: it picks the size tuples shown, and one none holds exits 3.
. "$(dirname "$0")/lib.sh" "$@"
dirs="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c"
sel="barrier=mbarrier producer=cp_async vec=4 cvec=4 tile=1024"
# shellcheck disable=SC2086 # selections and folders are words
FAKE_RUNNER_VARY=1 "$bartune" run gen/pipeline.lua $sel --size n=4096 --rank energy --no-emit $dirs \
    >/dev/null 2>"$tmp/run.err" || { cat "$tmp/run.err"; fail "run --rank energy failed"; }
file=$(ls "$tmp"/r/*/pipeline.jsonl)
n=$(grep -c '"status":"ok"' "$file")
j=$(grep -c '"joules":' "$file")
[ "$n" -ge 4 ] || fail "only $n ok records"
# every ok record not rejected early carries its energy
[ "$j" -ge 2 ] || fail "$j of $n ok records carry joules"
least=$(grep -o '"joules":[0-9.e-]*' "$file" | sort -t: -k2 -g | head -1 | cut -d: -f2)
fastest=$(grep '"status":"ok"' "$file" | grep -o '"median_ms":[0-9.]*' | sort -t: -k2 -g | head -1 | cut -d: -f2)
# shellcheck disable=SC2086
"$bartune" emit gen/pipeline.lua --rank energy $dirs >/dev/null 2>&1 || fail "emit --rank energy"
grep -q "median $(printf '%.4f' "$(grep "\"joules\":$least" "$file" | head -1 | grep -o '"median_ms":[0-9.]*' | cut -d: -f2)")" \
    "$tmp"/k/*/pipeline.cuh || fail "emit --rank energy did not emit the variant of least energy ($least J)"
# shellcheck disable=SC2086
"$bartune" emit gen/pipeline.lua $dirs >/dev/null 2>&1 || fail "emit"
grep -q "median $(printf '%.4f' "$fastest")" "$tmp"/k/*/pipeline.cuh || fail "emit did not emit the fastest ($fastest ms)"
# shellcheck disable=SC2086
"$bartune" show gen/pipeline.lua --rank energy $dirs 2>&1 | grep -q "ranked by the energy a call" ||
    fail "show --rank energy does not say how it ranks"
# show --size picks the size tuples shown; one no record holds is an error
# shellcheck disable=SC2086
"$bartune" show gen/pipeline.lua --size n=4096 $dirs 2>&1 | grep -q "n=4096: median" || fail "show --size n=4096"
# shellcheck disable=SC2086
"$bartune" show gen/pipeline.lua --size n=5 $dirs >"$tmp/show5" 2>&1
[ $? = 3 ] && grep -q "hold the --size values given" "$tmp/show5" || fail "show --size n=5: $(cat "$tmp/show5")"
"$bartune" run gen/pipeline.lua --rank energy --sustain 0 --size n=4096 $dirs >/dev/null 2>"$tmp/bad.err" &&
    fail "--rank energy --sustain 0 ran"
grep -q "leaves none" "$tmp/bad.err" || fail "--rank energy --sustain 0: $(cat "$tmp/bad.err")"
echo "run --rank energy records joules; emit and show rank by them; time stays the default"
