#!/usr/bin/env bash
# Names a problem may give its sizes (issue 23, class 6): the emitted
# header's own locals are bt_-prefixed, so sizes named like them before
# (smem, kernel, e, grid_x) build; C++ keywords, stream and bt_ names are
# refused with an error naming the size.
. "$(dirname "$0")/lib.sh" "$@"
cd "$root"
# the toy problem with its sizes renamed
toy() { # toy DIR ROWS COLS
    mkdir -p "$1/problems" "$1/templates"
    cp -r tests/toy/templates/axpy2d tests/toy/templates/axpy2d.cu "$1/templates/"
    for f in tests/toy/axpy.lua tests/toy/problems/axpy2d.lua tests/toy/templates/axpy2d.cu; do
        sed "s/\brows\b/$2/g; s/\bcols\b/$3/g" "$f" >"$1/${f#tests/toy/}"
    done
}
toy "$tmp/ok" smem kernel
"$bartune" check "$tmp/ok/axpy.lua" --cache "$tmp/c" >"$tmp/out" 2>&1 ||
    fail "sizes named smem and kernel: $(tail -5 "$tmp/out")"
toy "$tmp/ok2" e grid_x
"$bartune" check "$tmp/ok2/axpy.lua" --cache "$tmp/c" >"$tmp/out" 2>&1 ||
    fail "sizes named e and grid_x: $(tail -5 "$tmp/out")"
for bad in stream int bt_rows; do
    toy "$tmp/$bad" "$bad" cols
    "$bartune" check "$tmp/$bad/axpy.lua" --cache "$tmp/c" >"$tmp/out" 2>&1
    rc=$?
    [ $rc = 3 ] || fail "a size named $bad: exit $rc, expected 3: $(tail -3 "$tmp/out")"
    grep -q "size name '$bad' is C++'s or the emitted header's own" "$tmp/out" ||
        fail "a size named $bad: $(tail -3 "$tmp/out")"
done
# a reference that never returns is given up after --reference-timeout (issue 23, class 7)
toy "$tmp/stuck" rows cols
sed -i 's/^static int axpy2d(bt_problem \*p, int part, int parts) {/&\n    for (volatile int stuck = 1; stuck;) {}/' \
    "$tmp/stuck/templates/axpy2d/reference.c"
grep -q 'volatile int stuck' "$tmp/stuck/templates/axpy2d/reference.c" || fail "the stuck reference was not made"
start=$(date +%s)
"$bartune" check "$tmp/stuck/axpy.lua" --cache "$tmp/c" --reference-timeout 2 >"$tmp/out" 2>&1 &&
    fail "check passed with a reference that never returns"
[ $(($(date +%s) - start)) -lt 60 ] || fail "the stuck reference was waited for a minute or more"
grep -q 'took more than 2 s (--reference-timeout' "$tmp/out" || fail "stuck reference: $(tail -3 "$tmp/out")"
echo "sizes named like the header's old locals build; keywords, stream and bt_ names are refused"
