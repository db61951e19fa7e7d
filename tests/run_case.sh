#!/usr/bin/env bash
# Runs one data-driven CLI case (tests/cases/*.case) and checks its exit code
# and output. A case file holds lines:
#   args: <arguments of bartune>   ({tmp} is a fresh folder, {root} the repo)
#   exit: <expected exit code>
#   stdout: <fragment that must appear>      (any number)
#   stderr: <fragment that must appear>      (any number)
#   no-stdout: / no-stderr: <fragment that must not appear>
#   files-absent: <path under {tmp} that must not exist afterwards>
#   files-present: <path under {tmp} that must exist afterwards>
set -u
bartune=$1 case=$2 root=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
subst() { local s=${1//\{tmp\}/$tmp}; echo "${s//\{root\}/$root}"; }
args=$(subst "$(sed -n 's/^args: //p' "$case")")
want_exit=$(sed -n 's/^exit: //p' "$case")
cd "$root"
eval "\"$bartune\" $args --results \"$tmp/results\" --kernels \"$tmp/kernels\" --cache \"$tmp/cache\"" \
    >"$tmp/out" 2>"$tmp/err"
got_exit=$?
fail=0
if [ "$got_exit" != "$want_exit" ]; then
    echo "exit code $got_exit, expected $want_exit"; fail=1
fi
while IFS= read -r line; do
    key=${line%%: *} val=$(subst "${line#*: }")
    case $key in
    stdout) grep -qF -- "$val" "$tmp/out" || { echo "stdout lacks: $val"; fail=1; } ;;
    stderr) grep -qF -- "$val" "$tmp/err" || { echo "stderr lacks: $val"; fail=1; } ;;
    no-stdout) ! grep -qF -- "$val" "$tmp/out" || { echo "stdout has: $val"; fail=1; } ;;
    no-stderr) ! grep -qF -- "$val" "$tmp/err" || { echo "stderr has: $val"; fail=1; } ;;
    files-absent) [ ! -e "$val" ] || { echo "exists but should not: $val"; fail=1; } ;;
    files-present) [ -e "$val" ] || { echo "missing: $val"; fail=1; } ;;
    esac
done <"$case"
if [ $fail != 0 ]; then
    echo "--- case $case: bartune $args"
    echo "--- stdout"; head -c 4000 "$tmp/out"
    echo "--- stderr"; head -c 4000 "$tmp/err"
fi
exit $fail
