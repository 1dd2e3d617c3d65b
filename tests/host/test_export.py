#!/usr/bin/env python3
"""test_export.py — tools/bt-export and tools/btlib on the host, TAP output.

A dump is made here from a known event set, frame by frame as trace/dump.c
makes it (the encoder below follows its header), then damaged in known
ways; each case checks what is reported (by frame number), what is
recovered (exact event counts) and the exit status.  trace.dat is read back
with `trace-cmd report`; the JSON is parsed and its nesting checked; the
text is compared with a fixed expected text and, for dumps captured from
the guests (tests/host/export/*.log, made with tests/checks/export_checks.py
--capture), with the guest's own `cat trace` in the same log.
"""
import base64
import glob
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "checks"))
sys.path.insert(0, HERE)
import taplib  # noqa: E402
from btlib import chrome, events, frames, fsig, text, tracedat  # noqa: E402
from export_checks import nesting_errors  # noqa: E402

EXPORT = os.path.join(ROOT, "tools", "bt-export")

# ---- a dump made from a known event set ---------------------------------------

FN, RET, ENT = 1, 10, 11
SYMS = [(0x1000, 0x100, "vfs_open"), (0x1100, 0x80, "path_get"), (0x2000, 0x40, "worker_main")]
# vfs_open(int flags, const char *name) -> int; path_get(void *p) -> long
SIGS = [(0x1000, [("flags", 1, 4), ("name", 6, 8)], (1, 4)), (0x1100, [("p", 5, 8)], (1, 8))]
COMMS = {5: "worker", 6: "demo"}


def ent(pid, func, depth, args=(), flags=0):
    return struct.pack("<HBBiQII", ENT, flags, 1, pid, func, depth, len(args)) + \
        b"".join(struct.pack("<Q", a) for a in args)


def ret(pid, func, depth, retval, calltime, rettime, flags=0, overrun=0):
    return struct.pack("<HBBiQQIIQQ", RET, flags, 1, pid, func, retval & (2 ** 64 - 1), depth,
                       overrun, calltime, rettime)


def fn(pid, ip, parent):
    return struct.pack("<HBBiQQ", FN, 0, 1, pid, ip, parent)


def page(evs, lost=0):
    """evs: [(ts, payload)] -> a page record in rb_read_page()'s form."""
    data = b""
    prev = evs[0][0]
    for ts, p in evs:
        delta = ts - prev
        if delta >> 27:
            data += struct.pack("<II", 30 | (delta & (2 ** 27 - 1)) << 5, delta >> 27)
            delta = 0
        data += struct.pack("<I", len(p) // 4 | delta << 5) + p
        prev = ts
    commit = len(data) | ((1 << 31) | (1 << 30) if lost else 0)
    return struct.pack("<QQ", evs[0][0], commit) + data + (struct.pack("<Q", lost) if lost else b"")


def events_cpu0():
    """Three pages on CPU 0: calls of vfs_open -> path_get; lost events
    before the third page."""
    pages = []
    t = 1000
    for i in range(3):
        evs = []
        for k in range(2):
            a = t
            evs += [(a, ent(5, 0x1000, 0, (3, 0x4000))), (a + 100, ent(5, 0x1100, 1, (0x5000,))),
                    (a + 600, ret(5, 0x1100, 1, -22, a + 100, a + 600)),
                    (a + 2500, ret(5, 0x1000, 0, 7, a, a + 2500))]
            t += 5000
        pages.append(page(evs, lost=4 if i == 2 else 0))
    return pages


def events_cpu1():
    return [page([(40000, fn(6, 0x2010, 0x2000)), (2 ** 28 + 40000, fn(6, 0x1000, 0x2020))])]


def frame(fid, seq, kind, payload):
    body = "%08x %d %s %s" % (fid, seq, kind, base64.b64encode(payload).decode())
    return "@BT1 %s %08x" % (body, zlib.crc32(body.encode()))


def make_dump(fid=0x1234abcd, tracer="function_graph", opts=None, hz=1000000000, cpu0=None):
    if opts is None:
        # print-parent, funcgraph cpu overhead duration irqs retval args
        opts = 1 << 0 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 8 | 1 << 10 | 1 << 12
    cpus = [cpu0 or events_cpu0(), events_cpu1()]
    body = []
    nev = []
    for c, pages in enumerate(cpus):
        n = 0
        for i, raw in enumerate(pages):
            cnt = len(events.page_events(c, raw + b"\0" * (4096 - len(raw))))
            n += cnt
            lost = struct.unpack_from("<Q", raw, len(raw) - 8)[0] if raw[15] & 0x40 else 0
            pieces = [raw[o:o + frames.PIECE] for o in range(0, len(raw), frames.PIECE)]
            for k, pc in enumerate(pieces):
                body.append(("P", struct.pack("<HHHHIIQ", c, k, len(pieces), 0, i, len(raw),
                                              lost) + pc))
        nev.append((n, len(pages)))
    body.append(("S", b"".join(struct.pack("<QIH", a, s, len(n)) + n.encode() for a, s, n in SYMS)))
    body.append(("F", b"".join(struct.pack("<QBBBB", ip, len(ps), r[0], r[1], 0) +
                               b"".join(struct.pack("<BBB", k, s, len(n)) + n.encode()
                                        for n, k, s in ps) for ip, ps, r in SIGS)))
    body.append(("C", b"".join(struct.pack("<iB", p, len(c)) + c.encode() for p, c in COMMS.items())))
    nframes = len(body) + 2
    mult = (10 ** 9 << 32) // hz
    begin = struct.pack("<IIIIQQQ", 1, nframes, 2, 1, hz, mult, opts) + \
        tracer.encode().ljust(16, b"\0") + b"arm64".ljust(16, b"\0")
    for n, p in nev:
        begin += struct.pack("<QQII", 0, 4, n, p)
    lines = [frame(fid, 0, "B", begin)]
    lines += [frame(fid, i + 1, k, p) for i, (k, p) in enumerate(body)]
    lines.append(frame(fid, nframes - 1, "E", struct.pack("<IIQ", nframes, 4,
                                                          sum(n for n, _ in nev))))
    return lines


TOTAL = 6 * 4 + 2          # events in make_dump()
PER_PAGE0 = 8              # events in each CPU 0 page

EXPECTED_TEXT = """\
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  vfs_open(flags=3, name=0x4000) {
 0)   0.500 us    |    path_get(p=0x5000); /* ret=-22 */
 0)   2.500 us    |  } /* vfs_open ret=0x7 */
 0)               |  vfs_open(flags=3, name=0x4000) {
 0)   0.500 us    |    path_get(p=0x5000); /* ret=-22 */
 0)   2.500 us    |  } /* vfs_open ret=0x7 */
"""

# ---- running things -------------------------------------------------------------


def export(lines, *outs, dump=None, stdout=False):
    """bt-export on the lines: (status, stderr (stdout if asked), {kind: bytes})."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "serial.log")
        with open(log, "w") as f:
            f.write("\n".join(lines) + "\n")
        args = [EXPORT, log] + (["--dump", dump] if dump else [])
        paths = {}
        for o in outs:
            paths[o] = os.path.join(tmp, "out." + o)
            args += ["--" + o, paths[o]]
        p = subprocess.run(args, capture_output=True, text=True)
        got = {}
        for o, path in paths.items():
            if os.path.exists(path):
                with open(path, "rb") as f:
                    got[o] = f.read()
        left = set(os.listdir(tmp)) - {"serial.log"} - {os.path.basename(x) for x in paths.values()}
        check(not left, "temporary files left: %s" % sorted(left))
        return p.returncode, p.stdout if stdout else p.stderr, got


def decode(lines):
    d, _, notes = frames.read_log(lines)
    return d, sum(len(v) for v in events.dump_events(d).values()), notes


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ---- cases ---------------------------------------------------------------------------

def test_good_dump():
    lines = ["baretrace: some console output", "trace> dump"] + make_dump() + ["trace> "]
    rc, err, got = export(lines, "text")
    check(rc == 0, "exit %d: %s" % (rc, err))
    check("26 events of 26" in err, err)
    d, n, _ = decode(lines)
    check(n == TOTAL and d.complete, "events %d, problems %s" % (n, d.problems.lines()))


def test_dropped_frame():
    lines = make_dump()
    del lines[2]                                   # frame 2: CPU 0 page 1 (one piece)
    d, n, _ = decode(lines)
    msgs = d.problems.lines()
    check("frame 2: missing" in msgs, msgs)
    check(any("CPU 0 page 1: every frame lost" in m for m in msgs), msgs)
    check(n == TOTAL - PER_PAGE0, "recovered %d events" % n)
    rc, err, got = export(lines, "text", "dat", "json")
    check(rc == 2 and "frame 2: missing" in err and set(got) == {"text", "dat", "json"},
          "rc %d %s" % (rc, err))


def test_corrupted_crc():
    lines = make_dump()
    l3 = lines[3]
    i = l3.index(" P ") + 10
    lines[3] = l3[:i] + ("A" if l3[i] != "A" else "B") + l3[i + 1:]
    d, n, _ = decode(lines)
    msgs = d.problems.lines()
    check("frame 3: CRC mismatch" in msgs, msgs)
    check(n == TOTAL - PER_PAGE0, "recovered %d events" % n)
    rc, err, _ = export(lines, "text")
    check(rc == 2 and "frame 3: CRC mismatch" in err, err)


def test_truncated_last_frame():
    lines = make_dump()
    last = len(lines) - 1
    lines[-1] = lines[-1][:30]
    d, n, _ = decode(lines)
    msgs = d.problems.lines()
    check("frame %d: truncated or malformed" % last in msgs, msgs)
    check(n == TOTAL, "recovered %d events" % n)
    rc, err, got = export(lines, "text")
    check(rc == 2 and "text" in got, err)


def test_garbage_interleaved():
    lines = []
    for i, l in enumerate(make_dump()):
        lines += ["random %d @BT garbage" % i, "\x1b[0m#$%", "CPU 2: timer tick " + "x" * i]
        lines.append(("prefix without newline " if i % 3 == 0 else "") + l + ("\r" if i % 2 else ""))
    d, n, _ = decode(lines)
    check(d.complete and n == TOTAL, "problems %s, %d events" % (d.problems.lines(), n))
    rc, err, got = export(lines, "text")
    d, _, _ = decode(make_dump())
    check(rc == 0 and got["text"].decode() == text.render(d), err)


def test_two_dumps():
    first = make_dump(fid=0x11111111)
    second = make_dump(fid=0x22222222)
    del second[2]
    # The newest is taken, damaged or not; an older one only when asked for.
    d, n, notes = decode(first + second)
    check(d.id == "22222222" and n == TOTAL - PER_PAGE0, (d.id, n))
    check(any("2 dumps" in x for x in notes) and
          any("11111111 is complete: --dump 11111111" in x for x in notes), notes)
    d, n, notes = decode(first + make_dump(fid=0x33333333))
    check(d.id == "33333333", d.id)
    rc, err, _ = export(first + second, "text")
    check(rc == 2 and "using 22222222" in err and "dump 22222222: frame 2: missing" in err, err)
    rc, err, _ = export(second, "text")
    check(rc == 2, rc)


def test_dump_choice():
    """--dump NAME takes an older dump; --dump list lists them; an id used
    by two dumps (another begin frame) names the second <id>.2."""
    first = make_dump(fid=0x11111111)
    second = make_dump(fid=0x22222222)
    del second[2]
    rc, err, got = export(first + second, "text", dump="11111111")
    d, _, _ = decode(first)
    check(rc == 0 and "using 11111111 (asked for)" in err and got["text"].decode() == text.render(d),
          (rc, err))
    rc, err, got = export(first + second, "text", dump="33333333")
    check(rc == 1 and not got and "no dump named 33333333" in err and "  11111111: " in err, err)
    rc, out, _ = export(first + second, dump="list", stdout=True)
    check(rc == 0 and out == "11111111: arm64, function_graph tracer, 2 CPUs, 9 frames: complete\n"
          "22222222: arm64, function_graph tracer, 2 CPUs, 9 frames: damaged (2 problems)\n", out)
    again = make_dump(fid=0x11111111, tracer="function")
    d, _, notes = decode(first + again)
    check(d.id == "11111111.2" and d.tracer == "function" and d.complete, (d.id, notes))
    d, _, _ = frames.read_log(first + again, "11111111")
    check(d.tracer == "function_graph" and d.complete, d.tracer)


def test_impossible_event():
    """A valid frame carrying an impossible event (call depth 70000): the
    event is reported by its frame and byte and left out of every output;
    trace.dat's page is written again without it, the times of the others
    unchanged."""
    lines = make_dump()
    fid, seq, kind, b64 = lines[1].split()[1:5]
    p = bytearray(base64.b64decode(b64))
    check(kind == "P" and struct.unpack_from("<HI", p, 24 + 16 + 4)[0] == ENT, "frame 1: CPU 0 page 0")
    struct.pack_into("<I", p, 24 + 16 + 4 + 16, 70000)      # the first entry's depth
    lines[1] = frame(int(fid, 16), 1, "P", bytes(p))
    d, n, _ = decode(lines)
    check(n == TOTAL - 1 and d.problems.lines() == [
        "frame 1: CPU 0 page 0 byte 16: call depth 70000, deeper than any call stack: skipped"],
        (n, d.problems.lines()))
    rc, err, got = export(lines, "text", "dat", "json")
    check(rc == 2 and "frame 1: CPU 0 page 0 byte 16: call depth 70000" in err, err)
    t = got["text"].decode()
    check(t.count("vfs_open(flags=3, name=0x4000) {") == 5 and "70000" not in t, t[:600])
    with tempfile.NamedTemporaryFile(suffix=".dat") as f:
        f.write(got["dat"])
        f.flush()
        p = subprocess.run(["trace-cmd", "report", "-t", f.name], capture_output=True, text=True)
    out = p.stdout
    check(p.returncode == 0 and out.count("vfs_open() {") == 5 and out.count("path_get();") == 6,
          out[:3000])
    check("worker-5     [000]     0.000001100: funcgraph_entry:        0.500 us   |    path_get();"
          in out, out[:1500])


def test_nothing_usable():
    rc, err, got = export(["no dump here"], "text")
    check(rc == 1 and not got and "no baretrace dump" in err, (rc, err))
    lines = make_dump()
    del lines[0]                                   # the begin frame
    rc, err, got = export(lines, "text")
    check(rc == 1 and "frame 0: missing" in err, (rc, err))


def test_text():
    d, _, _ = decode(make_dump())
    t = text.render(d)
    check(t.startswith(EXPECTED_TEXT), t)
    # Events lost before the third page: no LOST line, as `cat trace` (a
    # dump is read as it reads the buffer; trace_pipe has the lines).
    check("LOST" not in t and t.count("vfs_open(flags=3, name=0x4000) {") == 6, t)
    # CPU 1's function events print in the function tracer's format.
    check(t.endswith("            demo-6       [001] ...1.     0.000040: worker_main <-worker_main\n"
                     "            demo-6       [001] ...1.     0.268475: vfs_open <-worker_main\n"), t)
    check(t.count("vfs_open(flags=3, name=0x4000) {") == 6, t)


def test_trace_stack_marks():
    """The trace stack's exits (trace/core/tstack.h): the marks in overrun's top
    bits print as function_graph_output.c prints them (tests/host/test_tstack.c):
    never a leaf, no return value, the overrun count without them."""
    late, gone = 1 << 31, 1 << 30
    cpu0 = [page([(1000, ent(5, 0x1000, 0, (3, 0x4000))), (1100, ent(5, 0x1100, 1, (0x5000,))),
                  (1600, ret(5, 0x1100, 1, 0, 1100, 1600, overrun=late | 2)),
                  (3500, ret(5, 0x1000, 0, 0, 1000, 3500, overrun=gone | 2))])]
    d, _, _ = decode(make_dump(cpu0=cpu0))
    t = text.render(d)
    check(" 0)               |  vfs_open(flags=3, name=0x4000) {\n"
          " 0)               |    path_get(p=0x5000) {\n"
          " 0)   0.500 us    |    } /* path_get (late) */\n"
          " 0)   2.500 us    |  } /* vfs_open (gone) */\n" in t, t)
    d, _, _ = decode(make_dump(cpu0=cpu0, opts=1 << 2 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 8))
    t = text.render(d)    # funcgraph-overrun on, retval and args off
    check(" 0)   0.500 us    |    } /* path_get (late) */\n (Overruns: 2)\n" in t, t)
    rc, err, got = export(make_dump(cpu0=cpu0), "json")
    check(rc == 0, err)
    es = [e for e in json.loads(got["json"])["traceEvents"] if e["ph"] == "E" and e["pid"] == 0]
    check([(e["name"], e["args"]) for e in es] ==
          [("path_get", {"late": True}), ("vfs_open", {"gone": True})], es)


def test_text_function_tracer():
    d, _, _ = decode(make_dump(tracer="function", opts=1))
    t = text.render(d)
    check("# entries-in-buffer/entries-written: 26/34   #P:2\n" in t, t)
    check(t.count(" 0) ") == 0 and "vfs_open(flags=3" in t, t)


def test_trace_cmd_report():
    if not shutil.which("trace-cmd"):
        raise AssertionError("trace-cmd is not installed (make deps)")
    rc, err, got = export(make_dump(), "dat")
    check(rc == 0, err)
    with tempfile.NamedTemporaryFile(suffix=".dat") as f:
        f.write(got["dat"])
        f.flush()
        p = subprocess.run(["trace-cmd", "report", "-t", f.name], capture_output=True, text=True)
        r = subprocess.run(["trace-cmd", "report", "-R", f.name], capture_output=True, text=True)
    out = p.stdout
    check(p.returncode == 0, p.stderr)
    want = [
        "worker-5     [000]     0.000001000: funcgraph_entry:                   |  vfs_open() {",
        "worker-5     [000]     0.000001100: funcgraph_entry:        0.500 us   |    path_get();",
        "worker-5     [000]     0.000003500: funcgraph_exit:         2.500 us   |  }",
        "demo-6     [001]     0.000040000: function:             worker_main",
        "demo-6     [001]     0.268475456: function:             vfs_open",
        "CPU:0 [4 EVENTS DROPPED]",
    ]
    for w in want:
        check(w in out, "missing %r in:\n%s" % (w, out))
    check(out.count("vfs_open() {") == 6 and out.count("path_get();") == 6, out)
    check("calltime=44c rettime=640" in r.stdout, r.stdout[:2000])


def test_json():
    rc, err, got = export(make_dump(), "json")
    check(rc == 0, err)
    j = json.loads(got["json"])
    errs = nesting_errors(j)
    check(not errs, errs)
    bs = [e for e in j["traceEvents"] if e["ph"] == "B"]
    es = [e for e in j["traceEvents"] if e["ph"] == "E"]
    check(len(bs) == 12 and len(es) == 12, (len(bs), len(es)))
    check(bs[0]["name"] == "vfs_open" and bs[0]["args"] == {"flags": "3", "name": "0x4000"}, bs[0])
    check(bs[0]["ts"] == 1.0 and bs[0]["pid"] == 0 and bs[0]["tid"] == 5, bs[0])
    check(any(e["name"] == "path_get" and e["args"] == {"retval": "-22"} for e in es), es)
    check(sum(1 for e in j["traceEvents"] if e["ph"] == "i") == 3, "2 functions + 1 lost")


def test_tsc2nsec():
    check(tracedat.tsc2nsec(16 << 32) == (16, 0, True), tracedat.tsc2nsec(16 << 32))
    m, s, exact = tracedat.tsc2nsec((10 ** 9 << 32) // 2100000000)
    check(exact is False or (m < 2 ** 31), (m, s))
    m, s, exact = tracedat.tsc2nsec(1 << 32)
    check(exact and (12345 * m) >> s == 12345, (m, s))


def test_fsig_text():
    """btlib/fsig.py prints what trace/btf/fsig.c prints (the cases of
    tests/host/test_btf.c): untyped return values by Linux's rule, bool in
    hex, raw aggregates with their kind, "..." where the words run out."""
    F = fsig
    for raw, hex_only, want in [(-22, False, "ret=-22"), (0xfffffffe, False, "ret=-2"),
                                (0xfffff001, False, "ret=-4095"), (0xfffff000, False, "ret=0xfffff000"),
                                (-4096, False, "ret=0xfffffffffffff000"),
                                (0x1fffffffe, False, "ret=0x1fffffffe"),
                                (0xfffffffe, True, "ret=0xfffffffe"), (0, False, "ret=0x0")]:
        got = F.format_ret(None, raw & (2 ** 64 - 1), hex_only)
        check(got == want, "format_ret(None, %#x): %s, want %s" % (raw, got, want))
    kinds = frames.Signature(1, [("b", F.BOOL, 1), ("c", F.INT, 1), ("us", F.UINT, 2)], (F.BOOL, 1))
    check(F.format_args(kinds, [1, 0xff, 0xffff]) == "b=0x1, c=-1, us=0xffff",
          F.format_args(kinds, [1, 0xff, 0xffff]))
    check(F.format_args(kinds, [0x100]) == "b=0x0, ...", F.format_args(kinds, [0x100]))
    agg = frames.Signature(2, [("p", F.STRUCT, 16), ("b", F.STRUCT, 32), ("d", F.FLOAT, 8),
                               ("after", F.INT, 4), ("u", F.UNION, 4), ("x", F.FLOAT, 4)], (F.INT, 8))
    # The 32-byte b by the ABI (test_btf.c's case): AAPCS64 by reference,
    # its words after the registers; SysV on the stack, `after` in a register.
    want = ("p=(STRUCT)[0x11:0x22], b=(STRUCT)[0x33:0x34:0x35:0x36], d=(float), after=7, "
            "u=(UNION)[0x44], x=(float)")
    a = [0x11, 0x22, 0x1000, 7, 0x44, 0, 0, 0, 0x33, 0x34, 0x35, 0x36]
    check(F.format_args(agg, a) == want, F.format_args(agg, a))
    check(F.format_args(agg, a[:8]) == "p=(STRUCT)[0x11:0x22], ...", F.format_args(agg, a[:8]))
    check(F.format_args(agg, a[:1]) == "...", F.format_args(agg, a[:1]))
    x = [0x11, 0x22, 7, 0x44, 0, 0, 0x33, 0x34, 0x35, 0x36]
    check(F.format_args(agg, x, abi=F.SYSV) == want, F.format_args(agg, x, abi=F.SYSV))
    check(F.format_args(agg, x[:6], abi=F.SYSV) == "p=(STRUCT)[0x11:0x22], ...",
          F.format_args(agg, x[:6], abi=F.SYSV))
    # Past the registers, and a 16-byte struct with one register left.
    many = frames.Signature(4, [(c, F.INT, 4) for c in "abcdefghij"] + [("k", F.PTR, 8)],
                            (F.INT, 8))
    m = list(range(1, 11)) + [0x1234]
    for abi, n in ((F.AAPCS64, 8), (F.SYSV, 6)):
        got = F.format_args(many, m, abi=abi)
        check(got == "a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10, k=0x1234", got)
        got = F.format_args(many, m[:n], abi=abi)
        check(got.endswith(", ...") and got.count("=") == n, got)
    split = frames.Signature(5, [(c, F.INT, 4) for c in "abcde"] + [("p", F.STRUCT, 16),
                                                                    ("z", F.INT, 4)], (F.INT, 8))
    for abi, w in ((F.AAPCS64, [1, 2, 3, 4, 5, 0x11, 0x22, 7]), (F.SYSV, [1, 2, 3, 4, 5, 7, 0x11, 0x22])):
        got = F.format_args(split, w, abi=abi)
        check(got == "a=1, b=2, c=3, d=4, e=5, p=(STRUCT)[0x11:0x22], z=7", got)
    huge = frames.Signature(6, [("h", F.STRUCT, 96)], (F.VOID, 0))
    got = F.format_args(huge, list(range(6)) + [0x100 + i for i in range(8)], abi=F.SYSV)
    check(got == "h=(STRUCT)[0x100:0x101:0x102:0x103:0x104:0x105:0x106:0x107:...]", got)

    # char * with strings captured at the call (trace/btf/fsig.h's records:
    # word, len | STR_CUT, bytes): the strings of test_btf.c's case, the
    # same text; a word without a record prints its pointer.
    def rec(word, text, cut=False):
        return bytes([word, len(text) | (F.STR_CUT if cut else 0)]) + text
    strs = frames.Signature(3, [("a", F.INT, 4), ("s", F.STR, 8)], (F.VOID, 0))
    for r, want in [(rec(1, b"hello"), '"hello"'), (rec(1, b'a"b\\c\n\xff'), '"a\\x22b\\x5cc\\x0a\\xff"'),
                    (rec(1, b"0123456789abcdef0123456789abcde"), '"0123456789abcdef0123456789abcde"'),
                    (rec(1, b"0123456789abcdef0123456789abcdef", True),
                     '"0123456789abcdef0123456789abcdef"...'),
                    (rec(1, b""), '""'), (b"", "0x7000"), (rec(0, b"x"), "0x7000"),
                    (rec(1, b"abc")[:-1], "0x7000"),             # cut short: no record
                    (rec(0, b"zz") + rec(1, b"ok"), '"ok"')]:
        got = F.format_args(strs, [1, 0x7000], r)
        check(got == "a=1, s=" + want, "format_args(char *, %r): %s" % (r, got))
    check(F.format_args(strs, [1, 0x1000]) == "a=1, s=0x1000", "no strings: the pointer")


def test_captured_dumps():
    """Dumps captured from the guests: the host's text equals the guest's
    `cat trace` printed just before `dump` in the same log."""
    logs = sorted(glob.glob(os.path.join(HERE, "export", "*.log")))
    check(logs, "no captured logs in tests/host/export")
    for log in logs:
        with open(log, errors="replace") as f:
            raw = f.read().replace("\r", "")
        want = raw.split("trace> cat trace\n", 1)[1].split("trace> dump", 1)[0]
        d, _, _ = frames.read_log(raw.splitlines())
        check(d and d.complete, "%s: %s" % (log, d.problems.lines() if d else "no dump"))
        got = text.render(d)
        if got != want:
            import difflib
            raise AssertionError("%s:\n%s" % (log, "".join(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), "guest", "host"))[:3000]))
        j = chrome.build(d)
        errs = nesting_errors(j)
        check(not errs, errs[:5])
        buf = io.BytesIO()
        tracedat.write(d, buf)


TESTS = [test_good_dump, test_dropped_frame, test_corrupted_crc, test_truncated_last_frame,
         test_garbage_interleaved, test_two_dumps, test_dump_choice, test_impossible_event,
         test_nothing_usable, test_text,
         test_text_function_tracer, test_trace_stack_marks, test_trace_cmd_report, test_json, test_tsc2nsec,
         test_fsig_text, test_captured_dumps]


def main():
    return taplib.run(TESTS, "export")


if __name__ == "__main__":
    sys.exit(main())
