#!/usr/bin/env bash
# GPU half of the fault suite: one run over correct and broken variants; each
# fault is recorded with its own status, the run goes on (runner restarted
# after hangs and sticky errors), and the best emitted is a correct variant.
. "$(dirname "$0")/lib.sh" "$@"
skip_without_gpu
# --reject 0 in every run: a variant rejected on its first timed launch never
# runs its check sizes or new inputs (it cannot be a best), so with rejection
# on, which faults are caught would hang on the card's timing (an H100
# rejected sgemm's beta_reads_c, 2026-12-05)
"$bartune" run tests/faults/faults.lua --templates tests/faults --timeout 2 --compile-timeout 5 \
    --reject 0 --no-emit --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c" >"$tmp/out" 2>"$tmp/err" ||
    { echo "run failed"; cat "$tmp/err"; exit 1; }
file=$(ls "$tmp"/r/*/faults.jsonl)
fail=0
expect() { # fault status-regex
    local line
    line=$(grep "\"fault\":\"$1\"" "$file" | head -1)
    echo "$line" | grep -qE "\"status\":\"($2)\"" ||
        { echo "fault=$1: expected status $2, got: $(echo "$line" | grep -o '"status":"[a-z_]*"') $(echo "$line" | grep -o '"message":"[^"]*"' | head -c 300)"; fail=1; }
}
expect none ok
expect compile_error compile_error
expect ptxas_smem compile_error
expect slow_compile compile_timeout
expect smem_launch launch_refused
expect threads_launch launch_refused
expect divergent_syncthreads hang
expect mbar_count hang
expect expect_tx_no_copy hang
expect named_count hang
expect infinite_loop hang
expect illegal_address runtime_error
expect out_of_bounds out_of_bounds
expect wrong_constant wrong_result
expect race 'race|wrong_result'
expect nan nan
expect unwritten unwritten
expect first_launches_only unwritten
expect printf ok
expect write_before out_of_bounds
expect write_input input_modified
# the forged answer on stdout did not become the time
grep '"fault":"printf"' "$file" | grep -q '"median_ms":0.0001[,}]' && { echo "printf forged the time"; fail=1; }
grep -q 'ok 0.000100' "$tmp"/c/runner.log || { echo "the kernel's printf is not in the runner log"; fail=1; }
expect poison_only 'unwritten|ok'
expect none_again ok
# if the poison-only kernel passes, it did the work on every timed launch
none_ms=$(grep '"fault":"none"' "$file" | grep -o '"median_ms":[0-9.e-]*' | head -1 | cut -d: -f2)
po_ms=$(grep '"fault":"poison_only"' "$file" | grep -o '"median_ms":[0-9.e-]*' | cut -d: -f2)
[ -z "$po_ms" ] || awk -v a="$po_ms" -v b="$none_ms" 'BEGIN { exit !(a >= 0.5 * b) }' ||
    { echo "poison_only timed at $po_ms ms against $none_ms: work skipped on timed launches"; fail=1; }
expect hidden_race ok
expect replay_output wrong_result
grep '"fault":"replay_output"' "$file" | grep -q "new input values" || { echo "replay_output was not caught by the launch on new inputs"; fail=1; }
expect hash_preserving_damage input_modified
[ "$(grep -cE '"fault":"(none|none_again|printf|hidden_race)".*"status":"ok"|"status":"ok".*"fault":"(none|none_again|printf|hidden_race)"' "$file")" = 5 ] ||
    { echo "expected the 3 correct variants, printf and hidden_race ok"; fail=1; }
grep -E '^  #1 ' "$tmp/out" | grep -q '"fault":"none"' || { echo "the best is not a correct variant"; fail=1; }
# sgemm: the bound rule catches a GEMM's own faults
"$bartune" run tests/faults/sgemm_faults.lua --templates tests/faults --timeout 10 --reject 0 --no-emit \
    --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c" >"$tmp/out2" 2>"$tmp/err2" ||
    { echo "sgemm faults: run failed"; cat "$tmp/err2"; exit 1; }
file=$(ls "$tmp"/r/*/sgemm_faults.jsonl)
expect none ok
expect none_again ok
for f in drop_k read_twice skip_edge_col skip_edge_row alpha_once; do expect $f wrong_result; done
expect tf32 inaccurate
expect rel_1e4 inaccurate
expect replay_c wrong_result  # the launch on a second input set (inout C too)
grep '"fault":"replay_c"' "$file" | grep -q "new input values" || { echo "replay_c was not caught by the launch on new inputs"; fail=1; }
# issue 21's classes: each caught where it happens, and said so
expect fixed_scalars wrong_result
expect fp16_range wrong_result
expect small_m 'wrong_result|unwritten'
expect ignore_lda wrong_result  # lda = 1003 here; the check sizes hold lda != K for every space
expect padding_write out_of_bounds
expect replay_keyed wrong_result
expect late_damage input_modified
expect split_scratch ok  # its last block leaves its tile's counter zero for the next launch
# its slots hold the runner's poison at each launch (launch().scratch_zero
# covers only the counters), so adding into them is caught
expect scratch_accumulate 'nan|wrong_result'
expect scratch_past out_of_bounds
expect scratch_before out_of_bounds
expect beta_reads_c 'nan|wrong_result'  # C holds NaN where a check size's beta is 0
expect spread ok
expect spread_short wrong_result
# launch().scratch_zero_kept: the runner clears the counters once; a kernel
# that leaves them counted fails where it does, however its results look
expect counter_left wrong_result
expect spread_left wrong_result
says() { grep '"fault":"'"$1"'"' "$file" | grep -q -- "$2" || { echo "sgemm $1: the message lacks '$2': $(grep '"fault":"'"$1"'"' "$file" | head -c 1500)"; fail=1; }; }
says fixed_scalars "new input values and scalars"
says fp16_range "new input values and scalars"
says small_m "at check sizes M=1 N=1 K=1"
says padding_write "padding of 'C'"
says replay_keyed "secret positions"
says late_damage "input 'A'"
says scratch_past "outside its scratch memory"
says scratch_before "outside its scratch memory"
says beta_reads_c "since beta is 0"
says counter_left "left the zero prefix of its scratch memory"
says spread_left "left the zero prefix of its scratch memory"
grep -E '^  #1 ' "$tmp/out2" | grep -qE '"fault":"(none|none_again|split_scratch|spread)"' ||
    { echo "sgemm: the best is not a correct variant"; fail=1; }
# gemm_bf16: the bound catches the tensor-core pipeline's faults
"$bartune" run tests/faults/gemm_bf16_faults.lua --templates tests/faults --timeout 10 --reject 0 --no-emit \
    --results "$tmp/r" --kernels "$tmp/k" --cache "$tmp/c" >"$tmp/out3" 2>"$tmp/err3" ||
    { echo "gemm_bf16 faults: run failed"; cat "$tmp/err3"; exit 1; }
file=$(ls "$tmp"/r/*/gemm_bf16_faults.jsonl)
expect none ok
expect none_again ok
for f in drop_k read_twice fp16; do expect $f wrong_result; done
expect truncate "wrong_result|inaccurate"  # C truncated: some elements pass 2^-8 |exact|
expect no_full_wait 'wrong_result|race|unwritten|runtime_error'
expect scratch ok
expect scratch_short wrong_result
expect spread ok
expect spread_short wrong_result
expect split_scratch ok
expect split_scratch_short wrong_result
expect b_rows ok  # B's box split by rows over a cluster of 2 (multicast), odd sizes
expect b_rows_light ok  # the same, fences = light: the producer's tail in place of the end's barrier
expect split_scratch_light ok
# spread over pairs of tiles along M (one warpgroup, B multicast): M = 300
# leaves the last pair's second tile outside C
expect spread_pairs ok
expect spread_pairs_short wrong_result
# launch().together: CTAs that wait for each other, more than run at once: refused, not hung
expect spread_crowd over_occupancy
grep '"fault":"spread_crowd"' "$file" | grep -q "wait for each other" ||
    { echo "gemm_bf16 spread_crowd: the message does not say its blocks wait for each other"; fail=1; }
expect beta_reads_c 'nan|wrong_result'
grep '"fault":"beta_reads_c"' "$file" | grep -q "since beta is 0" || { echo "gemm_bf16 beta_reads_c: the message does not say C is NaN because beta is 0"; fail=1; }
grep -E '^  #1 ' "$tmp/out3" | grep -qE '"fault":"(none|none_again|scratch|spread|split_scratch|b_rows|b_rows_light|split_scratch_light|spread_pairs)"' ||
    { echo "gemm_bf16: the best is not a correct variant"; fail=1; }
[ $fail = 0 ] && echo "26 pipeline, 20 sgemm and 14 gemm_bf16 faults classified, runs completed, best is correct"
[ $fail = 0 ] || { cat "$tmp/err" | tail -30; }
exit $fail
