#!/usr/bin/env bash
# GPU: sustained launches and the energy NVML reads. run --rank energy
# records, for every verified variant, a sustained time, joules and watts
# that agree with each other (joules = watts x time, within 15%) and with
# the short median; show ranks by the joules; bench prints the sustained
# row with mJ and W. Exit 77 without a GPU.
. "$(dirname "$0")/lib.sh" "$@"
skip_without_gpu
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
dirs="--results $tmp/r --kernels $tmp/k --cache $tmp/c"
# shellcheck disable=SC2086 # selections and folders are words
"$bartune" run gen/pipeline.lua $sel --size n=16777216 --rank energy --sustain 0.3 --reject 0 --no-emit $dirs \
    >"$tmp/run.out" 2>"$tmp/run.err" || { cat "$tmp/run.out" "$tmp/run.err"; fail "run --rank energy failed"; }
file=$(ls "$tmp"/r/*/pipeline.jsonl)
python3 - "$file" <<'PY' || fail "run --rank energy: the records above"
import json, sys
ok = [r for r in map(json.loads, open(sys.argv[1])) if r["status"] == "ok"]
bad = []
for r in ok:
    ms, j, w, med = r.get("sustained_ms"), r.get("joules"), r.get("watts"), r["median_ms"]
    if not all(isinstance(v, (int, float)) and v > 0 for v in (ms, j, w)):
        bad.append(f"{r['id']}: sustained_ms {ms}, joules {j}, watts {w}")
    elif not 20 <= w <= 2000 or abs(j / (w * ms * 1e-3) - 1) > 0.15 or not 0.5 <= ms / med <= 3:
        bad.append(f"{r['id']}: {ms} ms ({med} short), {j} J, {w} W disagree")
print(f"{len(ok)} ok records; {len(ok) - len(bad)} carry consistent sustained figures")
for b in bad:
    print(" ", b)
sys.exit(1 if len(ok) < 4 or bad else 0)
PY
least=$(grep '"status":"ok"' "$file" | grep -o '"joules":[0-9.e-]*' | sort -t: -k2 -g | head -1 | cut -d: -f2)
# shellcheck disable=SC2086
"$bartune" show gen/pipeline.lua --rank energy $dirs >"$tmp/show.out" 2>&1 || fail "show --rank energy: $(cat "$tmp/show.out")"
first=$(grep -m1 "^  #1 " "$tmp/show.out" | awk '{ print $6 }')
[ "$first" = "$(awk -v j="$least" 'BEGIN { printf "%.3f", j * 1e3 }')" ] ||
    fail "show --rank energy puts $first mJ first, not the least ($least J): $(head -6 "$tmp/show.out")"
# shellcheck disable=SC2086
"$bartune" bench gen/pipeline.lua --size n=16777216 --sustain 1 $dirs >"$tmp/bench.out" 2>&1 ||
    { cat "$tmp/bench.out"; fail "bench failed"; }
grep -E "sustained +[0-9.]+ ms a call, [0-9.]+ mJ a call, [0-9]+ W" "$tmp/bench.out" ||
    { cat "$tmp/bench.out"; fail "bench printed no sustained row with energy"; }
echo "run --rank energy: sustained time, joules and watts agree; show ranks by joules; bench's sustained row"
