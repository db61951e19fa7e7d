#!/usr/bin/env python3
"""The loops of a kernel's SASS (cuobjdump -sass or nvdisasm -c output): each backward branch
and the instructions between its target and itself, with an opcode count.
What a main loop issues per iteration (its FFMAs against everything else) is
what ncu's instruction counts divide into; the whole cubin's count is not.

usage: sass-loops.py FILE [--min-ffma N]   (default 64: the main loops only)
"""
import collections
import re
import sys

INSTR = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
TARGET = re.compile(r"\bBRA\b.*?(?:0x)?([0-9a-f]+)\)?\s*$")
LABEL = re.compile(r"^(\.L_x_\d+):")             # nvdisasm -c: a branch target's name
LABEL_TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def opcode(text):
    words = text.split()
    if words and words[0].startswith("@"):  # a predicate guards it
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip())
    min_ffma = int(sys.argv[sys.argv.index("--min-ffma") + 1]) if "--min-ffma" in sys.argv else 64
    try:
        lines = open(sys.argv[1]).read().splitlines()
    except OSError as e:
        sys.exit(f"sass-loops.py: {e}")
    ins, labels, pending = [], {}, []
    for line in lines:  # a label names the address of the instruction after it
        m = LABEL.match(line.strip())
        if m:
            pending.append(m.group(1))
        elif m := INSTR.match(line):
            ins.append((int(m.group(1), 16), m.group(2)))
            labels.update((name, ins[-1][0]) for name in pending)
            pending = []
    found = 0
    for addr, text in ins:
        if opcode(text) != "BRA":
            continue
        named = LABEL_TARGET.search(text)
        m = TARGET.search(text)
        target = labels.get(named.group(1)) if named else int(m.group(1), 16) if m else None
        if target is None or target >= addr:
            continue
        body = [t for a, t in ins if target <= a <= addr]
        ops = collections.Counter(opcode(t) for t in body)
        if ops["FFMA"] < min_ffma:
            continue
        found += 1
        other = len(body) - ops["FFMA"]
        top = " ".join(f"{n} {op}" for op, n in ops.most_common(12))
        print(f"loop {target:#x}..{addr:#x}: {len(body)} instructions, {ops['FFMA']} FFMA, "
              f"{other} others ({100 * other / len(body):.1f}%): {top}")
    if not found:
        print(f"no loop with {min_ffma} or more FFMAs in {sys.argv[1]}")


if __name__ == "__main__":
    main()
