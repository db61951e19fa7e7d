#!/usr/bin/env bash
# bartune check finds on CPU what would otherwise show after a GPU run: the
# toy problem's folder passes as it is (two variants in one header; the CPU
# reference runs); a template that does not wrap its code in namespace
# $(ns) fails with a line saying so; a CPU reference that does not compile
# fails naming it; a reference that fails at run time fails with its message.
. "$(dirname "$0")/lib.sh" "$@"
cp -r tests/toy "$tmp/user"
dirs="--cache $tmp/c --results $tmp/r --kernels $tmp/k"
"$bartune" check "$tmp/user/axpy.lua" $dirs >"$tmp/ok" 2>&1 || { cat "$tmp/ok"; fail "the toy problem does not check"; }
grep -q "compile together" "$tmp/ok" && grep -q "CPU reference built and ran" "$tmp/ok" || fail "check said: $(cat "$tmp/ok")"
# the template without its namespace: two variants collide
cp -r tests/toy "$tmp/nons"
sed -i '/^namespace \$(ns) {$/d; /^}  \/\/ namespace/d' "$tmp/nons/templates/axpy2d.cu"
grep -q 'namespace \$(ns)' "$tmp/nons/templates/axpy2d.cu" && fail "the test did not remove the namespace"
"$bartune" check "$tmp/nons/axpy.lua" $dirs >"$tmp/nons.out" 2>&1 && fail "a template without its namespace checked"
grep -q 'namespace \$(ns)' "$tmp/nons.out" || fail "no hint at the namespace: $(tail -5 "$tmp/nons.out")"
# a reference that does not compile
cp -r tests/toy "$tmp/badref"
echo "this is not C;" >>"$tmp/badref/templates/axpy2d/reference.c"
"$bartune" check "$tmp/badref/axpy.lua" $dirs >"$tmp/badref.out" 2>&1 && fail "a broken reference checked"
grep -q "reference.c" "$tmp/badref.out" || fail "the error does not name the reference: $(tail -5 "$tmp/badref.out")"
# a reference that fails when it runs
cp -r tests/toy "$tmp/failref"
sed -i 's/^\(static int [a-z_0-9]*(bt_problem \*p, int part, int parts) {\)$/\1\n    snprintf(p->error, sizeof p->error, "planted failure"); return 1;/' \
    "$tmp/failref/templates/axpy2d/reference.c"
grep -q "planted failure" "$tmp/failref/templates/axpy2d/reference.c" || fail "the test did not plant the failure"
"$bartune" check "$tmp/failref/axpy.lua" $dirs >"$tmp/failref.out" 2>&1 && fail "a failing reference checked"
grep -q "planted failure" "$tmp/failref.out" || fail "the reference's message is missing: $(tail -5 "$tmp/failref.out")"
# a baseline missing a value the space needs there (bench would find out on a GPU)
cp -r tests/toy "$tmp/badbase"
echo 'baseline("no block_y", { block_x = 32, fault = "none", rows_per_thread = 1 })' >>"$tmp/badbase/axpy.lua"
"$bartune" check "$tmp/badbase/axpy.lua" $dirs >"$tmp/badbase.out" 2>&1 && fail "a baseline that is no variant checked"
grep -q "baseline 'no block_y' is not a variant of the space on generic sm_90: no value for parameter 'block_y'" "$tmp/badbase.out" ||
    fail "the error does not name the baseline and the value: $(tail -3 "$tmp/badbase.out")"
# a baseline missing a launch value (bench, measuring it from its declaration
# where nothing is recorded, could not launch it)
cp -r tests/toy "$tmp/nolaunch"
echo 'baseline("no rows_per_thread", { block_x = 32, block_y = 4, fault = "none" })' >>"$tmp/nolaunch/axpy.lua"
"$bartune" check "$tmp/nolaunch/axpy.lua" $dirs >"$tmp/nolaunch.out" 2>&1 && fail "a baseline without its launch value checked"
grep -q "baseline 'no rows_per_thread' is not a variant of the space on generic sm_90: no value for launch parameter 'rows_per_thread'" "$tmp/nolaunch.out" ||
    fail "the error does not name the baseline and the launch value: $(tail -3 "$tmp/nolaunch.out")"
# a shipped space whose portable variant is one only below sm_90 (gemm_bf16:
# the plain kind there, the Hopper kind on sm_90): checked where emit builds it
"$bartune" check gen/gemm_bf16.lua $dirs >"$tmp/gemm.out" 2>&1 || { cat "$tmp/gemm.out"; fail "gemm_bf16 does not check"; }
grep -q "named: the 3 baseline and portable configs of gemm_bf16 are variants of it" "$tmp/gemm.out" ||
    fail "gemm_bf16's named configs: $(cat "$tmp/gemm.out")"
echo "check: a user's folder and gemm_bf16 pass; a missing namespace, a broken and a failing reference and a baseline that is no variant are caught on CPU"
