#!/usr/bin/env bash
# One device call for the gemm_bf16 space (see NOTES.md): build, a smoke run
# of the simplest Hopper variants, then PHASES (words of $1, in order):
#   kinds   every kind once (stages=4, grouped raster) at 4096^3
#   more    MORE_SIZE at each filter of MORE ("k=v ...; k=v ..."), then emit
#   tune    --strategy ils over the space's tune list, --budget $BUDGET each
#   bench   bench over the tune list (ceilings, cuBLAS, best of each kind)
#   faults  the gemm_bf16 fault variants (tests/faults)
#   header  the emitted header in a two-unit program (tests/gemm_header.sh)
#   sass    HGMMA / UTMALDG / SYNCS counts of the compiled variants
# Logs and results go under $OUT (results.tgz: results/ and kernels/).
set -u
phases=${1:-"kinds bench faults header sass"}
BUDGET=${BUDGET:-60}
. "$(dirname "$0")/gpu-build.sh"
sz4="--size M=4096 --size N=4096 --size K=4096"
log smoke
$b run gen/gemm_bf16.lua --size M=1000 --size N=520 --size K=296 --timeout 3 --no-emit --results /tmp/smoke \
    kind=wgmma bn=128 wm=64 consumers=1 producer=warp stages=4 cluster=1 grid=tile raster=row \
    >"$out/smoke.log" 2>&1
grep -E "records by status|^  #" "$out/smoke.log" | cut -c1-150
grep -q "\"status\":\"ok\"" /tmp/smoke/*/gemm_bf16.jsonl || { tail -20 "$out/smoke.log"; phases="faults sass"; }
for p in $phases; do
    log "$p"
    case $p in
    kinds) $b run gen/gemm_bf16.lua ${KSIZE:-$sz4} ${KINDS:-stages=4 raster=grouped} --timeout 3 --no-emit >"$out/kinds.log" 2>&1
           grep -E "records by status" "$out/kinds.log"; grep -E "^  #[0-9] " "$out/kinds.log" | cut -c1-220 ;;
    more) # MORE_SIZE at each of MORE ("k=v k=v; k=v ..."), recorded
          IFS=';' read -ra sel <<<"${MORE:-}"
          for f in "${sel[@]}"; do
              # shellcheck disable=SC2086 # the filters are words
              $b run gen/gemm_bf16.lua $MORE_SIZE $f --timeout 5 --no-emit >>"$out/more.log" 2>&1
          done
          grep -E "records by status|^  #1 " "$out/more.log" | cut -c1-200
          $b emit gen/gemm_bf16.lua >>"$out/more.log" 2>&1 ;;
    tune) $b run gen/gemm_bf16.lua --strategy ils --budget "$BUDGET" --timeout 3 >"$out/tune.log" 2>&1
          grep -E "records by status|^gemm_bf16 on|#1 " "$out/tune.log" | cut -c1-220 ;;
    bench) $b bench gen/gemm_bf16.lua ${BENCH_SIZES:-$sz4} >"$out/bench.log" 2>&1; cut -c1-200 "$out/bench.log" | grep -v "^$" ;;
    faults) $b run tests/faults/gemm_bf16_faults.lua --templates tests/faults --timeout 5 --no-emit \
                --results /tmp/fr >"$out/faults.log" 2>&1
            grep -ho '"fault":"[a-z_0-9]*"\|"status":"[a-z_]*"' /tmp/fr/*/gemm_bf16_faults.jsonl | paste - - ;;
    header) $b emit gen/gemm_bf16.lua >"$out/emit.log" 2>&1
            bash tests/gemm_header.sh $b nvcc . run gemm_bf16 "-gencode=arch=compute_90a,code=sm_90a" \
                >"$out/header.log" 2>&1; echo "header rc=$?"; grep -E "WRONG|FAIL|within the bound$" "$out/header.log" | tail -5 ;;
    sass) for f in build/variants/*.cubin; do
              echo "$(cuobjdump -sass "$f" 2>/dev/null | grep -oE 'HGMMA|UTMALDG|USETMAXREG|SYNCS.ARRIVE[.A-Z0-9]*' | sort | uniq -c | tr '\n' ' ') $f"
          done | sort | uniq -c -w 60 | head -20 ;;
    esac
done
tar czf "$out/results.tgz" results/nvidia-h200-sm90/gemm_bf16* kernels 2>/dev/null
cp build/variants/runner.log "$out/" 2>/dev/null
log done
