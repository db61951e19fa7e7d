#!/usr/bin/env bash
# bartune report draws the committed H200 records with gnuplot: an SVG and a
# PNG holding the landscape and the strategies' curves.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
command -v gnuplot >/dev/null || { echo "gnuplot missing (.ci/install-deps installs gnuplot-nox)"; exit 1; }
cp results/nvidia-h200-sm90/pipeline.jsonl "$tmp/"
"$bartune" report gen/pipeline.lua --records "$tmp/pipeline.jsonl" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
[ -s "$tmp/report.png" ] || { echo "no PNG"; exit 1; }
head -c 8 "$tmp/report.png" | od -An -c | grep -q "P   N   G" || { echo "report.png is not a PNG"; exit 1; }
for want in "<svg" "mbarrier/bulk" "seed __syncthreads 4+4" "ils" "exhaustive" "measured configurations"; do
    grep -qF "$want" "$tmp/report.svg" || { echo "report.svg lacks '$want'"; exit 1; }
done
echo "report drawn: $(wc -c <"$tmp/report.svg") bytes of SVG, $(wc -c <"$tmp/report.png") of PNG"
