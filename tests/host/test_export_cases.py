#!/usr/bin/env python3
"""test_export_cases.py — tools/bt-export on logs that must not break it
(issue 21), each run as a user runs it: a subprocess under an address
space limit (ulimit -v), its peak memory measured.  TAP output.

  cases        /work/shared/cases/export-* (copies in export/cases/): a
               frame-shaped line with an absurd sequence number, also as
               the guest prints it from trace_marker; a log whose newest
               dump is damaged and an older one complete
  regressions  what tests/host/fuzz_frames.py found (export/regress/),
               each with the status and message it must now give, run in
               process (fuzz_frames.pipeline) and as bt-export
  big inputs   100 MB of random bytes, a 100 MB line, 10 MB of stray
               frame-shaped lines, of tiny valid frames, of one-frame
               dumps, fifty real dumps in one log, and one valid dump of
               4 MB (a capture's pages 60 times over) written as all three
Every run: status 0, 1 or 2; every stderr line a "bt-export: " message (no
traceback); no temporary file left beside the outputs; peak memory under
BASE_KB + RSS_PER_BYTE * the log's size.
"""
import base64
import gzip
import os
import re
import resource
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import taplib  # noqa: E402
import fuzz_frames  # noqa: E402

EXPORT = os.path.join(ROOT, "tools", "bt-export")
CASES = os.path.join(HERE, "export", "cases")
REGRESS = os.path.join(HERE, "export", "regress")
BASE_KB = 80 * 1024           # the interpreter and btlib, measured ~16 MB
LIMIT_BASE_KB = 256 * 1024    # ulimit -v beyond twice the expected peak: the interpreter's mappings
RSS_PER_BYTE = 8              # peak memory per byte of log (measured 2 to 7)
CPU_SECS = 120                # a run's CPU time limit

# export/regress/*.log.gz: what bt-export must say now (status, stderr text).
REGRESSIONS = {
    "short-event-pid": (2, "frame 48: CPU 3 page 1 byte 1392: event of 4 bytes, shorter than "
                           "an event header: skipped"),
    "nargs-past-event-tid-sort": (2, "frame 41: CPU 2 page 1 byte 972: 8 argument words (32 at "
                                     "most) in an event of 48 bytes: skipped"),
    "piece-short-pack-range": (2, "frame 17: page piece: piece 0 holds 48 bytes, 576 expected: "
                                  "skipped"),
    "commit-past-record": (2, "frame 9: CPU 0 page 1 byte 8: page header: commit of 60698999 "
                              "bytes, the record holds 4044"),
    "begin-out-of-place-pages": (2, "frame 24: a begin frame out of place: skipped"),
    "graph-depth-huge": (2, "frame 1: CPU 0 page 0 byte 16: call depth 3958465901, deeper than "
                            "any call stack: skipped"),
    "begin-cpus-huge": (2, "frame 40: page piece: page 134217727, the begin frame counts 2 on "
                           "CPU 3: skipped"),
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def unpack(name, tmp):
    path = os.path.join(tmp, os.path.basename(name)[:-3])
    with gzip.open(name) as f, open(path, "wb") as o:
        o.write(f.read())
    return path


def run(log, *args, limit_kb=None):
    """bt-export LOG ARGS under ulimit -v: (status, stdout, stderr, peak KB);
    checks what every run must give."""
    size = os.path.getsize(log) if log != "-" else 0
    limit_kb = limit_kb or LIMIT_BASE_KB + 2 * RSS_PER_BYTE * size // 1024

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, limit_kb * 1024))
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECS, CPU_SECS))
    outdir = os.path.dirname(log)
    before = set(os.listdir(outdir))
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen([EXPORT, log] + list(args), stdout=fo, stderr=fe,
                             stdin=subprocess.DEVNULL, preexec_fn=limits)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode(), fe.read().decode()
    rc = p.returncode
    check(rc in (0, 1, 2), "%s: status %d: %s" % (log, rc, err[-2000:]))
    check("Traceback" not in err and all(l.startswith("bt-export: ") for l in err.splitlines()),
          "%s: not a message:\n%s" % (log, err[-3000:]))
    outs = {os.path.basename(a) for a in args}
    left = set(os.listdir(outdir)) - before - outs
    check(not left, "%s: files left: %s" % (log, sorted(left)))
    check(ru.ru_maxrss <= BASE_KB + RSS_PER_BYTE * size // 1024,
          "%s: peak %d KB for %d bytes of log" % (log, ru.ru_maxrss, size))
    return rc, out, err, ru.ru_maxrss


def guest_text(log):
    """The guest's last `cat trace` before its last `dump` in the log."""
    with open(log, errors="replace") as f:
        raw = f.read().replace("\r", "")
    return raw.rsplit("trace> cat trace\n", 1)[1].split("trace> dump", 1)[0]


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


# ---- the cases -----------------------------------------------------------------------

def test_case_huge_sequence():
    """A frame-shaped line with a sequence number of 12 digits after the
    dumps: reported by line, the newest (complete) dump written; under
    ulimit -v 3000000 as the case says (before: MemoryError, 10+ GB)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = unpack(os.path.join(CASES, "export-huge-sequence.log.gz"), tmp)
        out = os.path.join(tmp, "out.txt")
        rc, _, err, _ = run(log, "--text", out, limit_kb=3000000)
        check(rc == 2 and "bt-export: line 2660: frame-shaped text of id deadbeef: sequence number "
              "999999999999 out of range; no valid frame has this id: ignored" in err, err)
        check("dump 0258319b: arm64, function tracer, 4 CPUs, 1602 events of 1602\n" in err, err)
        check(read(out) == guest_text(log), "the text is not the guest's cat trace")


def test_case_marker_frame():
    """The case's marker-frame.txt: the guest echoes `@BT1 0badf00d
    9999999999` into trace_marker; the shell echoes the command and `cat
    trace` prints the text: both lines are reported, the dump is written."""
    with tempfile.TemporaryDirectory() as tmp:
        log = unpack(os.path.join(CASES, "export-huge-sequence.log.gz"), tmp)
        lines = read(log).split("\n")
        at = next(i for i, l in enumerate(lines) if l.startswith("trace> cat trace"))
        lines[at:at] = ["trace> echo @BT1 0badf00d 9999999999 > trace_marker",
                        "            <idle>-0       [000] ...1.    12.345678: tracing_mark_write: "
                        "@BT1 0badf00d 9999999999"]
        lines = [l for l in lines if "deadbeef" not in l]
        with open(log, "w") as f:
            f.write("\n".join(lines))
        out = os.path.join(tmp, "out.txt")
        rc, _, err, _ = run(log, "--text", out, limit_kb=3000000)
        for n in (at + 1, at + 2):
            check("line %d: frame-shaped text of id 0badf00d: sequence number 9999999999 out of "
                  "range" % n in err, err)
        check(rc == 2 and read(out) == guest_text(log), err)


def event_lines(text):
    return [l for l in text.splitlines() if not l.startswith("#")]


def test_case_damaged_newest():
    """Two dumps, one payload character of the newer one damaged: that
    dump is written (what is valid of it) with its bad frame named and exit
    2; the older one only with --dump; --dump list lists both."""
    with tempfile.TemporaryDirectory() as tmp:
        log = unpack(os.path.join(CASES, "export-damaged-newest-dump.log.gz"), tmp)
        out = os.path.join(tmp, "out.txt")
        rc, _, err, _ = run(log, "--text", out)
        check(rc == 2 and "using 0258319b (the newest" in err and
              "bt-export: dump 0258319b: frame 7: CRC mismatch\n" in err and
              "CPU 0 page 0 incomplete (7 of 8 pieces: frames 1,2,3,4,5,6,8)" in err and
              "00ccd6ab is complete: --dump 00ccd6ab exports it" in err, err)
        host, guest = event_lines(read(out)), event_lines(guest_text(log))
        check(read(out).startswith("# tracer: function\n"), read(out)[:200])
        # What is valid is written: every event but CPU 0's first page's, in order.
        it = iter(guest)
        check(all(l in it for l in host), "the host's lines are not the guest's, in order")
        check(len(host) == 1457 and len([l for l in guest if "[000]" not in l]) ==
              len([l for l in host if "[000]" not in l]), (len(host), len(guest)))
        rc, _, err, _ = run(log, "--text", out, "--dump", "00ccd6ab")
        check(rc == 0 and read(out).startswith("# tracer: function_graph\n"), err)
        rc, listing, err, _ = run(log, "--dump", "list")
        check(rc == 0 and listing ==
              "00ccd6ab: arm64, function_graph tracer, 4 CPUs, 143 frames: complete\n"
              "0258319b: arm64, function tracer, 4 CPUs, 93 frames: damaged (2 problems)\n",
              listing)
        rc, _, err, _ = run(log, "--text", out, "--dump", "0badf00d")
        check(rc == 1 and "no dump named 0badf00d; the log holds:" in err, err)


# ---- the fuzzer's findings ------------------------------------------------------------

def test_regressions():
    names = sorted(f[:-7] for f in os.listdir(REGRESS) if f.endswith(".log.gz"))
    check(names == sorted(REGRESSIONS), "export/regress/ and REGRESSIONS differ: %s" % names)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            log = unpack(os.path.join(REGRESS, name + ".log.gz"), tmp)
            with open(log, "rb") as f:
                fuzz_frames.pipeline(f.read().splitlines())
            want_rc, want = REGRESSIONS[name]
            outs = [os.path.join(tmp, name + "." + k) for k in ("txt", "dat", "json")]
            rc, _, err, _ = run(log, "--text", outs[0], "--dat", outs[1], "--json", outs[2])
            check(rc == want_rc and want in err, "%s: status %d:\n%s" % (name, rc, err))
            check(all(os.path.exists(o) for o in outs), "%s: an output missing" % name)


# ---- big inputs -------------------------------------------------------------------------

MB = 1024 * 1024


def frame(fid, seq, kind, payload):
    body = "%s %s %s %s" % (fid, seq, kind, base64.b64encode(payload).decode())
    return "@BT1 %s %08x\n" % (body, zlib.crc32(body.encode()))


def write_lines(path, size, make):
    with open(path, "w") as f:
        n = i = 0
        while n < size:
            line = make(i)
            f.write(line)
            n += len(line)
            i += 1


def test_big_inputs():
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "random.log")
        with open(p, "wb") as f:
            for _ in range(100):
                f.write(os.urandom(MB))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"))
        check(rc == 1 and "no baretrace dump" in err, err)
        os.unlink(p)

        p = os.path.join(tmp, "line.log")
        with open(p, "w") as f:
            f.write("@BT1 deadbeef 1 P " + "A" * (100 * MB))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"))
        check(rc == 1 and "line 1: frame-shaped text of id deadbeef frame 1: longer than any "
              "frame" in err, err)
        os.unlink(p)

        p = os.path.join(tmp, "strays.log")
        write_lines(p, 10 * MB, lambda i: "@BT1 %08x %d P AAAA 00000000\n" % (
            i * 2654435761 % 2 ** 32, i * 40503 % 2 ** 32))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"))
        check(rc == 1 and re.search(r"\.\.\. and \d+ more such lines", err) and
              len(err.splitlines()) < 300, err[-2000:])

        p = os.path.join(tmp, "tiny.log")
        write_lines(p, 10 * MB, lambda i: frame("12345678", i + 1, "P", b""))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"))
        check(rc == 1 and "frame 0: begin frame missing" in err, err[-2000:])

        p = os.path.join(tmp, "dumps.log")
        write_lines(p, 5 * MB, lambda i: frame("%08x" % (i * 2654435761 % 2 ** 32), 1, "S", b""))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"))
        check(rc == 1 and "more dumps before these: not kept" in err, err[-2000:])

        # Fifty real dumps (ids rewritten): the newest is written.
        seed = fuzz_frames.load(os.path.join(HERE, "export", "x86_64-function_graph.log"))
        p = os.path.join(tmp, "fifty.log")
        with open(p, "w") as f:
            for k in range(50):
                f.write("".join(frame("%08x" % (k + 1), s, kind, pl) for s, kind, pl in seed.frames))
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"), "--dat",
                            os.path.join(tmp, "o.dat"), "--json", os.path.join(tmp, "o.json"))
        check(rc == 0 and "using 00000032 (the newest" in err, err[-2000:])

        # One big valid dump: the capture's pages 60 times over (4 MB).
        p = os.path.join(tmp, "big.log")
        nev = big_dump(seed, 60, p)
        rc, _, err, _ = run(p, "--text", os.path.join(tmp, "o.txt"), "--dat",
                               os.path.join(tmp, "o.dat"), "--json", os.path.join(tmp, "o.json"))
        check(rc == 0 and "%d events of %d\n" % (nev, nev) in err, err[-2000:])


def big_dump(seed, times, path):
    """seed's pages `times` times over (page numbers moved on) as one dump
    in path; returns its event count."""
    b = bytearray(seed.frames[0][2])
    ncpus = struct.unpack_from("<I", b, 8)[0]
    body = []
    for r in range(times):
        for _, kind, p in seed.frames[1:-1]:
            if kind == "P":
                cpu, _, _, _, page = struct.unpack_from("<HHHHI", p, 0)
                q = bytearray(p)
                struct.pack_into("<I", q, 8, page + r * struct.unpack_from(
                    "<I", b, 72 + 24 * cpu + 20)[0])
                body.append(("P", bytes(q)))
    body += [(k, p) for _, k, p in seed.frames[1:-1] if k != "P"]
    nev = 0
    for c in range(ncpus):
        ev, pg = struct.unpack_from("<II", b, 72 + 24 * c + 16)
        struct.pack_into("<II", b, 72 + 24 * c + 16, ev * times, pg * times)
        nev += ev * times
    n = len(body) + 2
    struct.pack_into("<I", b, 4, n)
    end = struct.unpack_from("<IIQ", seed.frames[-1][2])
    with open(path, "w") as f:
        f.write(frame(seed.fid, 0, "B", bytes(b)))
        for i, (k, p) in enumerate(body):
            f.write(frame(seed.fid, i + 1, k, p))
        f.write(frame(seed.fid, n - 1, "E", struct.pack("<IIQ", n, end[1] * times, end[2] * times)))
    return nev


def test_outputs_whole():
    """An output that cannot be written: exit 1, the message names it, no
    other file is left half-written and nothing is left behind; what is
    written has the mode open() gives (not the temporary file's 0600)."""
    seed = os.path.join(HERE, "export", "arm64-function_graph.log")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        with open(seed, "rb") as f, open(log, "wb") as o:
            o.write(f.read())
        d = os.path.join(tmp, "adir")
        os.mkdir(d)
        rc, _, err, _ = run(log, "--text", os.path.join(tmp, "o.txt"), "--dat", d)
        check(rc == 1 and "adir: not written" in err, err)
        check(sorted(os.listdir(tmp)) == ["adir", "o.txt", "serial.log"] and not os.listdir(d),
              os.listdir(tmp))
        umask = os.umask(0o022)
        os.umask(umask)
        mode = os.stat(os.path.join(tmp, "o.txt")).st_mode & 0o777
        check(mode == 0o666 & ~umask, "o.txt has mode %o, umask %o" % (mode, umask))
        rc, _, err, _ = run(log, "--text", os.path.join(tmp, "nodir", "o.txt"))
        check(rc == 1 and "nodir/o.txt: not written" in err, err)


TESTS = [test_case_huge_sequence, test_case_marker_frame, test_case_damaged_newest,
         test_regressions, test_big_inputs, test_outputs_whole]


def main():
    return taplib.run(TESTS, "export cases")


if __name__ == "__main__":
    sys.exit(main())
