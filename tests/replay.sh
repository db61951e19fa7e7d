#!/usr/bin/env bash
# Every shipped strategy replayed on the committed H200 pipeline records (no
# GPU, no nvcc), 30 seeds each, against stated thresholds: a change that
# makes a strategy worse fails here. Figures: NOTES.md.
set -u
bartune=$1 root=$2
cd "$root"
records=results/nvidia-h200-sm90/pipeline.jsonl
fail=0
# check STRATEGY PCT MAX_MEDIAN MIN_SEEDS
check() {
    local line med seeds
    line=$(grep "within $2%" "$tmp_out")
    med=$(sed -n 's/.*median \([0-9]*\) measured.*/\1/p' <<<"$line")
    seeds=$(sed -n 's/.*(\([0-9]*\)\/30 seeds).*/\1/p' <<<"$line")
    if [ -z "$med" ] || [ "$med" -gt "$3" ] || [ "$seeds" -lt "$4" ]; then
        echo "$1: within $2%: ${line:-no line}; wanted a median <= $3 in >= $4 of 30 seeds"
        fail=1
    fi
}
tmp_out=$(mktemp)
trap 'rm -f "$tmp_out"' EXIT
for st in ils ga random exhaustive; do
    "$bartune" replay gen/pipeline.lua --records "$records" --strategy $st --seeds 30 >"$tmp_out" 2>&1 ||
        { echo "replay $st failed:"; cat "$tmp_out"; fail=1; continue; }
    head -1 "$tmp_out" | grep -q "5971 candidates" || { echo "$st: not the whole space"; cat "$tmp_out"; fail=1; }
    case $st in
    ils) check ils 2 35 27; check ils 1 45 27 ;;
    ga) check ga 2 90 27; check ga 1 110 27 ;;
    random) check random 2 300 25 ;;
    exhaustive) check exhaustive 2 60 30 ;;
    esac
done
[ $fail = 0 ] && echo "every strategy within its thresholds"
exit $fail
