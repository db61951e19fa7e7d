#!/usr/bin/env bash
# bartune report draws the committed H200 records with gnuplot: an SVG and a
# PNG holding the landscape and the strategies' curves.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
command -v gnuplot >/dev/null || { echo "gnuplot missing (.ci/install-deps installs gnuplot-nox)"; exit 1; }
. tests/results_check.sh
records_text results/nvidia-h200-sm90/pipeline.jsonl >"$tmp/pipeline.jsonl" || exit 1
"$bartune" report gen/pipeline.lua --records "$tmp/pipeline.jsonl" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
[ -s "$tmp/report.png" ] || { echo "no PNG"; exit 1; }
head -c 8 "$tmp/report.png" | od -An -c | grep -q "P   N   G" || { echo "report.png is not a PNG"; exit 1; }
for want in "<svg" "mbarrier/bulk" "seed __syncthreads 4+4" "ils" "exhaustive" "measured configurations"; do
    grep -qF "$want" "$tmp/report.svg" || { echo "report.svg lacks '$want'"; exit 1; }
done
echo "report drawn: $(wc -c <"$tmp/report.svg") bytes of SVG, $(wc -c <"$tmp/report.png") of PNG"
# records are not trusted in gnuplot's script (issue 17, class 5): a device
# name with backquotes, system() and quotes runs nothing, and a symlink where
# the report goes is replaced, not written through
mkdir "$tmp/h"
sed 's/"name":"NVIDIA H200"/"name":"H200`touch pwned1` '"'"'.system(\\"touch pwned2\\").'"'"' @x \\\\"/g' \
    "$tmp/pipeline.jsonl" >"$tmp/h/pipeline.jsonl"
grep -q 'pwned1' "$tmp/h/pipeline.jsonl" || { echo "the hostile records were not made"; exit 1; }
echo "victim" >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/h/report.svg"
(cd "$tmp/h" && "$bartune" report "$root/gen/pipeline.lua" --root "$root" --records pipeline.jsonl) 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
ls "$tmp"/h/pwned* "$tmp"/pwned* "$root"/pwned* 2>/dev/null && { echo "a device name ran a command in gnuplot"; exit 1; }
[ "$(cat "$tmp/victim")" = victim ] || { echo "the report was written through a symlink"; exit 1; }
[ -f "$tmp/h/report.svg" ] && [ ! -L "$tmp/h/report.svg" ] || { echo "report.svg is not a file of its own"; exit 1; }
grep -q "H200_touch pwned1_" "$tmp/h/report.svg" || { echo "the device name is not drawn, made plain"; exit 1; }
ls -a "$tmp/h" | grep -q '^\.report-' && { echo "gnuplot's folder was left behind"; exit 1; }
echo "a hostile device name ran nothing; a symlinked report.svg was replaced, not followed"
# a bench (fake runner) saves its floor beside the records; the report draws it
fk="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c --size n=1000"
sel="barrier=none consumer_warps=8 cvec=4 chunk=stride prefetch=0"
"$bartune" run gen/pipeline.lua $sel $fk >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
"$bartune" bench gen/pipeline.lua $fk >"$tmp/bench" 2>"$tmp/err" || { cat "$tmp/err" "$tmp/bench"; exit 1; }
grep -q "^floor: " "$tmp/bench" || { echo "bench printed no floor"; exit 1; }
ls "$tmp"/r/*/pipeline.bench.json >/dev/null 2>&1 || { echo "bench saved no floor"; exit 1; }
"$bartune" report gen/pipeline.lua --results "$tmp/r" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q "floor (bench)" "$tmp"/r/*/report.svg || { echo "the report draws no floor"; exit 1; }
echo "bench saves its floor and the report draws it"
# a problem's host baseline (cuBLAS for sgemm, built with nvcc here): bench
# times it and the report draws its line
fs="--runner $root/tests/fake_runner.sh --results $tmp/rs --kernels $tmp/k --cache $tmp/c --size M=64 --size N=64 --size K=64"
sel="barrier=syncthreads loaders=all producer=regs bm=64 bn=64 bk=8 tm=4 tn=4 stages=2 a_layout=k raster=row min_blocks=1"
"$bartune" run gen/sgemm.lua $sel $fs >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
FAKE_RUNNER_REQUESTS="$tmp/req0" "$bartune" bench gen/sgemm.lua $fs >"$tmp/bench" 2>"$tmp/err" ||
    { cat "$tmp/err" "$tmp/bench"; exit 1; }
grep -q "^  cuBLAS SGEMM  *1.0000" "$tmp/bench" || { echo "bench timed no cuBLAS: $(cat "$tmp/bench")"; exit 1; }
grep -q "^  best barrier=syncthreads " "$tmp/bench" || { echo "bench has no best-of-kind rows"; exit 1; }
"$bartune" report gen/sgemm.lua --results "$tmp/rs" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
grep -q "cuBLAS SGEMM (bench)" "$tmp"/rs/*/report.svg || { echo "the report draws no cuBLAS line"; exit 1; }
echo "bench times the problem's host baseline and the report draws it"
# bench's geomean over size tuples: each host baseline's time over the tuned
# best's, from the very rows it printed (another variant tuned at each tuple:
# the fake runner's times, 1 to 8 ms by the cubin's path, mostly differ)
fg="--runner $root/tests/fake_runner.sh --results $tmp/rg --kernels $tmp/k --cache $tmp/c"
t1="M=64 N=64 K=64" t2="M=96 N=64 K=32"
export FAKE_RUNNER_VARY=1
"$bartune" run gen/sgemm.lua $sel $fg --tuple "$t1" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
"$bartune" run gen/sgemm.lua ${sel/min_blocks=1/min_blocks=2} $fg --tuple "$t2" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; exit 1; }
"$bartune" bench gen/sgemm.lua $fg --tuple "$t1" --tuple "$t2" --sustain 0 >"$tmp/bench" 2>"$tmp/err" ||
    { cat "$tmp/err" "$tmp/bench"; exit 1; }
unset FAKE_RUNNER_VARY
want=$(awk '/^  tuned best / { t[++n] = $3 } /^  cuBLAS SGEMM  / { c[++m] = $3 }
            END { if (n != 2 || m != 2) exit 1; printf "%.3f", exp((log(c[1] / t[1]) + log(c[2] / t[2])) / 2) }' "$tmp/bench") ||
    { echo "bench's rows at two tuples were not printed: $(cat "$tmp/bench")"; exit 1; }
grep -qF "geomean over 2 of 2 size tuples, cuBLAS SGEMM / tuned: ${want}x the time" "$tmp/bench" ||
    { echo "bench's geomean is not the rows' ${want}x: $(grep geomean "$tmp/bench")"; exit 1; }
echo "bench's geomean over size tuples is its rows' (${want}x)"
# bench's markdown table (the one the README quotes): a row a tuple, in its cells the medians
# and the ratio the rows above printed, each kind's best in its own column
python3 - "$tmp/bench" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
printed = lambda label: [float(m) for m in re.findall(r"^  " + label + r" +([\d.]+)", text, re.M)]
tuned, cub, kind = printed("tuned best"), printed("cuBLAS SGEMM"), printed("best barrier=syncthreads")
head = [l for l in text.splitlines() if l.startswith("| size tuple |")]
rows = [l.split("|")[1:-1] for l in text.splitlines() if l.startswith("| M=")]
cols = [c.strip() for c in head[0].split("|")[1:-1]] if head else []
ok = len(head) == 1 and len(rows) == 2 == len(tuned) and all(len(r) == len(cols) for r in rows)
for n, r in enumerate(rows if ok else []):
    cell = dict(zip(cols, (c.strip() for c in r)))
    ok &= float(cell["tuned ms"]) == tuned[n] and float(cell["cuBLAS SGEMM ms"]) == cub[n]
    ok &= cell["cuBLAS SGEMM / tuned"] == "%.3f" % (cub[n] / tuned[n])
    ok &= float(cell["barrier=syncthreads"]) == kind[n]
if not ok:
    sys.exit("bench's table does not hold what it printed:\n" + "\n".join(head + ["|".join(r) for r in rows]))
PY
echo "bench's markdown table holds the medians it printed, a row a tuple"
# bench --gate: every measure it sends (the tuned kernel, the baselines, cuBLAS)
# asks the runner for gated launches, and says so; without it none does
grep -q '"op": *"measure"' "$tmp/req0" || { echo "no measure requests recorded"; exit 1; }
grep '"op": *"measure"' "$tmp/req0" | grep -q '"gate"' && { echo "bench without --gate asked for a gate"; exit 1; }
FAKE_RUNNER_REQUESTS="$tmp/req1" "$bartune" bench gen/sgemm.lua $fs --gate --sustain 0 >"$tmp/bench" 2>"$tmp/err" ||
    { cat "$tmp/err" "$tmp/bench"; exit 1; }
measures=$(grep -c '"op": *"measure"' "$tmp/req1") gated=$(grep '"op": *"measure"' "$tmp/req1" | grep -c '"gate": *true')
[ "$measures" -ge 2 ] && [ "$gated" = "$measures" ] && grep -q '"host"' "$tmp/req1" ||
    { echo "bench --gate: $gated of $measures measures gated"; exit 1; }
grep -q "^gated: " "$tmp/bench" || { echo "bench --gate does not say its launches are gated"; exit 1; }
grep -q '"gated": *true' "$tmp"/rs/*/sgemm.bench.json || { echo "bench --gate saved no gated mark"; exit 1; }
echo "bench --gate gates every measure it sends and says so"
# stdout goes out in whole lines: in one log with stderr (>log 2>&1), the second
# tuple's progress comes after the first tuple's table, not before it (stdout
# held in a 4 KB buffer cut an H200 bench's rows with progress lines)
"$bartune" run gen/sgemm.lua $sel ${fs/M=64/M=96} >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
"$bartune" bench gen/sgemm.lua ${fs%% --size*} --sustain 0 --tuple "M=64 N=64 K=64" --tuple "M=96 N=64 K=64" \
    >"$tmp/both" 2>&1 || { cat "$tmp/both"; exit 1; }
table=$(grep -n "^sgemm on .* M=64 " "$tmp/both" | cut -d: -f1)
prep=$(grep -n '^preparing sgemm at {"M":96' "$tmp/both" | cut -d: -f1)
[ -n "$table" ] && [ -n "$prep" ] && [ "$prep" -gt "$table" ] ||
    { echo "bench's stdout and stderr out of order in one log: $(head -c 2000 "$tmp/both")"; exit 1; }
echo "bench's tables and progress land in one log in the order they happened"
# a tuple with no verified result: bench says so, still benches the others
# (first or last in the list), and exits non-zero
"$bartune" bench gen/sgemm.lua ${fs%% --size*} --sustain 0 --tuple "M=128 N=64 K=64" --tuple "M=96 N=64 K=64" \
    >"$tmp/miss" 2>&1 && { echo "bench with an unverified tuple exited 0: $(cat "$tmp/miss")"; exit 1; }
grep -q "^sgemm on .* M=96 " "$tmp/miss" || { echo "bench stopped at the unverified tuple: $(cat "$tmp/miss")"; exit 1; }
grep -q "no verified result at .*M=128" "$tmp/miss" && grep -q "1 of 2 size tuple(s) have no verified result" "$tmp/miss" ||
    { echo "bench did not name the unverified tuple: $(cat "$tmp/miss")"; exit 1; }
# a bench of one shape keeps the floors an earlier bench saved at the others
"$bartune" bench gen/sgemm.lua ${fs%% --size*} --sustain 0 --tuple "M=96 N=64 K=64" >"$tmp/one" 2>&1 ||
    { cat "$tmp/one"; exit 1; }
python3 - "$tmp"/rs/*/sgemm.bench.json <<'PY' || exit 1
import json, sys
got = sorted(f["sizes"]["M"] for f in json.load(open(sys.argv[1]))["floors"])
if got != [64, 96]:
    sys.exit(f"the saved floors after a bench at M=96 alone are at M={got}, wanted 64 and 96")
PY
saved=$(cat "$tmp"/rs/*/sgemm.bench.json)
"$bartune" bench gen/sgemm.lua ${fs%% --size*} --sustain 0 --tuple "M=128 N=64 K=64" >"$tmp/miss" 2>&1 &&
    { echo "bench of an unverified tuple alone exited 0"; exit 1; }
[ "$(cat "$tmp"/rs/*/sgemm.bench.json)" = "$saved" ] || { echo "a bench that benched nothing replaced the saved floors"; exit 1; }
echo "bench passes over an unverified tuple, names it, benches the rest and exits non-zero; a bench keeps the saved floors of the shapes it did not bench"
# records at two size tuples: a report for each
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 blocks_per_sm=2"
for n in 1000 2000; do
    FAKE_RUNNER_VARY=1 FAKE_RUNNER_DELAY=0.01 "$bartune" run gen/pipeline.lua $sel --size n=$n \
        --runner "$root/tests/fake_runner.sh" --results "$tmp/two" --kernels "$tmp/k" --cache "$tmp/c" \
        --no-emit >/dev/null 2>&1 || { echo "fake run at n=$n failed"; exit 1; }
done
"$bartune" report gen/pipeline.lua --results "$tmp/two" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
for f in report.svg report-n2000.svg; do
    [ -s "$tmp"/two/*/$f ] || { echo "no $f for records at two sizes: $(ls "$tmp"/two/*)"; exit 1; }
done
grep -q "at n=2000" "$tmp"/two/*/report-n2000.svg || { echo "report-n2000.svg is not at n=2000"; exit 1; }
echo "one report per size tuple"
