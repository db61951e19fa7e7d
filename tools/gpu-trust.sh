#!/usr/bin/env bash
# One device call for the runner's checks (issue 17; see NOTES.md): build,
# then PHASES (words of $1, in order):
#   faults  ctest's gpu_faults (pipeline, sgemm and gemm_bf16 fault suites)
#   sgemm   the accuracy test over real kernels: sgemm's barrier and producer
#           kinds (one tile shape) at every shape of its tune list
#   gemm    gemm_bf16's schedule/producer/regs/split kinds (one tile shape)
#           at every shape of its tune list but 8192^3 (its reference alone
#           takes a minute)
#   cluster-probe  how many thread-block clusters of 1..16 CTAs, one an SM, run at once
#   intake-probe  how fast an SM takes in bytes by bulk copies (L2, HBM; chunks, stages, CTAs an SM)
#   memset-probe  what a split-K call's scratch costs: pool, memset and free around a kernel
#   race    does racecheck read the skeleton's rings right? tools/race-probe.cu
#           under racecheck, then without a tool (real races read stale words)
#   diag    the headers' probe attributes as the runtime reports them
#   race2   the probe at 264 blocks and with a slow producer; the skeleton's named ring again
#   tune-gemm      gemm_bf16's shapes (GEMM_SHAPES: MxNxK or MxNxK:transa,transb) in one run,
#                  ils, BUDGET s each (BUDGET_N: that many configurations instead; after a change
#                  of the checks the first is the tuple's old best: a re-verification), the run
#                  cut at TUNE_TIMEOUT s (540); emit. TUNE_ARGS: more of run's options
#                  (e.g. --warm-from nvidia-h200-sm90: a new card starts from the H200's bests)
#   tune-sgemm     sgemm's eight shapes in one run, ils, SGEMM_BUDGET s each (or BUDGET_N
#                  configurations; run emits)
#   tune-kinds     sgemm's kind columns: ils over each region of SGEMM_KINDS ("k=v...|S;..."; S s a
#                  shape, the eight shapes a region) while KINDS_UNTIL s of the call are left
#                  (default 560, counted from the phase's start), results.tgz after each; emit.
#                  KINDS_ARGS: more run options (--warm-from nvidia-h100-80gb-hbm3-sm90: each
#                  region's search starts from the H100's best of it at the same shape)
#   tune-sgemm2    4096^3 first (ils, SGEMM_BIG s), its two-blocks-per-SM classic region in full,
#                  then the eight shapes (ils, SGEMM_BUDGET s each, warm); run emits; results.tgz
#                  after each step (a call cut at its limit loses what is not under $OUT)
#   tune-sgemm3    the few-tile regions ils missed (4 x 4 thread tiles with split-K, 64-row tiles), emit
#   ncu-sgemm      ncu's warp-state and pipe sections of one launch of the 4096^3 best (NCU_CONFIG)
#   tune-scratch   split-K through scratch memory at the few-tile sgemm shapes (ils), then emit
#   tune-regions   sgemm regions of SGEMM_REGIONS ("M N K|k=v..." separated by ';'), ils,
#                  SGEMM_BUDGET s each; then emit
#   ncu-tallk      ncu of the tall-K best at split 4 and 8 (SMs active, occupancy)
#   sass           the SASS of each sgemm config of SASS_CONFIGS (';'-separated): cuobjdump -sass
#                  into $OUT/sass-N.txt, an opcode count of each and of its main loops (tools/sass-loops.py;
#                  cuobjdump is not on the CPU host)
#   ncu-mix        ncu at 4096^3 of each sgemm config of NCU_CONFIGS (';'-separated) and of
#                  cuBLAS's kernel through bench: issue, warp states, executed instruction mix
#   bench-sgemm    bench of sgemm's recorded bests beside cuBLAS, the floor and each kind
#   bench-gemm     the same for gemm_bf16 at GEMM_SHAPES (MxNxK[:transa,transb]; BENCH_ONE=1: one run)
#   twins          every variant of each gemm_bf16 (TWINS_SPACE=sgemm: sgemm) selection of GEMM_TWINS measured again side by side (--retime)
#   tune-gemm-regions  gemm_bf16 regions of GEMM_REGIONS ("MxNxK[:ta,tb]|k=v...;..."), ils, BUDGET s each; emit
#   ncu-gemm       ncu of gemm_bf16's NCU_CONFIG at NCU_SHAPE and of cuBLAS's kernel there (bench)
#   landscapes     every candidate of the skeleton (2 sizes) and pipeline (n = 2^24), --reject 0,
#                  as $OUT/landscapes.tgz (complete landscapes for tests/data/, issue 26)
#   land-toy       every candidate of the toy (tests/toy/axpy.lua) at both sizes, into landscapes.tgz
#   land-gemm      every candidate of gemm_bf16 at each LAND_SHAPE (1024^3; LAND_ARGS e.g. --reps 200), into landscapes.tgz;
#                  cubins compiled ahead come as .landcache.tar.xz (tools/precompile.sh; any phase)
#   header-bench   kernels/gemm_bf16.cuh called as a program does, beside cuBLAS (tools/header-bench.cu)
#   errors  which runtime calls clear an error the caller left pending (tools/error-probe.cu)
#   tune-pipeline  the pipeline space (PIPE_ARGS: e.g. a strategy; run emits)
#   h200    stop (exit 3) unless the GPU is an H200: the phases after it are the H200's (its
#           records, headers, figures); a call for an H200 may get an H100, and can fall back
#           to card-independent work: gpu-trust.sh "h200 tune-sgemm"; [ $? = 3 ] && gpu-trust.sh twins
#   pack    results/ and kernels/ as $OUT/results.tgz
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
# the records this call wrote by status, and the failures' messages (at
# check sizes ...) by count
since=$(date -u +%FT%TZ)
statuses() {
    python3 - "$since" "$@" <<'EOF'
import json, sys, collections
st, why = collections.Counter(), collections.Counter()
for path in sys.argv[2:]:
    for line in open(path):
        r = json.loads(line)
        if r.get("date", "") < sys.argv[1]:
            continue
        st[r["status"]] += 1
        if r["status"] not in ("ok", "over_occupancy", "slow"):
            why[r["status"] + ": " + r.get("message", "")[:160]] += 1
print("statuses:", dict(st))
for m, n in why.most_common(12):
    print(f"  {n:4d}  {m}")
EOF
}
pack_results() { tar czf "$out/results.tgz" results kernels; }
# MxNxK[:transa,transb] as gemm_bf16's --size words
gemm_sizes() {
    local dims lay m n k ta tb
    IFS=: read -r dims lay <<<"$1"
    IFS=x read -r m n k <<<"$dims"
    IFS=, read -r ta tb <<<"${lay:-0,0}"
    echo "--size transa=$ta --size transb=$tb --size M=$m --size N=$n --size K=$k"
}
# the same as one --tuple's words
gemm_tuple() { local w; w=$(gemm_sizes "$1"); echo "${w//--size /}"; }
# GEMM_SHAPES (else the shapes of $1) as run's and bench's words, --tuple each, in the array tuples
gemm_tuples() {
    local sh
    tuples=()
    for sh in ${GEMM_SHAPES:-$1}; do tuples+=(--tuple "$(gemm_tuple "$sh")"); done
}
# sgemm regions one by one (each "M N K|k=v ...", ils BUDGET s; log $out/LOG.log), results.tgz
# after each (a call cut at its limit keeps them), then emit
sgemm_regions() { # LOG BUDGET REGION...
    local name=$1 budget=$2 r
    shift 2
    for r in "$@"; do
        # shellcheck disable=SC2086 # the sizes and the region's k=v are words
        set -- ${r%%|*}
        # shellcheck disable=SC2086
        timeout 150 $b run gen/sgemm.lua ${r#*|} --size M=$1 --size N=$2 --size K=$3 --strategy ils \
            --budget "${budget}s" --timeout 3 --no-emit >>"$out/$name.log" 2>&1
        echo "$1 x $2 x $3 (${r#*|}) rc=$? ($(date +%T))"; pack_results
    done
    grep -E "^  #1 |configurations measured" "$out/$name.log" | cut -c1-260
    $b emit gen/sgemm.lua 2>&1 | tail -3; pack_results
    statuses results/*/sgemm.jsonl
}
for p in $phases; do
    log "$p"
    case $p in
    faults) (cd build && ctest -R gpu_faults --output-on-failure) >"$out/faults.log" 2>&1
            tail -12 "$out/faults.log" ;;
    sgemm) timeout 300 $b run gen/sgemm.lua bm=64 bn=128 bk=16 tm=8 tn=8 warp=tall stages=3 a_layout=m \
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
    cluster-probe) # how many clusters of 1..16 CTAs (one an SM) run at once (tools/cluster-probe.cu)
          nvcc -arch=sm_90 -o /tmp/cluster-probe tools/cluster-probe.cu && /tmp/cluster-probe 120 200
          /tmp/cluster-probe 100 200 ;;
    intake-probe) # how fast an SM takes in bytes by bulk copies, from L2 and from HBM (tools/intake-probe.cu)
          nvcc -arch=sm_90 -o /tmp/intake-probe tools/intake-probe.cu && /tmp/intake-probe 8 | tee "$out/intake-probe.log" ;;
    memset-probe) # what a call's scratch (pool, memset, free) costs beside the kernel (tools/memset-probe.cu)
          nvcc -arch=sm_90 -o /tmp/memset-probe tools/memset-probe.cu && /tmp/memset-probe 200 ;;
    race) nvcc -arch=sm_90 -lineinfo -o /tmp/race-probe tools/race-probe.cu
          { echo "-- under racecheck (2 blocks, 16 rounds)"
            for c in "none 1 2" "early 1 2" "arrive 1 2" "mbar 1 2" "mbar_warp 1 2" "none 4 2" "early 4 2" \
                     "arrive 4 2" "mbar 4 2" "mbar_warp 4 2" "arrive 4 4" "mbar_warp 4 4" "arrive 8 4"; do
                # shellcheck disable=SC2086 # the case is words
                timeout 60 compute-sanitizer --tool racecheck --print-limit 1 /tmp/race-probe $c 16 2 2>&1 |
                    grep -E "race-probe|SUMMARY" | tr '\n' ' '; echo
            done
            echo "-- without a tool (264 blocks, 200000 rounds): a real race reads stale words"
            for c in "none 4 2" "early 4 2" "arrive 1 2" "arrive 4 2" "arrive 4 4" "mbar 4 2" "mbar_warp 4 2" \
                     "mbar_warp 4 4"; do
                # shellcheck disable=SC2086 # the case is words
                timeout 60 /tmp/race-probe $c 200000 264 2>&1
            done; } >"$out/race.log"
          cat "$out/race.log" ;;
    diag) # what cudaFuncGetAttributes reports of the headers' probes, built for sm_90a and for sm_90
          cat >/tmp/probe.cu <<'EOF'
#include <cstdio>
#include "gemm_bf16.cuh"
using namespace bartune_common;
__global__ void k() {}
int main() {
    cudaFuncAttributes p, q, a;
    cudaFuncGetAttributes(&p, (const void*)bt_probe);
    cudaFuncGetAttributes(&q, (const void*)bt_probe_base);
    cudaFuncGetAttributes(&a, (const void*)k);
    printf("probe %zu bytes, base %zu bytes: units %lld; kernel ptxVersion %d binaryVersion %d\n",
           p.sharedSizeBytes, q.sharedSizeBytes, ((long long)p.sharedSizeBytes - (long long)q.sharedSizeBytes) / 16,
           a.ptxVersion, a.binaryVersion);
}
EOF
          for f in -gencode=arch=compute_90a,code=sm_90a -arch=sm_90 -arch=native; do
              nvcc $f -std=c++17 -I kernels -o /tmp/probe /tmp/probe.cu && echo "$f: $(/tmp/probe)"
          done | tee "$out/diag.log" ;;
    race2) # the probe where the skeleton differs: 264 blocks, a slow producer; the skeleton again
          nvcc -arch=sm_90 -lineinfo -o /tmp/race-probe tools/race-probe.cu
          for c in "arrive 4 2 16 264" "arrive 4 2 16 2 slow" "arrive 4 2 16 264 slow" "mbar 4 2 16 264 slow" \
                   "early 4 2 16 2 slow" "early 4 2 16 264 slow"; do
              # shellcheck disable=SC2086 # the case is words
              timeout 60 compute-sanitizer --tool racecheck --print-limit 1 /tmp/race-probe $c 2>&1 |
                  grep -E "race-probe|SUMMARY" | tr '\n' ' '; echo
          done | tee "$out/race2.log"
          rm -rf /tmp/sk /tmp/sk-r /tmp/sk-c && $b new /tmp/sk/sk >/dev/null
          timeout 120 $b run /tmp/sk/sk/sk.lua barrier=named stages=2 producer_warps=1 consumer_warps=4 \
              tile=1024 blocks_per_sm=2 --size n=4194304 --sanitize --reps 10 --no-emit --results /tmp/sk-r \
              --cache /tmp/sk-c >>"$out/race2.log" 2>&1
          grep -h '"tool"' /tmp/sk-r/*/sk.jsonl | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line); print(r["status"], r["tool"], r.get("message", "")[:300].replace("\n", " | "))' | tee -a "$out/race2.log" ;;
    tune-gemm) # gemm_bf16's shapes (GEMM_SHAPES "MxNxK[:transa,transb] ..."), ils --budget
          # $BUDGET each, in one run (--tuple each: one expansion of the space, ~10 s of CPU,
          # where a run a shape paid it every time; records are written as they are measured,
          # so a run cut by TUNE_TIMEOUT keeps them), then emit; GEMM_SPACE=gemm_bf16_f32c:
          # that space instead
          gs=${GEMM_SPACE:-gemm_bf16}
          gemm_tuples "4096x4096x4096 2048x2048x2048 1024x1024x1024 16384x128x4096 4096x4096x256 256x256x16384"
          # shellcheck disable=SC2086 # TUNE_ARGS are words
          timeout "${TUNE_TIMEOUT:-540}" $b run "gen/$gs.lua" "${tuples[@]}" --strategy ils \
              --budget "${BUDGET_N:-${BUDGET:-30}s}" --timeout 3 --no-emit ${TUNE_ARGS:-} >>"$out/tune-gemm.log" 2>&1
          echo "$gs, $((${#tuples[@]} / 2)) size tuples: run rc=$? ($(date +%T))"
          grep -E "records by status|^  #1 " "$out/tune-gemm.log" | cut -c1-200
          pack_results
          statuses results/*/"$gs".jsonl
          $b emit "gen/$gs.lua" 2>&1 | tail -5 ;;
    tune-gemm-regions) # gemm_bf16 regions of GEMM_REGIONS ("MxNxK[:transa,transb]|k=v ..." separated
          # by ';'), ils, BUDGET s each (an exact config: that variant alone); then emit
          IFS=';' read -r -a regions <<<"${GEMM_REGIONS:?MxNxK|k=v...;...}"
          for r in "${regions[@]}"; do
              # shellcheck disable=SC2046,SC2086 # the sizes and the region's k=v are words
              timeout 200 $b run gen/gemm_bf16.lua ${r#*|} $(gemm_sizes "${r%%|*}") --strategy ils \
                  --budget "${BUDGET:-30}s" --timeout 3 --no-emit >>"$out/tune-gemm-regions.log" 2>&1
              echo "$r rc=$? ($(date +%T))"
              grep -E "^  #1 " "$out/tune-gemm-regions.log" | tail -1 | cut -c1-220
              pack_results
          done
          statuses results/*/gemm_bf16.jsonl
          $b emit gen/gemm_bf16.lua 2>&1 | tail -3; pack_results ;;
    twins) # every variant of each gemm_bf16 selection of GEMM_TWINS ("MxNxK[:ta,tb]|k=v...;...")
          # measured again side by side in one process (--retime; no search: twins on one card); emit.
          # TWIN_TIMEOUT (300 s) each: 8192^3's CPU reference alone takes ~130 s. TWINS_SPACE=sgemm:
          # sgemm's selections instead ("MxNxK|k=v...", one layout)
          ts=${TWINS_SPACE:-gemm_bf16}
          IFS=';' read -r -a sels <<<"${GEMM_TWINS:?MxNxK|k=v...;...}"
          for r in "${sels[@]}"; do
              sz=$(gemm_sizes "${r%%|*}")
              [ "$ts" = sgemm ] && sz=${sz#--size transa=* --size transb=* }
              # shellcheck disable=SC2086 # the sizes and the selection's k=v are words
              timeout "${TWIN_TIMEOUT:-300}" $b run "gen/$ts.lua" ${r#*|} $sz --retime \
                  --timeout 5 --no-emit >"$out/twins.tmp" 2>&1
              echo "$r rc=$? ($(date +%T))"
              cat "$out/twins.tmp" >>"$out/twins.log"
              grep -E "^  #[0-9] " "$out/twins.tmp" | cut -c1-260
              pack_results
          done
          $b emit "gen/$ts.lua" 2>&1 | tail -3; pack_results ;;
    ncu-gemm) # gemm_bf16's best at NCU_SHAPE (4096^3) against cuBLAS's kernel: what each launches
          # (name, grid, cluster, registers), tensor pipe and L2/DRAM throughput, warp states
          sections="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
              --section MemoryWorkloadAnalysis --metrics launch__cluster_dim_x,launch__cluster_dim_y,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum.per_second,lts__t_sectors_srcunit_tex_op_read.sum"
          # shellcheck disable=SC2046,SC2086 # the sections, the config and the sizes are words
          timeout 120 ncu --clock-control none --kernel-name bartune_kernel --launch-skip 12 --launch-count 1 \
              $sections $b run gen/gemm_bf16.lua ${NCU_CONFIG:?k=v...} $(gemm_sizes "${NCU_SHAPE:-4096x4096x4096}") \
              --timeout 30 --no-emit --results /tmp/ncu-r >"$out/ncu-gemm.log" 2>&1
          echo "ours: ncu rc=$?"
          # shellcheck disable=SC2046,SC2086
          timeout 150 ncu --clock-control none --kernel-name regex:'gemm|xmma|sm90' --launch-skip 5 --launch-count 1 \
              $sections $b bench gen/gemm_bf16.lua $(gemm_sizes "${NCU_SHAPE:-4096x4096x4096}") --sustain 0 \
              >"$out/ncu-gemm-cublas.log" 2>&1
          echo "cuBLAS: ncu rc=$?"
          grep -hE "^  [a-zA-Z_0-9]+.*\(|Duration|Registers Per|Block Size|Grid Size|Cluster|cluster_dim|gmma|lts__|L2 Cache Throughput|DRAM Throughput|Memory Throughput|Compute \(SM\)|Shared Memory Config|Dynamic Shared|Waves|Warp Cycles Per Issued|Stall" \
              "$out"/ncu-gemm*.log | head -90 ;;
    tune-sgemm) # the eight shapes in one run (one expansion), ils, SGEMM_BUDGET s each; then emit
          # shellcheck disable=SC2086 # TUNE_ARGS are words
          timeout "${SGEMM_TIMEOUT:-540}" $b run gen/sgemm.lua --strategy ils --budget "${BUDGET_N:-${SGEMM_BUDGET:-45}s}" \
              --timeout 3 ${TUNE_ARGS:-} >"$out/tune-sgemm.log" 2>&1
          echo "run rc=$?"
          # a run cut by the timeout has recorded what it measured but not emitted
          $b emit gen/sgemm.lua 2>&1 | tail -1
          grep -E "records by status|^  #1 |verifying at the check sizes|wrote" "$out/tune-sgemm.log" | cut -c1-220
          statuses results/*/sgemm.jsonl ;;
    tune-kinds) # issue 24's kind columns: ils over one barrier or producer kind at a time, eight shapes
          t0=$(date +%s)
          IFS=';' read -r -a kinds <<<"${SGEMM_KINDS:-producer=tensor_b|12;producer=bulk|8;barrier=named|8;barrier=cuda_barrier|8;producer=regs|8}"
          for kb in "${kinds[@]}"; do
              left=$(( ${KINDS_UNTIL:-560} - ($(date +%s) - t0) ))
              [ "$left" -lt 60 ] && { echo "skipped ${kb%|*}: $left s left"; continue; }
              # shellcheck disable=SC2086 # the region's k=v and KINDS_ARGS are words
              timeout "$left" $b run gen/sgemm.lua ${kb%|*} --strategy ils --budget "${kb#*|}s" --timeout 3 \
                  ${KINDS_ARGS:-} --no-emit >"$out/kind.tmp" 2>&1
              echo "${kb%|*} rc=$? ($(( $(date +%s) - t0 )) s)"
              grep -E "records by status|^  #1 " "$out/kind.tmp" | cut -c1-220
              cat "$out/kind.tmp" >>"$out/kinds.log"; pack_results
          done
          $b emit gen/sgemm.lua 2>&1 | tail -1; pack_results ;;
    tune-sgemm2) # 4096^3 first (ils, SGEMM_BIG s), the classic two-blocks-per-SM region there in
          # full (k=v), then the eight shapes (ils, SGEMM_BUDGET s each, warm from what is recorded); emit
          timeout 200 $b run gen/sgemm.lua --size M=4096 --size N=4096 --size K=4096 --strategy ils \
              --budget "${SGEMM_BIG:-60}s" --timeout 3 --no-emit >"$out/tune-sgemm.log" 2>&1
          echo "4096^3 ils rc=$? ($(date +%T))"; pack_results
          timeout 150 $b run gen/sgemm.lua barrier=syncthreads loaders=all bm=128 bn=128 min_blocks=2 tm=8 tn=8 \
              --size M=4096 --size N=4096 --size K=4096 --timeout 3 --no-emit >>"$out/tune-sgemm.log" 2>&1
          echo "4096^3 region rc=$? ($(date +%T))"; pack_results
          timeout "${SGEMM_TIMEOUT:-400}" $b run gen/sgemm.lua --strategy ils --budget "${SGEMM_BUDGET:-20}s" \
              --timeout 3 >>"$out/tune-sgemm.log" 2>&1
          echo "eight shapes rc=$? ($(date +%T))"; pack_results
          grep -E "records by status|^  #1 |verifying at the check sizes|wrote|configurations measured" "$out/tune-sgemm.log" | cut -c1-240
          statuses results/*/sgemm.jsonl ;;
    tune-sgemm3) # the regions ils missed where tiles are few (NOTES 2026-12-02, sixth session):
          # thread tiles of 4 x 4 (eight consumer warps in a 64 x 64 tile) with split-K at the tall-K
          # and small shapes, 64-row tiles at N = 128; ils, SGEMM_BUDGET s each; then emit
          sgemm_regions tune-sgemm3 "${SGEMM_BUDGET:-30}" "256 256 16384|bm=64 bn=64 tm=4 tn=4" \
              "512 512 512|tm=4 tn=4" "1024 1024 1024|tm=4" "16384 128 4096|bm=64" ;;
    tune-scratch) # split-K through scratch memory (scratch_split) where tiles are few: the
          # warp-specialised cp.async region at each shape, ils SGEMM_BUDGET s each; then emit
          sgemm_regions tune-scratch "${SGEMM_BUDGET:-40}" "256 256 16384|barrier=mbarrier producer=cp_async" \
              "512 512 512|barrier=mbarrier producer=cp_async" "1024 1024 1024|producer=cp_async" \
              "16384 128 4096|producer=cp_async" "256 256 16384|producer=cp_async tm=4 tn=4" ;;
    tune-regions) # the regions a change of the space opened (SGEMM_REGIONS), ils; then emit
          IFS=';' read -r -a regions <<<"${SGEMM_REGIONS:?M N K|k=v...;...}"
          sgemm_regions tune-regions "${SGEMM_BUDGET:-40}" "${regions[@]}" ;;
    ncu-sgemm) # where the 4096^3 best loses to cuBLAS: warp stalls, issue and pipes (one launch)
          rm -rf /tmp/ncu-r
          timeout 150 ncu --clock-control none --kernel-name bartune_kernel --launch-skip 12 --launch-count 1 \
              --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
              --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
              $b run gen/sgemm.lua ${NCU_CONFIG:-barrier=syncthreads loaders=all producer=regs bm=128 bn=128 bk=16 \
              tm=8 tn=8 warp=tall stages=2 a_layout=k raster=row min_blocks=2} --size M=4096 --size N=4096 \
              --size K=4096 --timeout 30 --no-emit --results /tmp/ncu-r >"$out/ncu-sgemm.log" 2>&1
          echo "ncu rc=$?"; grep -E "Warp Cycles|Stall|Issue|Pipe|Throughput|Eligible|Bank" "$out/ncu-sgemm.log" | head -40 ;;
    sass) # what nvcc made of a variant's main loop: the order of its FFMAs, LDS and barriers
          IFS=';' read -r -a cfgs <<<"${SASS_CONFIGS:?k=v...;...}"
          i=0
          for c in "${cfgs[@]}"; do
              i=$((i + 1)) && rm -rf /tmp/sass-c
              # shellcheck disable=SC2086 # the config is words
              $b compile gen/sgemm.lua $c --arch sm_90 --cache /tmp/sass-c >/dev/null 2>&1
              cubin=$(ls /tmp/sass-c/*.cubin | head -1)
              { echo "# $c"; cuobjdump -sass "$cubin"; } >"$out/sass-$i.txt" 2>&1
              echo "$c:"
              grep -oE '^ +/\*[0-9a-f]{4,}\*/ +[A-Z][A-Z0-9._]+' "$out/sass-$i.txt" | awk '{sub(/\..*/, "", $2); print $2}' |
                  sort | uniq -c | sort -rn | head -12 | tr '\n' ' '
              echo
              python3 tools/sass-loops.py "$out/sass-$i.txt"  # its main loops alone
          done ;;
    ncu-mix) # what our kernels issue against cuBLAS's at 4096^3 (issue 24: issue-bound, NOTES)
          sections="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats
              --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats
              --metrics sass__inst_executed_per_opcode,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio
              --print-metric-instances values"
          sizes="--size M=4096 --size N=4096 --size K=4096"
          IFS=';' read -r -a cfgs <<<"${NCU_CONFIGS:?k=v...;...}"
          i=0
          for c in "${cfgs[@]}"; do
              i=$((i + 1)) && rm -rf /tmp/ncu-r
              # shellcheck disable=SC2086 # the sections, the config and the sizes are words
              timeout 100 ncu --clock-control none --kernel-name bartune_kernel --launch-skip 12 --launch-count 1 \
                  $sections $b run gen/sgemm.lua $c $sizes --timeout 30 --no-emit --results /tmp/ncu-r \
                  >"$out/ncu-mix-$i.log" 2>&1
              echo "$c: ncu rc=$?"
          done
          # shellcheck disable=SC2086
          timeout 150 ncu --clock-control none --kernel-name regex:gemm --launch-skip 5 --launch-count 1 \
              $sections $b bench gen/sgemm.lua $sizes --sustain 0 >"$out/ncu-mix-cublas.log" 2>&1
          echo "cuBLAS: ncu rc=$?"
          grep -hE "^  [a-zA-Z_0-9]+.*\(|Registers Per|Block Size|Grid Size|Issue Slots Busy|Executed Ipc A|FMA|No Eligible|Eligible Warps|Warp Cycles Per Issued|issue_stalled" \
              "$out"/ncu-mix-*.log | head -120 ;;
    ncu-tallk) # why split 8 (128 blocks) is no faster than split 4 (64) at 256 x 256 x 16384: are
          # SMs idle (clusters packed onto fewer SMs) or is each block slower, and on what does it
          # wait (warp states, memory)? TALLK_SPLITS: the splits (default 4 8)
          for sp in ${TALLK_SPLITS:-4 8}; do
              rm -rf /tmp/ncu-r
              timeout 100 ncu --clock-control none --kernel-name bartune_kernel --launch-skip 12 --launch-count 1 \
                  --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats \
                  --section WarpStateStats --section MemoryWorkloadAnalysis \
                  --metrics sm__cycles_active.min,sm__cycles_active.max,sm__cycles_active.avg,launch__cluster_scheduling_policy \
                  $b run gen/sgemm.lua barrier=mbarrier producer=cp_async producer_warps=4 bm=64 bn=64 bk=32 tm=4 \
                  tn=4 stages=4 a_layout=m raster=row min_blocks=1 split=$sp --size M=256 --size N=256 --size K=16384 \
                  --timeout 30 --no-emit --results /tmp/ncu-r >"$out/ncu-tallk-$sp.log" 2>&1
              echo "split $sp: ncu rc=$?"
              grep -E "Duration|SM Active Cycles|sm__cycles_active|Achieved Occupancy|Eligible Warps|Waves Per SM|Cluster|Stall|L2 Hit|Mem Busy|Max Bandwidth" \
                  "$out/ncu-tallk-$sp.log" | head -24
          done ;;
    bench-gemm) # bench of gemm_bf16's recorded bests (GEMM_SHAPES as tune-gemm's) beside cuBLAS and each kind;
          # BENCH_ONE=1: every shape in one bench run (--tuple each: the issue's table from one run)
          if [ -n "${BENCH_ONE:-}" ]; then
              gemm_tuples "4096x4096x4096 4096x4096x4096:0,1"
              # shellcheck disable=SC2086 # BENCH_ARGS are words
              timeout "${BENCH_TIMEOUT:-540}" $b bench gen/gemm_bf16.lua "${tuples[@]}" ${BENCH_ARGS:-} \
                  >>"$out/bench-gemm.log" 2>&1
              echo "bench, $((${#tuples[@]} / 2)) size tuples in one run: rc=$?"
              grep -E "^gemm_bf16 on|tuned best|cuBLAS" "$out/bench-gemm.log" | cut -c1-160
              continue
          fi
          for sh in ${GEMM_SHAPES:-4096x4096x4096 4096x4096x4096:0,1}; do
              # shellcheck disable=SC2046 # the sizes are words
              # shellcheck disable=SC2086 # BENCH_ARGS are words (e.g. --sustain 0)
              timeout "${BENCH_TIMEOUT:-120}" $b bench gen/gemm_bf16.lua $(gemm_sizes "$sh") ${BENCH_ARGS:-} \
                  >>"$out/bench-gemm.log" 2>&1
              echo "bench $sh rc=$?"
          done
          grep -E "^gemm_bf16 on|tuned best|cuBLAS" "$out/bench-gemm.log" | cut -c1-160 ;;
    bench-sgemm) timeout "${BENCH_TIMEOUT:-240}" $b bench gen/sgemm.lua >"$out/bench-sgemm.log" 2>&1
          echo "bench rc=$?"; grep -v "^$" "$out/bench-sgemm.log" | cut -c1-200 | tail -40 ;;
    landscapes) # complete landscapes for the search (issue 26): the skeleton at two sizes, pipeline at a second
          rm -rf /tmp/land && $b new /tmp/land/sk >/dev/null
          for n in 67108864 4194304; do
              log "skeleton n=$n"
              timeout 200 $b run /tmp/land/sk/sk.lua --size n=$n --reject 0 --no-emit \
                  --results /tmp/land/r >>"$out/landscapes.log" 2>&1
              echo "rc=$?"
          done
          log "pipeline n=16777216"
          timeout "${LAND_TIMEOUT:-300}" $b run gen/pipeline.lua --size n=16777216 --reject 0 --no-emit \
              --results /tmp/land/r >>"$out/landscapes.log" 2>&1
          echo "rc=$?"; log "landscapes measured"
          grep -E "records by status|^  #1 " "$out/landscapes.log" | cut -c1-160
          tar czf "$out/landscapes.tgz" -C /tmp/land r ;;
    land-toy) # the toy's complete landscape (issue 26): every candidate at both tuned sizes
          mkdir -p /tmp/land
          timeout 200 $b run tests/toy/axpy.lua --reject 0 --no-emit --results /tmp/land/r \
              >>"$out/landscapes.log" 2>&1
          echo "toy rc=$?"; grep -E "records by status|^  #1 " "$out/landscapes.log" | tail -4 | cut -c1-160
          tar czf "$out/landscapes.tgz" -C /tmp/land r ;;
    land-gemm) # gemm_bf16's complete landscape at LAND_SHAPE (default 1024^3), every candidate;
          # cubins compiled ahead on another machine: .landcache.tar.xz (tools/gpu-build.sh)
          mkdir -p /tmp/land
          for sh in ${LAND_SHAPE:-1024x1024x1024}; do
              # shellcheck disable=SC2046,SC2086 # the sizes and LAND_ARGS (e.g. --reps 200) are words
              timeout "${LAND_TIMEOUT:-500}" $b run gen/gemm_bf16.lua $(gemm_sizes "$sh") ${LAND_ARGS:-} \
                  --reject 0 --timeout 3 --no-emit --results /tmp/land/r >>"$out/landscapes.log" 2>&1
              echo "gemm $sh rc=$?"; grep -E "records by status|^  #1 |compiled|measured" "$out/landscapes.log" | tail -5 | cut -c1-200
          done
          tar czf "$out/landscapes.tgz" -C /tmp/land r ;;
    header-bench) # the committed header as a program calls it, beside cuBLAS, events per call
          # (tools/header-bench.cu; HB_SHAPES "MxNxK[:transa,transb] ...", default the tune list;
          # HB_MODES "s q c k ck b h g": the ways of timing it, default s; HB_PROBLEM=sgemm: sgemm's
          # header beside cublasSgemm, log header-bench-sgemm.log)
          hb=header-bench hb_def=
          [ "${HB_PROBLEM:-gemm_bf16}" = sgemm ] && hb=header-bench-sgemm hb_def=-DHB_SGEMM
          # shellcheck disable=SC2086 # hb_def is one word or none
          nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I kernels $hb_def tools/header-bench.cu \
              -lcublas -o /tmp/$hb >"$out/$hb.log" 2>&1 || { cat "$out/$hb.log"; continue; }
          # shellcheck disable=SC2086 # the shapes are words
          /tmp/$hb "${HB_REPS:-50}" ${HB_SHAPES:-} | tee -a "$out/$hb.log" ;;
    errors) nvcc -arch=sm_90 -std=c++17 -o /tmp/error-probe tools/error-probe.cu && /tmp/error-probe | tee "$out/errors.log" ;;
    tune-pipeline) # shellcheck disable=SC2086 # PIPE_ARGS are words
          timeout "${PIPE_TIMEOUT:-330}" $b run gen/pipeline.lua ${PIPE_ARGS:-} >"$out/tune-pipeline.log" 2>&1
          echo "run rc=$?"
          grep -E "records by status|^  #1 |verifying at the check sizes|wrote" "$out/tune-pipeline.log" | cut -c1-200
          statuses results/*/pipeline.jsonl ;;
    h200) # the key the records are filed under, as bartune itself names this GPU
          card=$($b devices 2>&1 | head -1)
          [[ $card == "GPU 0: nvidia-h200-sm90:"* ]] ||
              { echo "gpu-trust.sh: not the H200 ($card): the phases after h200 did not run"; exit 3; } ;;
    pack) pack_results ;;
    gpu) (cd build && ctest -L gpu -j5 --output-on-failure) >"$out/ctest-gpu.log" 2>&1
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
