#!/usr/bin/env bash
# space{ extends = "other.lua", name = ... }: a space built on another one
# beside it, which runs first (its params, derives, constraints, launch and
# named configs are the new space's too) and whose space{} fields are the
# new one's defaults. The toy narrowed by a constraint: fewer variants, the
# same source for the ones left, records and headers under the new name;
# a cycle, a path, a missing file, a redeclared parameter and a missing
# name are errors that say so. problem{ extends = ... } likewise. The fake
# runner, no GPU.
. "$(dirname "$0")/lib.sh" "$@"
cp -r tests/toy "$tmp/t"
cat >"$tmp/t/narrow.lua" <<'LUA'
space { extends = "axpy.lua", name = "axpy2d_narrow" }
constraint("no fault", function(c) return c.fault == "none" end)
LUA
count() { "$bartune" list "$1" | tail -1 | grep -o '^[0-9]*'; }
all=$(count "$tmp/t/axpy.lua") narrow=$(count "$tmp/t/narrow.lua")
faulty=$("$bartune" list "$tmp/t/axpy.lua" | grep -c 'fault=skip')
[ -n "$all" ] && [ "$faulty" -ge 1 ] && [ "$narrow" = $((all - faulty)) ] ||
    fail "narrowed toy: ${narrow:-?} variants, wanted ${all:-?} less the ${faulty} faulty ones"
"$bartune" list "$tmp/t/narrow.lua" | grep -q 'fault=skip' && fail "the new constraint does not apply"
sel="block_x=32 block_y=4 fault=none"
"$bartune" render "$tmp/t/axpy.lua" $sel >"$tmp/a.cu" && "$bartune" render "$tmp/t/narrow.lua" $sel >"$tmp/n.cu" &&
    cmp -s "$tmp/a.cu" "$tmp/n.cu" || fail "a variant of both spaces renders differently"
"$bartune" run "$tmp/t/narrow.lua" --runner "$root/tests/fake_runner.sh" --cache "$tmp/c" --results "$tmp/r" \
    --kernels "$tmp/k" >"$tmp/run" 2>&1 || fail "run of the narrowed toy: $(tail -3 "$tmp/run")"
[ -s "$(echo "$tmp"/r/*/axpy2d_narrow.jsonl)" ] && [ -s "$tmp/k/axpy2d_narrow.cuh" ] ||
    fail "records or header not under the new space's name: $(ls -R "$tmp/r" "$tmp/k" | tr '\n' ' ')"
grep -q 'skip_last_col' "$tmp"/r/*/axpy2d_narrow.jsonl && fail "a variant the new constraint rejects was measured"
# a search in the new space starts from the records of the one it extends
# (same parameters): the first candidate measured is the other's fastest
FAKE_RUNNER_VARY=1 "$bartune" run "$tmp/t/axpy.lua" --runner "$root/tests/fake_runner.sh" --cache "$tmp/c" \
    --results "$tmp/w" --size rows=1000 --size cols=3001 --no-emit >/dev/null 2>&1 || fail "run of the toy (varied)"
FAKE_RUNNER_VARY=1 "$bartune" run "$tmp/t/narrow.lua" --runner "$root/tests/fake_runner.sh" --cache "$tmp/c" \
    --results "$tmp/w" --size rows=1000 --size cols=3001 --strategy ils --budget 2 --seed 1 --no-emit \
    >/dev/null 2>"$tmp/warm.err" || fail "search in the narrowed toy: $(tail -3 "$tmp/warm.err")"
grep -q "then 1 of the space it extends (axpy2d)" "$tmp/warm.err" ||
    fail "the search did not say it starts from the extended space: $(head -3 "$tmp/warm.err")"
best=$(grep '"status":"ok"' "$tmp"/w/*/axpy2d.jsonl | grep -o '"median_ms":[0-9.]*' | sort -t: -k2 -g | head -1)
first=$(head -1 "$tmp"/w/*/axpy2d_narrow.jsonl | grep -o '"median_ms":[0-9.]*')
[ -n "$best" ] && [ "$first" = "$best" ] || fail "the first candidate took ${first:-nothing}, the toy's best ${best:-nothing}"
# errors: each names the file and says what is wrong
refused() { # SPACE NAME EXPECTED: list SPACE fails, naming NAME and saying EXPECTED
    "$bartune" list "$1" >"$tmp/out" 2>&1
    local rc=$?
    [ $rc != 0 ] && grep -q "$2" "$tmp/out" && grep -q "$3" "$tmp/out" ||
        fail "$2 (rc $rc): wanted '$3' and the name, got: $(cat "$tmp/out")"
}
bad() { # NAME TEXT EXPECTED
    printf '%s\n' "$2" >"$tmp/t/$1.lua"
    refused "$tmp/t/$1.lua" "$1.lua" "$3"
}
bad self 'space { extends = "self.lua", name = "x" }' 'a cycle'
printf 'space { extends = "loop_a.lua", name = "b" }\n' >"$tmp/t/loop_b.lua"
bad loop_a 'space { extends = "loop_b.lua", name = "a" }' 'a cycle'
bad up 'space { extends = "../axpy.lua", name = "x" }' 'not a space file'
bad missing 'space { extends = "nope.lua", name = "x" }' 'cannot read .*nope.lua'
mkdir "$tmp/t/folder.lua"
refused "$tmp/t/folder.lua" "folder.lua" "cannot read space .*folder.lua: Is a directory"
bad twice 'space { extends = "axpy.lua", name = "x" }
param("block_x", { 16 })' "parameter 'block_x' is declared twice"
bad unnamed 'space { extends = "axpy.lua" }' 'needs name'
bad notastring 'space { extends = 3, name = "x" }' 'must name a space file'
# a named config of the extended space that the new constraints reject is
# check's error; the new space may name it again (its own takes its place),
# where one file naming a label twice is an error
printf 'space { extends = "axpy.lua", name = "no32" }\nconstraint("no 32", function(c) return c.block_x ~= 32 end)\n' \
    >"$tmp/t/no32.lua"
"$bartune" check "$tmp/t/no32.lua" --cache "$tmp/c" >"$tmp/out" 2>&1 && fail "check passed a portable the constraints reject"
grep -q "portable 'portable' is not a variant" "$tmp/out" || fail "check: $(tail -2 "$tmp/out")"
printf 'portable("portable", { block_x = 16, block_y = 4, fault = "none", rows_per_thread = 1 })\n' >>"$tmp/t/no32.lua"
"$bartune" check "$tmp/t/no32.lua" --cache "$tmp/c" >"$tmp/out" 2>&1 || fail "check with the portable named again: $(tail -2 "$tmp/out")"
printf 'portable("portable", { block_x = 16, block_y = 2, fault = "none", rows_per_thread = 1 })\n' >>"$tmp/t/no32.lua"
refused "$tmp/t/no32.lua" "no32.lua" "portable 'portable' is declared twice"
# problem{ extends = "other", name = ... }: the other's table with this
# one's fields in place (a buffer replaced by name, a tune list of its own),
# the reference looked for under the other's folder too
cat >"$tmp/t/problems/axpy2d_one.lua" <<'LUA'
problem { extends = "axpy2d", name = "axpy2d_one", tune = { { rows = 512, cols = 512 }, { rows = 64, cols = 64 }, { rows = 8, cols = 8 } },
  buffers = { { "y", "float", role = "inout", length = function(s) return s.rows * s.cols end, init = { "const", 1 } } } }
LUA
cat >"$tmp/t/one.lua" <<'LUA'
space { extends = "axpy.lua", name = "axpy2d_one", problem = "axpy2d_one" }
LUA
"$bartune" list "$tmp/t/one.lua" >"$tmp/out" 2>&1 && grep -q "at each of 3 size tuples" "$tmp/out" ||
    fail "a problem extending the toy's with three tune tuples: $(tail -1 "$tmp/out")"
"$bartune" render "$tmp/t/one.lua" $sel | cmp -s - "$tmp/a.cu" || fail "the extended problem's space renders differently"
pbad() { # NAME TEXT EXPECTED: a problem file and a space over it
    printf '%s\n' "$2" >"$tmp/t/problems/$1.lua"
    printf 'space { extends = "axpy.lua", name = "s_%s", problem = "%s" }\n' "$1" "$1" >"$tmp/t/s_$1.lua"
    refused "$tmp/t/s_$1.lua" "$1" "$3"
}
pbad p_missing 'problem { extends = "nope", name = "p_missing" }' "extends: problem 'nope' not found"
printf 'problem { extends = "p_loop_a", name = "p_loop_b" }\n' >"$tmp/t/problems/p_loop_b.lua"
pbad p_loop_a 'problem { extends = "p_loop_b", name = "p_loop_a" }' 'a cycle'
pbad p_bad 'problem { extends = "../x", name = "p_bad" }' 'extends names another problem'
echo "space extends: $narrow of $all variants, records and header under the new name; 7 errors say what is wrong;" \
    "problem extends: a tune list and a buffer of its own, 3 errors"
