#!/usr/bin/env bash
# A stand-in for bartune-runner where there is no GPU: it speaks the runner's
# protocol (JSON lines on fds 3 and 4) and measures nothing (every variant
# "verifies" in 1 ms). Tests of the CLI's bookkeeping (resume after kills,
# the lock) use it in CI; its results live in temporary folders and are
# never committed.
# FAKE_RUNNER_DELAY: seconds each measure takes (default 0.05).
# FAKE_RUNNER_DIE=1: exit without answering the first measure (a crash).
# FAKE_RUNNER_LOG=FILE: append the wall-clock time each measure starts.
while IFS= read -r line <&3; do
    op=$(sed -n 's/.*"op": *"\([a-z]*\)".*/\1/p' <<<"$line")
    case $op in
    hello) echo '{"ok":true,"version":2,"device":{"name":"Fake GPU","cc_major":9,"cc_minor":0,"sms":4,"max_threads_per_block":1024,"max_threads_per_sm":2048,"max_blocks_per_sm":32,"smem_per_block_optin":232448,"smem_per_sm":233472,"regs_per_sm":65536,"l2_bytes":0,"cuda_version":13000,"driver":"fake"}}' >&4 ;;
    problem) echo '{"ok":true,"seconds":0.0,"cached":false}' >&4 ;;
    measure) [ "${FAKE_RUNNER_DIE:-0}" = 1 ] && exit 9
             [ -n "${FAKE_RUNNER_LOG:-}" ] && date +%s.%N >>"$FAKE_RUNNER_LOG"
             sleep "${FAKE_RUNNER_DELAY:-0.05}"
             echo '{"probe_ms":1.0,"launches_left":25}' >&4
             echo '{"ok":true,"median_ms":1.0,"min_ms":0.9,"max_ms":1.1,"occupancy":4}' >&4 ;;
    floor) echo '{"ok":true,"copy_gbps":1000.0,"dtod_gbps":1200.0,"fma_per_s":1e13}' >&4 ;;
    quit) exit 0 ;;
    *) echo '{"ok":false,"status":"bad_request","message":"fake runner: unknown op"}' >&4 ;;
    esac
done
