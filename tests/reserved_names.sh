#!/usr/bin/env bash
# Names a problem may give its sizes (issue 23, class 6): the emitted
# header's own locals are bt_-prefixed, so sizes named like them before
# (smem, kernel, e, grid_x) build; C++ keywords, stream and bt_ names are
# refused with an error naming the size.
set -u
bartune=$1 root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
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
echo "sizes named like the header's old locals build; keywords, stream and bt_ names are refused"
