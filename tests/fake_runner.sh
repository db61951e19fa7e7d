#!/usr/bin/env bash
# A stand-in for bartune-runner where there is no GPU: it speaks the runner's
# protocol and measures nothing (every variant "verifies" in 1 ms). Tests of
# the CLI's bookkeeping (resume after kills, the lock) use it in CI; its
# results live in temporary folders and are never committed.
# FAKE_RUNNER_DELAY: seconds each measure takes (default 0.05).
while read -r cmd rest; do
    case $cmd in
    info) echo 'ok {"name":"Fake GPU","cc_major":9,"cc_minor":0,"sms":4,"max_threads_per_block":1024,"max_threads_per_sm":2048,"max_blocks_per_sm":32,"smem_per_block_optin":232448,"smem_per_sm":233472,"regs_per_sm":65536,"l2_bytes":0,"cuda_version":13000,"driver":"fake"}' ;;
    problem) echo "ok 0.0" ;;
    measure) sleep "${FAKE_RUNNER_DELAY:-0.05}"; echo "probe 1.0"; echo "ok 1.0 0.9 1.1 4" ;;
    quit) exit 0 ;;
    *) echo "fail bad_request cannot parse '$cmd $rest'" ;;
    esac
done
