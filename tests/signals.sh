#!/usr/bin/env bash
# SIGTERM and Ctrl-C end any phase at once (issue 17, class 8): a run over a
# tune list of 200,000 sizes (fake runner) is signalled while it expands the
# sizes and while it measures; it exits 130 and does no more work after the
# signal (counted in lines of output, not seconds: a slow machine passes).
. "$(dirname "$0")/lib.sh" "$@"
dirs="--runner $root/tests/fake_runner.sh --results $tmp/r --kernels $tmp/k --cache $tmp/c --no-emit"
# after: the phase to wait for (a line of output), then the signal
for case in "TERM preparing" "INT preparing" "TERM -" "INT -"; do
    read -r sig after <<<"$case"
    rm -rf "$tmp/r"
    FAKE_RUNNER_DELAY=0.01 "$bartune" run tests/toy/long_tune.lua $dirs >"$tmp/out" 2>&1 &
    pid=$!
    if [ "$after" = - ]; then sleep 1; else # "-": a second in, expanding the sizes
        for _ in $(seq 600); do grep -q "^$after" "$tmp/out" && break; sleep 0.05; done
        grep -q "^$after" "$tmp/out" || fail "SIG$sig: never reached '$after': $(tail -3 "$tmp/out")"
    fi
    [ "$after" = preparing ] && for _ in $(seq 600); do [ "$(grep -c '^preparing' "$tmp/out")" -ge 3 ] && break; sleep 0.05; done
    before=$(wc -l <"$tmp/out")
    kill -"$sig" "$pid"
    for _ in $(seq 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "SIG$sig after '$after': still running 20 s later"; }
    wait "$pid"
    rc=$?
    [ "$rc" = 130 ] || fail "SIG$sig after '$after': exit $rc, not 130"
    more=$(( $(grep -c '^preparing\|^no variant verified' "$tmp/out") - $(head -"$before" "$tmp/out" | grep -c '^preparing\|^no variant verified') ))
    [ "$more" -le 3 ] || fail "SIG$sig after '$after': $more more sizes worked through after the signal"
done
echo "SIGTERM and SIGINT end a run over 200,000 sizes at once (exit 130), expanding or measuring"
