#!/usr/bin/env python3
"""fuzz_frames.py — mutation fuzzing of the serial-frame decoder (tools/btlib)
and everything behind it (events, text, trace.dat, Chrome JSON).

Seeds: the real captures in tests/host/export/.  Each run mutates a copy —
flipped bytes, dropped / repeated / swapped lines, truncation, garbage
lines, frames of one dump spliced into another — and feeds it to the same
pipeline bt-export runs.  Anything may be reported as damaged; nothing may
raise, loop, or write outside what it was given.  A mutation that leaves
every @BT1 line intact must give exactly the unmutated text.
Prints TAP; exit status 1 on the first finding (with the seed to replay it).

usage: fuzz_frames.py [--runs N] [--seed S]
"""
import argparse
import glob
import io
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from btlib import chrome, events, frames, text, tracedat  # noqa: E402


def pipeline(lines):
    """What bt-export does, in memory: (status, text or None)."""
    dump, _, _ = frames.read_log(lines, None)
    if dump is None or not dump.have_begin or dump.ncpus == 0:
        return 1, None
    events.dump_events(dump)
    out = text.render(dump)
    tracedat.write(dump, io.BytesIO())
    chrome.write(dump, io.StringIO())
    return (0 if dump.complete else 2), out


def mutate(rng, lines, others):
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.randrange(8)
        if op == 0:                                      # flip a byte
            l = lines[i]
            if l:
                j = rng.randrange(len(l))
                lines[i] = l[:j] + chr(rng.randrange(32, 127)) + l[j + 1:]
        elif op == 1:
            del lines[i]
        elif op == 2:
            lines.insert(i, lines[i])
        elif op == 3:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 4:
            lines = lines[:i] + [lines[i][:rng.randrange(len(lines[i]) + 1)]]
        elif op == 5:
            lines.insert(i, "".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(80))))
        elif op == 6:
            lines.insert(i, rng.choice(others))         # a frame of another dump
        else:
            lines[i] = "@BT1 " + lines[i][5:][::-1]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    seeds = []
    for path in sorted(glob.glob(os.path.join(HERE, "export", "*.log"))):
        with open(path, "rb") as f:
            seeds.append((os.path.basename(path), f.read().decode("utf-8", "replace").splitlines()))
    others = [l for _, ls in seeds for l in ls if l.startswith("@BT1 ")]
    base = {name: pipeline(ls) for name, ls in seeds}
    print("TAP version 13")
    n = 0
    for name, ls in seeds:
        n += 1
        print("%s %d - %s decodes complete before mutation" %
              ("ok" if base[name][0] == 0 else "not ok", n, name))
    bad = 0
    for r in range(a.runs):
        rng = random.Random(a.seed * 1000003 + r)
        name, ls = seeds[r % len(seeds)]
        m = mutate(rng, ls, others)
        try:
            status, out = pipeline(m)
        except Exception as e:                          # noqa: BLE001 — any escape is a finding
            print("# run %d (seed %d) on %s: %s: %s" % (r, a.seed, name, type(e).__name__, e))
            bad += 1
            continue
        frames_same = [l for l in m if l.startswith("@BT1 ")] == \
            [l for l in ls if l.startswith("@BT1 ")]
        if status not in (0, 1, 2) or (frames_same and (status, out) != base[name]):
            print("# run %d (seed %d) on %s: status %s, frames intact %s" %
                  (r, a.seed, name, status, frames_same))
            bad += 1
    n += 1
    print("%s %d - %d mutated logs: no exception, intact frames decode the same" %
          ("ok" if not bad else "not ok", n, a.runs))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
