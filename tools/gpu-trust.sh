#!/usr/bin/env bash
# One device call for the runner's checks (issue 17; see NOTES.md): build,
# then PHASES (words of $1, in order):
#   faults  ctest's gpu_faults (pipeline, sgemm and gemm_bf16 fault suites)
#   sgemm   the accuracy test over real kernels: sgemm's barrier and producer
#           kinds (one tile shape) at every shape of its tune list
#   gemm    gemm_bf16's schedule/producer/regs/split kinds (one tile shape)
#           at every shape of its tune list but 8192^3 (its reference alone
#           takes a minute)
#   race    does racecheck model bar.arrive? tools/race-probe.cu's four rings
#           under racecheck, then one variant of each barrier kind of a
#           `bartune new` skeleton through run --sanitize where reuse() >= 3
#   gpu     ctest -L gpu
#   only    ctest -R "$ONLY" (GPU tests by name, after a fix)
#   bench   the committed bests of sgemm and gemm_bf16 at 4096^3 through the
#           runner's checks as they are now, beside cuBLAS (the results
#           files are copied first, so the saved bench figures stay as they are)
# Logs go under $OUT; each accuracy phase ends with a table of status and
# the worst error_rms / error_max per shape (limits: the problem's accuracy).
set -u
phases=${1:-"faults sgemm gemm"}
. "$(dirname "$0")/gpu-build.sh"
rm -rf /tmp/acc-sgemm /tmp/acc-gemm
# status, then worst error_rms and error_max over the ok records, per shape
summary() {
    python3 - "$@" <<'EOF'
import json, sys, collections
rows = collections.defaultdict(lambda: [collections.Counter(), 0.0, 0.0])
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        key = " ".join(f"{k}={v}" for k, v in sorted(r["sizes"].items()) if k in ("M", "N", "K"))
        row = rows[key]
        row[0][r["status"]] += 1
        row[1] = max(row[1], r.get("error_rms", 0.0))
        row[2] = max(row[2], r.get("error_max", 0.0))
        if r["status"] not in ("ok", "over_occupancy"):
            print("  ", r["status"], r["config"], r.get("message", "")[:200])
for key, (st, rms, mx) in sorted(rows.items()):
    print(f"{key:28s} {dict(st)}  worst error_rms {rms:.3f}  error_max {mx:.3f}")
EOF
}
for p in $phases; do
    log "$p"
    case $p in
    faults) (cd build && ctest -R gpu_faults --output-on-failure) >"$out/faults.log" 2>&1
            tail -12 "$out/faults.log" ;;
    sgemm) timeout 300 $b run gen/sgemm.lua bm=128 bn=128 bk=16 tm=8 tn=8 stages=3 a_layout=m pad=4 \
               raster=row min_blocks=1 split=1 producer_warps=2 --reps 10 --timeout 5 --no-emit \
               --results /tmp/acc-sgemm >"$out/sgemm.log" 2>&1
           summary /tmp/acc-sgemm/*/sgemm.jsonl ;;
    gemm) for s in "4096 4096 4096" "2048 2048 2048" "1024 1024 1024" "16384 128 4096" \
                   "4096 4096 256" "256 256 16384"; do
              read -r m n k <<<"$s"
              timeout 200 $b run gen/gemm_bf16.lua --size M=$m --size N=$n --size K=$k kind=wgmma \
                  bn=128 wm=64 stages=4 raster=grouped consumers=2 grid=persistent epilogue=direct \
                  --reps 10 --timeout 5 --no-emit --results /tmp/acc-gemm >>"$out/gemm.log" 2>&1
          done
          summary /tmp/acc-gemm/*/gemm_bf16.jsonl ;;
    race) nvcc -arch=sm_90 -lineinfo -o /tmp/race-probe tools/race-probe.cu
          for m in none sync arrive mbarrier; do
              echo "-- racecheck, ring of $m"
              timeout 60 compute-sanitizer --tool racecheck --print-limit 3 /tmp/race-probe $m 2>&1 | cut -c1-200 | tail -12
          done >"$out/race.log"
          grep -E "^-- |race-probe|RACECHECK SUMMARY" "$out/race.log"
          rm -rf /tmp/sk && $b new /tmp/sk/sk >/dev/null
          for f in "barrier=named stages=2 producer_warps=1 consumer_warps=4" \
                   "barrier=named stages=4 producer_warps=2 consumer_warps=8" \
                   "barrier=mbarrier stages=2 producer_warps=1 consumer_warps=4" \
                   "barrier=cuda_barrier stages=2 producer_warps=1 consumer_warps=4"; do
              # shellcheck disable=SC2086 # the filter is words
              timeout 150 $b run /tmp/sk/sk/sk.lua $f tile=1024 blocks_per_sm=2 --size n=4194304 \
                  --sanitize --reps 10 --no-emit --results /tmp/sk-r --cache /tmp/sk-c >>"$out/race-sk.log" 2>&1
          done
          python3 - /tmp/sk-r/*/sk.jsonl <<'EOF2' | tee -a "$out/race.log" | cut -c1-400
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "tool" in r:
        c = r["config"]
        print(r["status"], r["tool"], c["barrier"], "stages", c["stages"], "|", r.get("message", "")[:1500])
EOF2
          ;;
    gpu) (cd build && ctest -L gpu -j4 --output-on-failure) >"$out/ctest-gpu.log" 2>&1
         grep -E "tests passed|Passed|Failed|\*\*\*" "$out/ctest-gpu.log" | tail -20 ;;
    only) (cd build && ctest -R "${ONLY:-gpu_}" --output-on-failure) >"$out/ctest-only.log" 2>&1
          grep -vE "^ *Start|^Test project" "$out/ctest-only.log" | tail -12 ;;
    bench) rm -rf /tmp/bench-r && cp -r results /tmp/bench-r
           for sp in sgemm gemm_bf16; do
               timeout 280 $b bench gen/$sp.lua --size M=4096 --size N=4096 --size K=4096 \
                   --results /tmp/bench-r >"$out/bench-$sp.log" 2>&1
               echo "bench $sp rc=$?"; grep -vE "^$|^\[" "$out/bench-$sp.log" | cut -c1-160 | tail -14
           done ;;
    esac
done
cp build/variants/runner.log "$out/" 2>/dev/null
log done
