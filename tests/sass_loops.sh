#!/usr/bin/env bash
# tools/sass-loops.py (the gpu-trust.sh sass phase's main-loop count) on a
# made-up listing in cuobjdump's form: a loop of 64 FFMAs, 4 LDS, a
# predicated back branch, before it code with FFMAs outside any loop, and a
# small loop it leaves out; its count is the loop's alone.
. "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
# the loop's body: 4 LDS, 64 FFMAs and the compare (line: the form's own)
loop_body() {
    for _ in 1 2 3 4; do line "LDS.128 R8, [R5+0x10]"; done
    for _ in $(seq 64); do line "FFMA R12, R8, R9, R12"; done
    line "ISETP.NE.AND P1, PT, R4, R6, PT"
}
{
    echo "        Function : bartune_kernel"
    a=0
    line() { printf '        /*%04x*/                   %s ;   /* 0x0 */\n' "$a" "$1"; a=$((a + 16)); }
    for _ in 1 2 3; do line "FFMA R1, R2, R3, R1"; done  # straight-line code
    line "IADD3 R4, R4, 0x1, RZ"                         # a small loop at 0x30
    line "@P0 BRA 0x30"
    loop=$a
    loop_body
    line "@P1 BRA $(printf '0x%x' "$loop")"
    line "EXIT"
} >"$tmp/k.sass"
# FILE's one loop found, from $loop: its 64 FFMAs, 4 LDS, compare and branch alone
one_loop() {
    local out want
    out=$(python3 tools/sass-loops.py "$1") || fail "sass-loops.py failed on $2: $out"
    want="loop $(printf '0x%x' "$loop")..$(printf '0x%x' $((loop + 16 * 69))): 70 instructions, 64 FFMA, 6 others (8.6%)"
    case $out in
    "$want"*) ;;
    *) fail "sass-loops.py on $2: got '$out', wanted '$want ...'" ;;
    esac
    [ "$(wc -l <<<"$out")" = 1 ] || fail "sass-loops.py on $2: one loop expected: $out"
}
one_loop "$tmp/k.sass" "cuobjdump's form"
python3 tools/sass-loops.py "$tmp/none" >/dev/null 2>&1 && fail "sass-loops.py: a missing file passed"

# The same loop in nvdisasm -c's form: branches name labels (.L_x_N, whose
# number is no address), and a forward branch to a label is no loop.
{
    a=0
    line() { printf '        /*%04x*/                   %s ;\n' "$a" "$1"; a=$((a + 16)); }
    line "FFMA R1, R2, R3, R1"
    line "@P2 BRA \`(.L_x_9)"
    echo ".L_x_1:"
    loop=$a
    loop_body
    line "@P1 BRA P4, \`(.L_x_1)"
    echo ".L_x_9:"
    line "EXIT"
} >"$tmp/n.sass"
one_loop "$tmp/n.sass" "nvdisasm's labels"
echo "sass-loops.py counts a main loop's instructions alone (cuobjdump's and nvdisasm's forms)"
