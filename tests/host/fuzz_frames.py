#!/usr/bin/env python3
"""fuzz_frames.py — structure-aware fuzzing of tools/bt-export's library
(tools/btlib: frames, events, text, trace.dat, Chrome JSON), in process.

Seeds: the real dumps captured from both guests in tests/host/export/*.log
(tests/checks/export_checks.py --capture), each also cut down to its first two
pages per CPU (begin and end frames rewritten to match) so that a run is
cheap.  A run decodes a seed's frames, mutates what they carry as
trace/dump.c lays it out -- begin frame fields, page piece headers, page
headers, item headers (type_len, delta, length word), event fields (type,
depth, nargs, times), symbol/signature/comm records, payload bytes and
sizes, sequence numbers, kinds, ids, whole frames dropped, repeated,
swapped or spliced from another dump -- re-encodes them with their CRC
recomputed (or, on purpose, not), sometimes damages the text lines too,
and runs what bt-export runs.

Each run must end without an exception, within RUN_SECS and with the
process's address space capped (RLIMIT_AS), with a meaningful status: 1
only when nothing is usable, 2 only with a problem said, 0 only when the
dump is complete.  A run whose only change damages one frame (CRC left
stale, line cut, frame dropped) must give 1 or 2 and name that frame's
number.  A run that leaves every @BT1 line intact must give exactly the
unmutated result.  A finding is written to FINDINGS (the log, replayable
with bt-export) and makes the exit status 1; a finding that was fixed
becomes a named file in tests/host/export/regress/ (test_export_cases.py
runs those).

usage: fuzz_frames.py [--runs N] [--seed S] [--secs T]   (T: CPU seconds at most)
Prints TAP.
"""
import argparse
import base64
import glob
import io
import os
import random
import re
import resource
import signal
import struct
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from btlib import chrome, events, frames, text, tracedat  # noqa: E402

FINDINGS = os.path.join(ROOT, "build", "host", "fuzz-findings")
RUN_SECS = 10                 # one run's bound (a run takes milliseconds)
AS_LIMIT = 1 << 30            # bytes of address space the fuzzing process may use

INTERESTING = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 27, 28, 29, 30, 31, 32, 49, 50, 63, 64,
               255, 256, 575, 576, 577, 600, 4079, 4080, 4095, 4096, 4097, 65535, 65536,
               2 ** 27 - 1, 2 ** 27, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32,
               2 ** 59, 2 ** 63, 2 ** 64 - 1]
LINE_RE = re.compile(r"@BT1 ([0-9a-f]{8}) (\d+) ([A-Z]) ([A-Za-z0-9+/=]*) ([0-9a-f]{8})\s*$")
SIZES = {"B": 1, "H": 2, "I": 4, "Q": 8}


# ---- the pipeline -------------------------------------------------------------

def pipeline(lines):
    """What bt-export does, in memory: (status, text or None, dump)."""
    dump, _, _ = frames.read_log(lines, None)
    if dump is None or not dump.have_begin:
        return 1, None, dump
    events.count_events(dump)
    out = text.render(dump)
    tracedat.write(dump, io.BytesIO())
    chrome.build(dump)
    return (0 if dump.complete and not dump.strays else 2), out, dump


# ---- seeds: a dump's frames, and lines made from them -------------------------

class Seed:
    def __init__(self, name, fid, frs, other_lines):
        self.name, self.fid = name, fid
        self.frames = frs                 # [(seq text, kind, payload bytes)]
        self.other = other_lines          # console lines that are no frame


def frame_line(fid, seq, kind, payload, crc=None):
    body = "%s %s %s %s" % (fid, seq, kind, base64.b64encode(payload).decode())
    return "@BT1 %s %08x" % (body, zlib.crc32(body.encode()) if crc is None else crc)


def lines_of(seed, frs=None):
    out = list(seed.other[:3])
    for f in (seed.frames if frs is None else frs):
        if isinstance(f, str):
            out.append(f)                  # a line made by a mutation
        else:
            out.append(frame_line(seed.fid, *f))
    return out + list(seed.other[3:6])


def load(path):
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").splitlines()
    frs, other, fid = [], [], None
    for l in lines:
        m = LINE_RE.match(l)
        if m:
            fid = m.group(1)
            frs.append((m.group(2), m.group(3), base64.b64decode(m.group(4))))
        else:
            other.append(l)
    return Seed(os.path.basename(path), fid, frs, other)


def cut_down(seed, keep=2):
    """The seed with only its first `keep` pages per CPU, begin and end
    frames rewritten to match (frame count, pages, events)."""
    b = bytearray(seed.frames[0][2])
    ncpus = struct.unpack_from("<I", b, 8)[0]
    body, pages = [], {}
    for _, kind, p in seed.frames[1:-1]:
        if kind == "P":
            cpu, _, _, _, page = struct.unpack_from("<HHHHI", p, 0)
            if page >= keep:
                continue
            pages.setdefault((cpu, page), []).append(p)
        body.append((kind, p))
    total_ev = total_pg = 0
    for c in range(ncpus):
        nev = npg = 0
        for (cpu, page), ps in pages.items():
            if cpu != c:
                continue
            rec = b"".join(p[24:] for p in ps)
            lost = struct.unpack_from("<Q", ps[0], 16)[0]
            npg += 1
            nev += len(events.page_events(c, rec + b"\0" * (4096 - len(rec)), lost))
        struct.pack_into("<II", b, 72 + 24 * c + 16, nev, npg)
        total_ev += nev
        total_pg += npg
    n = len(body) + 2
    struct.pack_into("<I", b, 4, n)
    frs = [("0", "B", bytes(b))] + [(str(i + 1), k, p) for i, (k, p) in enumerate(body)]
    frs.append((str(n - 1), "E", struct.pack("<IIQ", n, total_pg, total_ev)))
    return Seed(seed.name + " (2 pages per CPU)", seed.fid, frs, seed.other)


# ---- mutations ------------------------------------------------------------------

def value(rng, size):
    top = 2 ** (8 * size)
    r = rng.random()
    if r < 0.6:
        return rng.choice(INTERESTING) % top
    if r < 0.8:
        return rng.randrange(top)
    return (rng.choice(INTERESTING) + rng.choice((-1, 1))) % top


def fields(kind, p):
    """(offset, struct letter) of the fields trace/dump.c lays out in a
    payload of this kind."""
    if kind == "B":
        out = [(4, "I"), (8, "I"), (12, "I"), (16, "Q"), (24, "Q"), (32, "Q")]
        for c in range(max(0, (len(p) - 72) // 24)):
            out += [(72 + 24 * c, "Q"), (80 + 24 * c, "Q"), (88 + 24 * c, "I"), (92 + 24 * c, "I")]
        return out
    if kind == "P":
        out = [(0, "H"), (2, "H"), (4, "H"), (6, "H"), (8, "I"), (12, "I"), (16, "Q")]
        if len(p) >= 40 and p[2:4] == b"\0\0":
            out += [(24, "Q"), (32, "Q"), (32, "I")]       # page time stamp, commit
        return out
    if kind == "E":
        return [(0, "I"), (4, "I"), (8, "Q")]
    if kind == "S":
        return [(8, "I"), (12, "H")]
    if kind == "F":
        return [(8, "B"), (9, "B"), (10, "B"), (12, "B"), (13, "B"), (14, "B")]
    if kind == "C":
        return [(0, "i"), (4, "B")]
    return []


def set_field(rng, kind, p):
    fs = [(o, t) for o, t in fields(kind, p) if o + SIZES.get(t.upper(), 4) <= len(p)]
    if not fs:
        return p
    o, t = rng.choice(fs)
    b = bytearray(p)
    v = value(rng, SIZES.get(t.upper(), 4))
    struct.pack_into("<" + t.upper(), b, o, v)
    return bytes(b)


def page_items(rec):
    """Offsets of the items of a page record, read leniently."""
    out, off = [], 16
    end = min(16 + (struct.unpack_from("<Q", rec, 8)[0] & (2 ** 27 - 1)), len(rec))
    while off + 4 <= end and len(out) < 400:
        h = struct.unpack_from("<I", rec, off)[0]
        tl = h & 31
        out.append((off, tl))
        if tl == 0 and off + 8 <= end:
            size = 4 + struct.unpack_from("<I", rec, off + 4)[0]
        elif tl == 29 and off + 8 <= end:
            size = 4 + struct.unpack_from("<I", rec, off + 4)[0]
        elif tl in (30, 31):
            size = 8
        else:
            size = 4 + tl * 4
        if size < 4:
            break
        off += size
    return out


def mutate_page(rng, frs):
    """An item header or event field of one page, its pieces re-split."""
    pieces = {}
    for i, f in enumerate(frs):
        if not isinstance(f, str) and f[1] == "P" and len(f[2]) >= 24:
            cpu, piece, _, _, page = struct.unpack_from("<HHHHI", f[2], 0)
            pieces.setdefault((cpu, page), []).append((piece, i))
    if not pieces:
        return
    key = rng.choice(sorted(pieces))
    idx = [i for _, i in sorted(pieces[key])]
    rec = bytearray(b"".join(frs[i][2][24:] for i in idx))
    items = page_items(bytes(rec))
    if not items:
        return
    off, tl = rng.choice(items)
    r = rng.randrange(6)
    if r == 0:                                     # type_len
        h = struct.unpack_from("<I", rec, off)[0]
        struct.pack_into("<I", rec, off, (h & ~31) | rng.choice((0, 1, 2, 6, 12, 28, 29, 30, 31)))
    elif r == 1:                                   # time delta
        h = struct.unpack_from("<I", rec, off)[0]
        struct.pack_into("<I", rec, off, (h & 31) | (value(rng, 4) << 5) & 0xffffffff)
    elif r == 2 and off + 8 <= len(rec):           # length word / extend / padding size
        struct.pack_into("<I", rec, off + 4, value(rng, 4))
    else:                                          # an event field
        data = off + (8 if tl == 0 else 4)
        o, t = rng.choice([(0, "H"), (4, "i"), (8, "Q"), (16, "I"), (20, "I"), (24, "I"),
                           (32, "Q"), (40, "Q")])
        if data + o + struct.calcsize(t) <= len(rec):
            struct.pack_into("<" + t, rec, data + o,
                             value(rng, struct.calcsize(t)) - (2 ** 31 if t == "i" else 0))
    rec = bytes(rec)
    pos = 0
    for i in idx:
        seq, kind, p = frs[i]
        n = len(p) - 24
        frs[i] = (seq, kind, p[:24] + rec[pos:pos + n])
        pos += n


def mutate(rng, seed, other_seeds):
    """(lines, damaged): the mutated log, and the frame number a run of
    one damaging change must name (None otherwise)."""
    frs = list(seed.frames)
    nops = rng.choice((1, 1, 1, 2, 3, 4))
    damaged = None
    for _ in range(nops):
        i = rng.randrange(len(frs))
        f = frs[i]
        r = rng.randrange(17)
        if isinstance(f, str):
            r = 16
        if r <= 3:
            frs[i] = (f[0], f[1], set_field(rng, f[1], f[2]))
        elif r <= 6:
            mutate_page(rng, frs)
        elif r == 7:                                # bytes
            b = bytearray(f[2])
            for _ in range(rng.randint(1, 4)):
                if b:
                    b[rng.randrange(len(b))] = rng.randrange(256)
            frs[i] = (f[0], f[1], bytes(b))
        elif r == 8:                                # shorter or longer payload
            n = rng.choice((0, 1, 8, 16, 23, 24, 71, 72, len(f[2]) - 1, len(f[2]) + 1, 600, 601))
            p = f[2][:n] if n <= len(f[2]) else f[2] + bytes(rng.randrange(256)
                                                            for _ in range(n - len(f[2])))
            frs[i] = (f[0], f[1], p)
        elif r == 9:                                # sequence number
            frs[i] = (rng.choice(("0", str(len(frs) - 1), str(len(frs)), str(len(frs) + 1),
                                  "4294967295", "4294967296", "999999999999", "0" + f[0],
                                  str(rng.randrange(2 ** 32)))), f[1], f[2])
        elif r == 10:                               # kind
            frs[i] = (f[0], rng.choice("BPSFCEXZ"), f[2])
        elif r == 11:                               # stale CRC: a corrupt frame
            b = bytearray(f[2])
            if b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
                crc = int(frame_line(seed.fid, *f)[-8:], 16)
                frs[i] = frame_line(seed.fid, f[0], f[1], bytes(b), crc)
                damaged = int(f[0]) if nops == 1 else None
        elif r == 12:                               # the line cut
            line = frame_line(seed.fid, *f)
            frs[i] = line[:rng.randrange(5, len(line))]
            damaged = int(f[0]) if nops == 1 else None
        elif r == 13:                               # dropped
            del frs[i]
            damaged = int(f[0]) if nops == 1 else None
        elif r == 14:                               # repeated or swapped
            j = rng.randrange(len(frs))
            if rng.random() < 0.5:
                frs.insert(j, f)
            else:
                frs[i], frs[j] = frs[j], frs[i]
        elif r == 15:                               # another dump's frame, or all of it
            o = rng.choice(other_seeds)
            if rng.random() < 0.3:
                return lines_of(o) + lines_of(seed, frs), None
            g = rng.choice(o.frames)
            frs.insert(i, frame_line(o.fid if rng.random() < 0.5 else seed.fid, *g))
        else:                                       # text damage
            line = f if isinstance(f, str) else frame_line(seed.fid, *f)
            j = rng.randrange(len(line))
            frs[i] = rng.choice((line[:j] + chr(rng.randrange(32, 127)) + line[j + 1:],
                                 line[:j] + "@BT1 " + line[j:],
                                 "garbage " + line, line + " trailing"))
    return lines_of(seed, frs), damaged


# ---- the run ---------------------------------------------------------------------

class RunTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise RunTimeout("run took over %d s" % RUN_SECS)


def names_frame(dump, seq):
    for s, _ in dump.problems.items:
        if s == seq or isinstance(s, tuple) and s[0] <= seq <= s[1]:
            return True
    return False


def check_run(lines, damaged, base):
    """None, or what is wrong with this run."""
    signal.setitimer(signal.ITIMER_REAL, RUN_SECS)
    try:
        status, out, dump = pipeline(lines)
    except MemoryError:
        return "MemoryError (over the %d MB address space limit)" % (AS_LIMIT >> 20)
    except Exception:                               # noqa: BLE001 — any escape is a finding
        return traceback.format_exc(limit=-3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if status == 1 and dump is not None and dump.have_begin:
        return "status 1 with a usable dump"
    if status == 2 and not (dump.problems or dump.strays):
        return "status 2 with nothing said"
    if damaged is not None and (status == 0 or dump is None or not names_frame(dump, damaged)):
        return "frame %d damaged: status %d, problems %s" % (
            damaged, status, dump.problems.lines()[:5] if dump else None)
    if base is not None and (status, out) != base:
        return "frames intact, result differs: status %d" % status
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--secs", type=float, default=120,
                    help="stop after this much CPU time (a loaded machine still runs them all)")
    a = ap.parse_args()
    full = [load(p) for p in sorted(glob.glob(os.path.join(HERE, "export", "*.log")))]
    seeds = [cut_down(s) for s in full] + full
    signal.signal(signal.SIGALRM, on_alarm)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT if hard == resource.RLIM_INFINITY
                                            else min(AS_LIMIT, hard), hard))
    print("TAP version 13")
    n = 0
    bases = {}
    for s in seeds:
        n += 1
        st, out, d = pipeline(lines_of(s))
        bases[s.name] = (st, out)
        print("%s %d - %s decodes complete before mutation" % ("ok" if st == 0 else "not ok", n,
                                                               s.name))
    bad, start, cpu0, done = 0, time.time(), time.process_time(), 0
    for r in range(a.runs):
        if time.process_time() - cpu0 > a.secs:
            break
        rng = random.Random(a.seed * 1000003 + r)
        # Mostly the cut-down seeds (fast); every 8th run a whole capture.
        s = seeds[r % len(full)] if r % 8 else seeds[len(full) + r // 8 % len(full)]
        lines, damaged = mutate(rng, s, [x for x in seeds if x.fid != s.fid] or seeds)
        fr = [l for l in lines if "@BT1 " in l]
        intact = fr == [l for l in lines_of(s) if "@BT1 " in l]
        why = check_run(lines, damaged, bases[s.name] if intact else None)
        done += 1
        if why:
            bad += 1
            os.makedirs(FINDINGS, exist_ok=True)
            path = os.path.join(FINDINGS, "seed%d-run%d.log" % (a.seed, r))
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            print("# run %d (seed %d) on %s: %s\n#   log: %s" % (
                r, a.seed, s.name, why.strip().replace("\n", "\n#   "), path))
    n += 1
    print("%s %d - %d mutated dumps in %.0f s (%.0f s CPU): no exception, bounded time and "
          "memory, meaningful status, damaged frames named, intact frames decode the same" %
          ("ok" if not bad else "not ok", n, done, time.time() - start, time.process_time() - cpu0))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
