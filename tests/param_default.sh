#!/usr/bin/env bash
# A parameter declared later with a default (param(name, values, { default
# = v })): the variants at the default keep their names, sources and
# records, so a space can grow a dimension without re-measuring what it
# measured; only the new values are measured. The toy, the fake runner.
. "$(dirname "$0")/lib.sh" "$@"
fk=(--runner "$root/tests/fake_runner.sh" --cache "$tmp/c")
"$bartune" run tests/toy/axpy.lua "${fk[@]}" --results "$tmp/r" --kernels "$tmp/k1" >/dev/null 2>&1 ||
    fail "run of the toy failed"
file=$(ls "$tmp"/r/*/axpy2d.jsonl)
before=$(wc -l <"$file")
# the same toy with a new parameter whose default renders what the toy did
cp -r tests/toy "$tmp/toy2"
sed -i 's/^param("fault", .*/&\nparam("unroll", { 1, 4 }, { default = 1, when = function(c) return c.fault == "none" end })/' \
    "$tmp/toy2/axpy.lua"
sed -i 's|^    for (int row = |//% if unroll == 4 then\n#pragma unroll 4\n//% end\n&|' "$tmp/toy2/templates/axpy2d.cu"
"$bartune" list "$tmp/toy2/axpy.lua" >"$tmp/list" || fail "list failed: $(cat "$tmp/list")"
grep -q "unroll=1" "$tmp/list" && fail "a variant at the default is named with it: $(grep unroll=1 "$tmp/list" | head -1)"
new=$(grep -c "unroll=4" "$tmp/list")
[ "$new" -ge 1 ] || fail "no variant names the new value: $(cat "$tmp/list")"
# a strategy replayed on the earlier records finds them under the grown space's candidates
ok_of() { "$bartune" replay "$1" --records "$file" --seeds 1 --size rows=1000 2>&1 | grep -o '([0-9]* ok)'; }
old=$(ok_of tests/toy/axpy.lua) grown=$(ok_of "$tmp/toy2/axpy.lua")
[ -n "$old" ] && [ "$old" = "$grown" ] || fail "replay: the toy's records give ${old:-?}, the grown toy's ${grown:-?}"
"$bartune" run "$tmp/toy2/axpy.lua" "${fk[@]}" --results "$tmp/r" --kernels "$tmp/k2" >/dev/null 2>"$tmp/err" ||
    fail "run of the grown toy failed: $(cat "$tmp/err")"
after=$(wc -l <"$file")
# every new variant at each of its launch values and sizes, nothing measured again
tuples=$(grep -o '"sizes":{[^}]*}' "$file" | sort -u | wc -l)
want=$((before + new * 2 * tuples))
[ "$after" = "$want" ] || fail "$before records, then $after: wanted $want (only unroll=4, measured once)"
grep -q '"unroll":1' "$file" && fail "a record names the default"
grep '"unroll":4' "$file" | grep -q '"status":"ok"' || fail "no unroll=4 record is ok"
# the header from the same records is the one the toy emitted, byte for byte, less the new variants' wins
"$bartune" emit tests/toy/axpy.lua --records "$file" --kernels "$tmp/k3" --cache "$tmp/c" 2>/dev/null ||
    fail "the toy cannot emit from records that name the new value"
"$bartune" render "$tmp/toy2/axpy.lua" block_x=32 block_y=4 fault=none >"$tmp/a.cu" 2>/dev/null ||
    fail "render without the new parameter failed"
"$bartune" render tests/toy/axpy.lua block_x=32 block_y=4 fault=none >"$tmp/b.cu" 2>/dev/null
cmp -s "$tmp/a.cu" "$tmp/b.cu" || fail "the variant at the default renders differently: $(diff "$tmp/a.cu" "$tmp/b.cu")"
"$bartune" render "$tmp/toy2/axpy.lua" block_x=32 block_y=4 fault=none unroll=4 | grep -q "pragma unroll 4" ||
    fail "unroll=4 does not reach the template"
# a default that is not one of the values is refused, naming the parameter
sed -i 's/default = 1,/default = 2,/' "$tmp/toy2/axpy.lua"
"$bartune" list "$tmp/toy2/axpy.lua" >/dev/null 2>"$tmp/err"
[ $? = 3 ] || fail "a default outside the values was accepted"
grep -q "parameter 'unroll': its default 2 is not one of its values" "$tmp/err" || fail "the error: $(cat "$tmp/err")"
echo "a parameter with a default: $new new variants measured, the $before earlier records kept"
