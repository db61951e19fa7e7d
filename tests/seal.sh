#!/usr/bin/env bash
# bartune seal moves records into <space>.jsonl.gz, which every command reads
# before the plain file: show prints the same, a run finds its measurements
# recorded, a seal killed after its rename adds nothing twice, and a damaged
# or planted history is an error naming it, with nothing already saved lost.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
fail() { echo "$*"; exit 1; }
d=$tmp/r/nvidia-h200-sm90 plain=$tmp/r/nvidia-h200-sm90/pipeline.jsonl
mkdir -p "$d"
cp tests/data/h200-subset.jsonl "$plain"
show() { "$bartune" show gen/pipeline.lua --results "$tmp/r" 2>&1; }
show >"$tmp/before" || fail "show before sealing: $(cat "$tmp/before")"
grep -q "records by status: ok 76 over_occupancy 44" "$tmp/before" || fail "unexpected fixture: $(cat "$tmp/before")"

"$bartune" seal --results "$tmp/r" 2>"$tmp/err" || fail "seal: $(cat "$tmp/err")"
grep -q "120 records of $plain moved into $plain.gz" "$tmp/err" || fail "seal said: $(cat "$tmp/err")"
[ -f "$plain" ] && [ ! -s "$plain" ] || fail "the plain file was not emptied"
[ "$(gunzip -c "$plain.gz" | md5sum)" = "$(md5sum <tests/data/h200-subset.jsonl)" ] ||
    fail "the sealed history is not the records"
show >"$tmp/after" && cmp -s "$tmp/before" "$tmp/after" || fail "show after sealing differs: $(diff "$tmp/before" "$tmp/after")"
"$bartune" seal --results "$tmp/r" 2>"$tmp/err" && [ ! -s "$tmp/err" ] || fail "sealing nothing: $(cat "$tmp/err")"

# new records append to the plain file, after the sealed ones; a second seal
# adds a gzip member
head -3 tests/data/h200-subset.jsonl | sed 's/"id":"/"id":"0/' >"$plain"
"$bartune" seal --results "$tmp/r" 2>"$tmp/err" || fail "second seal: $(cat "$tmp/err")"
[ "$(gunzip -c "$plain.gz" | wc -l)" = 123 ] || fail "second seal: $(gunzip -c "$plain.gz" | wc -l) records"
# killed after its rename, before emptying: the plain text is the history's end
gunzip -c "$plain.gz" | tail -3 >"$plain"
"$bartune" seal --results "$tmp/r" 2>"$tmp/err" || fail "resumed seal: $(cat "$tmp/err")"
[ "$(gunzip -c "$plain.gz" | wc -l)" = 123 ] && [ ! -s "$plain" ] || fail "a resumed seal sealed twice"

# a run finds what the sealed history records (the fake runner: no GPU)
sel="producer_warps=1 consumer_warps=4 stages=2 tile=1024 cvec=4 blocks_per_sm=2"
args="--size n=1000 --runner $root/tests/fake_runner.sh --results $tmp/f --kernels $tmp/k --cache $tmp/c"
"$bartune" run gen/pipeline.lua $args $sel >/dev/null 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
"$bartune" seal --results "$tmp/f" 2>"$tmp/err" || fail "seal of the run: $(cat "$tmp/err")"
# devices finds the card's tuning in the sealed history alone (the plain file empty)
"$bartune" devices --runner "$root/tests/fake_runner.sh" --cache "$tmp/c" --results "$tmp/f" >"$tmp/dev" 2>&1 &&
    grep -q "headers run the variants tuned on this card: $tmp/f/fake-gpu-sm90" "$tmp/dev" ||
    fail "devices with sealed records: $(cat "$tmp/dev")"
"$bartune" run gen/pipeline.lua $args $sel >/dev/null 2>"$tmp/err" || fail "run again: $(cat "$tmp/err")"
grep -q "0 measured, 12 already recorded" "$tmp/err" || fail "the run did not see the sealed records: $(cat "$tmp/err")"
"$bartune" run gen/pipeline.lua $args $sel --retime >/dev/null 2>"$tmp/err" || fail "retime: $(cat "$tmp/err")"
f=$(ls "$tmp"/f/*/pipeline.jsonl)
[ "$(wc -l <"$f")" = 12 ] && [ "$(gunzip -c "$f.gz" | wc -l)" = 12 ] || fail "a run after sealing did not append to the plain file"

# damaged: cut short. show fails naming it; seal leaves the plain records
cp "$plain.gz" "$tmp/good.gz"
head -c 2000 "$tmp/good.gz" >"$plain.gz"
head -2 tests/data/h200-subset.jsonl | sed 's/"id":"/"id":"1/' >"$plain"
cp "$plain" "$tmp/plain.keep"
show >"$tmp/out"
[ $? = 3 ] && grep -q "$plain.gz: gzip -dc failed" "$tmp/out" || fail "a damaged history: $(cat "$tmp/out")"
"$bartune" seal --results "$tmp/r" 2>"$tmp/err"
[ $? = 3 ] && grep -q "the records stay where they were" "$tmp/err" || fail "seal of a damaged history: $(cat "$tmp/err")"
cmp -s "$plain" "$tmp/plain.keep" && cmp -s <(head -c 2000 "$tmp/good.gz") "$plain.gz" || fail "a failed seal changed the files"
# planted: a bomb (300 MB of zeros in 1.3 MB) stops at its bound; a FIFO and
# a folder are refused without hanging; records of another device in it too
head -c 300000000 /dev/zero | gzip -1 >"$plain.gz"
show >"$tmp/out"
[ $? = 3 ] && grep -q "inflates to more than [0-9]* MiB (64 times its size" "$tmp/out" || fail "a bomb: $(cat "$tmp/out")"
rm "$plain.gz" && mkfifo "$plain.gz"
timeout 20 "$bartune" show gen/pipeline.lua --results "$tmp/r" >"$tmp/out" 2>&1
[ $? = 3 ] && grep -q "$plain.gz: not a regular file" "$tmp/out" || fail "a FIFO: $(cat "$tmp/out")"
rm "$plain.gz"
# a FIFO at the plain file's place reads as empty, not hanging; a pipe as --records reads whole
mv "$plain" "$tmp/plain.moved" && mkfifo "$plain"
timeout 20 "$bartune" show gen/pipeline.lua --results "$tmp/r" >"$tmp/out" 2>&1
[ $? != 124 ] || fail "a FIFO for the plain file hung show"
timeout 20 "$bartune" seal --results "$tmp/r" >"$tmp/out" 2>&1
[ $? = 3 ] && grep -q "$plain is not a regular file" "$tmp/out" || fail "seal of a FIFO: $(cat "$tmp/out")"
rm "$plain" && mv "$tmp/plain.moved" "$plain"
# every file bartune reads is opened so (read_file): a FIFO as the space file is an error, not a hang
mkfifo "$tmp/fifo.lua"
timeout 20 "$bartune" list "$tmp/fifo.lua" >"$tmp/out" 2>&1
[ $? = 3 ] || fail "a FIFO as the space file: $(cat "$tmp/out")"
"$bartune" show gen/pipeline.lua --records <(cat tests/data/h200-subset.jsonl) >"$tmp/out" 2>&1 &&
    grep -q "records by status: ok 76 over_occupancy 44" "$tmp/out" || fail "records from a pipe: $(cat "$tmp/out")"
sed 's/"name":"NVIDIA H200"/"name":"NVIDIA H100"/' tests/data/h200-subset.jsonl | gzip >"$plain.gz"
show >"$tmp/out"
[ $? = 3 ] && grep -q "$plain.gz:1: " "$tmp/out" || fail "another device's history: $(cat "$tmp/out")"
echo "ok: sealed 120 + 3 records, read back the same; a run after sealing skipped its 12; damaged, bomb, FIFO and foreign histories refused"
