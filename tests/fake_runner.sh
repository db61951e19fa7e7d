#!/usr/bin/env bash
# A stand-in for bartune-runner where there is no GPU: it speaks the runner's
# protocol (JSON lines on fds 3 and 4) and measures nothing (every variant
# "verifies" in 1 ms). Tests of the CLI's bookkeeping (resume after kills,
# the lock) use it in CI; its results live in temporary folders and are
# never committed.
# FAKE_RUNNER_DELAY: seconds each measure takes (default 0.05).
# FAKE_RUNNER_DIE=1: exit without answering the first measure (a crash).
# FAKE_RUNNER_LOG=FILE: append the wall-clock time each measure starts, and
#   the GPU.
# FAKE_RUNNER_GPUS=N: the driver "sees" N GPUs (default 1); this runner is
#   GPU $1. FAKE_RUNNER_NAMES="A,B,...": the name of each GPU (mixed cards).
# FAKE_RUNNER_VARY=1: each cubin gets its own time, 1 to 8 ms (for early
#   rejection: a reject_ms below it gets one timed launch, "rejected").
# FAKE_RUNNER_DIE_ON=K: GPU K's runner crashes on its first measure.
# A measure with "sustain_s" answers sustained figures too: joules 0.0(9 - ms),
#   least for the slowest (run --rank energy picks other variants than time).
# FAKE_RUNNER_REQUESTS=FILE: append every request line it reads (what the
#   CLI sends: problems with their slots, measures with their checks).
# FAKE_RUNNER_CHECK_FAILS=PATTERN: a measure whose cubin path matches the
#   grep pattern fails at its first check size (wrong_result), as a kernel
#   that is right only at the tuned sizes would; the others answer
#   "checked" with the number of check sizes the request names.
ordinal=${1:-0}
name=$(tr ',' '\n' <<<"${FAKE_RUNNER_NAMES:-}" | sed -n "$((ordinal + 1))p")
name=${name:-Fake GPU}
while IFS= read -r line <&3; do
    [ -n "${FAKE_RUNNER_REQUESTS:-}" ] && printf '%s\n' "$line" >>"$FAKE_RUNNER_REQUESTS"
    op=$(sed -n 's/.*"op": *"\([a-z]*\)".*/\1/p' <<<"$line")
    case $op in
    hello) [ "$ordinal" -lt "${FAKE_RUNNER_GPUS:-1}" ] ||
               { echo '{"ok":false,"status":"no_gpu","message":"fake runner: no such GPU"}' >&4; continue; }
           echo '{"ok":true,"version":2,"devices":'"${FAKE_RUNNER_GPUS:-1}"',"device":{"name":"'"$name"'","cc_major":9,"cc_minor":0,"sms":4,"max_threads_per_block":1024,"max_threads_per_sm":2048,"max_blocks_per_sm":32,"smem_per_block_optin":232448,"smem_per_sm":233472,"regs_per_sm":65536,"l2_bytes":0,"cuda_version":13000,"driver":"fake"}}' >&4 ;;
    problem) echo '{"ok":true,"seconds":0.0,"cached":false}' >&4 ;;
    measure) [ "${FAKE_RUNNER_DIE:-0}" = 1 ] && exit 9
             [ "${FAKE_RUNNER_DIE_ON:-x}" = "$ordinal" ] && exit 9
             [ -n "${FAKE_RUNNER_LOG:-}" ] && echo "$(date +%s.%N) $ordinal" >>"$FAKE_RUNNER_LOG"
             sleep "${FAKE_RUNNER_DELAY:-0.05}"
             echo '{"probe_ms":1.0,"launches_left":25}' >&4
             ms=1
             [ "${FAKE_RUNNER_VARY:-0}" = 1 ] &&
                 ms=$(( $(sed -n 's/.*"cubin": *"\([^"]*\)".*/\1/p' <<<"$line" | cksum | cut -d' ' -f1) % 8 + 1 ))
             checks=$(grep -o '"slot": *[0-9]*' <<<"$line" | wc -l)
             if [ "$checks" -gt 0 ] && [ -n "${FAKE_RUNNER_CHECK_FAILS:-}" ] &&
                 sed -n 's/.*"cubin": *"\([^"]*\)".*/\1/p' <<<"$line" | grep -q -- "$FAKE_RUNNER_CHECK_FAILS"; then
                 echo '{"ok":false,"status":"wrong_result","message":"at check sizes (fake): verifying launch 1: 1 of 2 elements wrong"}' >&4
                 continue
             fi
             reject=$(sed -n 's/.*"reject_ms": *\([0-9.e+-]*\).*/\1/p' <<<"$line")
             if [ -n "$reject" ] && awk -v m="$ms" -v r="$reject" 'BEGIN { exit !(m > r) }'; then
                 echo '{"ok":true,"median_ms":'$ms',"min_ms":'$ms',"max_ms":'$ms',"occupancy":4,"timed_launches":1,"rejected":true}' >&4
             else
                 # "sustain_s": sustained figures, the energy inverse to the time (the
                 # slowest the most frugal), so ranking by energy differs from time
                 sus=
                 grep -q '"sustain_s"' <<<"$line" &&
                     sus=',"sustained_ms":'$ms',"sustained_launches":100,"joules":0.0'$((9 - ms))',"watts":500'
                 echo '{"ok":true,"median_ms":'$ms',"min_ms":'$ms',"max_ms":'$ms',"occupancy":4,"timed_launches":20,"checked":'$checks',"checks_ms":0.25,"measure_ms":2.5'"$sus"'}' >&4
             fi ;;
    floor) echo '{"ok":true,"copy_gbps":1000.0,"dtod_gbps":1200.0,"fma_per_s":1e13}' >&4 ;;
    quit) exit 0 ;;
    *) echo '{"ok":false,"status":"bad_request","message":"fake runner: unknown op"}' >&4 ;;
    esac
done
