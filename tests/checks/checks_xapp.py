"""checks_xapp.py — an APP traced by both backends (INSTR=xray; issue 20):
the same call trees, arguments and return values, and the trace stack's
marks carried through tools/bt-export.

Called by checks_xray.xray_group:
    checks_xapp.app_checks(arch, report, save_log)

APP = tests/apps/cjson (the cJSON library and its driver), built twice with
clang — the default backend (CC=clang, return hooks) and INSTR=xray (the
trace stack) — so that the backend is the only difference (GCC and clang
inline differently).  Each boots once with function_graph, funcgraph-args
and -retval and strings, set_graph_function=app_main, then `cat trace` and
`dump` from the shell.  Checks, each one report(ok, name, detail):
  build       both kernels build
  graph       the two `cat trace` texts, CPUs, durations and addresses (0x and five
              or more hex digits: heap and text differ between the images)
              masked, kernel functions' calls left out (the APP's are those
              its objects define; a call left childless reads as a leaf),
              arguments clang never passes (UNPASSED) not compared, are
              equal line by line, the trace stack's marked exits
              set aside as checks_xgraph.marks_aside does (a call that
              tail-called an untraced function ends late, without a value);
              the marked lines are exactly APP_MARKS' for the arch
              (cJSON_free's tail call of newlib's free, twice)
  export      bt-export on the INSTR=xray boot's log: --text is the guest's
              `cat trace` byte for byte (marks included); in --dat, read by
              `trace-cmd report -R`, exactly the marked calls' funcgraph_exit
              events have bit 31 (late) or 30 (gone) of overrun set; in
              --json, exactly they have "late"/"gone" in their E's args, and
              every B has its E, nested
  gdb         the INSTR=xray APP booted once more under QEMU's gdbstub
              (tests/gdb/xray_app.gdb; port 1257 / 1258, BT_GDB_PORT_BASE
              + 6 / + 7 if set): gdb's own `bt` at parse_string's first call
              lists exactly BT_WANT up to app_main (the real frames: no
              return hook to unwind through); `bt` in the timer interrupt
              ends, through the exception entry (IRQ_TRAP) into the
              interrupted code; after the APP, the extension's
              bt-trace equals the guest's `cat trace` byte for byte, its
              marks included, and bt-json's B and E nest
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import ROOT, run, mask_durations  # noqa: E402
import checks_xgraph  # noqa: E402
import export_checks  # noqa: E402
import gdb_checks  # noqa: E402

APP = "tests/apps/cjson"
CMDLINE = ("ftrace=function_graph ftrace_graph_filter=app_main trace_buf_size=4m "
           "trace_options=funcgraph-args,funcgraph-retval,nofuncgraph-irqs,funcgraph-args-string")
SCRIPT = b"cat trace\ndump\n"
# The marked exits (what follows the `|`), per arch, in order: cJSON_free
# ends in a jump to newlib's free (not traced), so its end is not seen; it
# is popped late by the next call at its level.
APP_MARKS = {a: ["    } /* cJSON_free (late) */", "    } /* cJSON_free (late) */"]
             for a in ("arm64", "x86_64")}
# Parameters clang propagated as constants into static functions, which
# then never read their register: what the trace shows there is whatever
# the register held, different in each image; not compared.
UNPASSED = {"add_item_to_object": ("hooks", "constant_key"), "print": ("hooks",)}
ADDR = re.compile(r"0x[0-9a-f]{5,}")
LATE, GONE = 1 << 31, 1 << 30


def build(arch, backend):
    """(kernel path or "", output) of the APP built with clang for backend
    ("CC=clang": the default's return hooks; "INSTR=xray")."""
    args = ["ARCH=" + arch, backend, "APP=" + APP]
    rc, out, _ = run(["nice", "make", "-s", "kernel"] + args, 1200)
    rc2, path, _ = run(["make", "-s", "--no-print-directory", "print-kernel"] + args, 60)
    return ((path.strip().splitlines() or [""])[-1] if rc == 0 and rc2 == 0 else ""), out


def boot(arch, elf):
    with tempfile.TemporaryFile() as f:
        f.write(SCRIPT)
        f.seek(0)
        rc, out, _ = run(["tools/qemu-run.sh", arch, elf, CMDLINE], 330,
                         env={"SMP": "2", "TIMEOUT": "300"}, stdin=f)
    return rc, out


def app_functions(elf):
    """The names of the functions the APP's objects define (next to elf)."""
    objs = glob.glob(os.path.join(ROOT, os.path.dirname(elf), "app", "**", "*.o"), recursive=True)
    rc, out, _ = run(["llvm-nm", "--defined-only"] + objs, 120)
    return {m.group(1) for m in re.finditer(r"^[0-9a-f]+ [tTW] (\S+)$", out, re.M)}


BODY = re.compile(r"^.*?\|(\s+)(?:\} /\* (\S+)|([^\s(]+)\(.*\)( \{|;))")


def unpassed(line, name):
    for arg in UNPASSED.get(name, ()):
        line = re.sub(r"\b(%s=)[^,)]+" % arg, r"\1?", line)
    return line


def app_lines(text, funcs):
    """The graph lines of the APP's functions, durations and addresses
    masked, UNPASSED's values too: a kernel function's call (a preemption's
    sched_preempt_irq at the end of a timer interrupt, whenever the timer
    fires) is left out with everything under it, and a call left with no
    child becomes a leaf, as the printer writes one."""
    keep, skip = [], None
    text = re.sub(r"^ *\d+\) ", " C) ", mask_durations(text), flags=re.M)   # any CPU
    for line in ADDR.sub("ADDR", text).splitlines():
        m = BODY.match(line)
        if not m:
            continue
        indent, closed, name, kind = m.groups()
        if skip is not None:
            if closed and indent == skip:
                skip = None
            continue
        if name and name not in funcs:
            skip = indent if kind == " {" else None
            continue
        o = checks_xgraph.OPEN.match(keep[-1]) if keep and closed else None
        c = checks_xgraph.CLOSE.match(line) if o else None
        if c and o.group(2) == c.group(2) and o.group(3) == c.group(3):
            ret = re.search(r" ret=(\S+) \*/$", line)
            keep[-1] = "%s%s%s%s;%s" % (c.group(1), o.group(2), o.group(3), o.group(4),
                                       " /* ret=%s */" % ret.group(1) if ret else "")
            continue
        keep.append(unpassed(line, name))
    return "\n".join(keep)


def marked_lines(text):
    return [l.split("|", 1)[1] for l in text.splitlines() if checks_xgraph.MARKED.match(l)]


def graph(arch, dtext, xtext, funcs, report):
    d, x = app_lines(dtext, funcs), app_lines(xtext, funcs)
    dn, xn, marks = checks_xgraph.marks_aside(d, x)
    got = marked_lines(xtext)
    ok = dn == xn and got == APP_MARKS[arch] and len(dn) > 500
    diff = "".join(checks_xgraph.difflib.unified_diff([l + "\n" for l in dn], [l + "\n" for l in xn],
                                                      "default", "xray"))
    report(ok, "%s APP=%s: the call trees, arguments and return values under INSTR=xray equal the "
           "default backend's (both clang; %d lines, durations and addresses masked), %d marked "
           "exit(s) set aside, exactly %s" % (arch, APP, len(dn), marks,
                                              ", ".join(m.strip() for m in APP_MARKS[arch]) or "none"),
           ("marked exits %r, expected %r\n" % (got, APP_MARKS[arch]) if got != APP_MARKS[arch]
            else "") + diff)


def exported(arch, out, guest, report):
    """bt-export of the INSTR=xray boot's dump, marks and all."""
    want = [(m.group(1), m.group(2)) for m in
            re.finditer(r"\} /\* (\S+) \((late|gone)\) \*/$", guest, re.M)]
    with tempfile.TemporaryDirectory() as tmp:
        erc, err, paths = export_checks.export(out, tmp, "text", "dat", "json")
        try:
            with open(paths["text"]) as f:
                host = f.read()
            p = subprocess.run(["trace-cmd", "report", "-R", paths["dat"]], capture_output=True,
                               text=True)
            dat = [(m.group(1), "late" if int(m.group(2)) & LATE else "gone")
                   for m in re.finditer(r"funcgraph_exit: +func=(\S+) .* overrun=(\d+) ", p.stdout)
                   if int(m.group(2)) & (LATE | GONE)]
            with open(paths["json"]) as f:
                j = json.load(f)
        except (OSError, ValueError) as e:
            report(False, "%s APP=%s INSTR=xray: bt-export writes text, trace.dat and JSON" % (arch, APP),
                   "%s\n%s" % (err, e))
            return
    js = [(e["name"], k) for e in j["traceEvents"] if e.get("ph") == "E"
          for k in ("late", "gone") if e.get("args", {}).get(k) is True]
    nest = export_checks.nesting_errors(j)
    ok = erc == 0 and host == guest and p.returncode == 0 and dat == want and js == want and \
        not nest and len(want) == len(APP_MARKS[arch])
    report(ok, "%s APP=%s INSTR=xray: bt-export's text is the guest's cat trace, and its trace.dat "
           "(overrun bits 31/30) and JSON (E args) mark exactly the %d marked exit(s)"
           % (arch, APP, len(want)),
           "%s\nwant %s\ntrace.dat %s\njson %s\n%s%s" % (err, want, dat, js, "\n".join(nest[:5]),
                                                       export_checks._diff(guest, host)))


# gdb's port for the gdb case (BT_GDB_PORT_BASE + 6 / + 7 if set).
PORT = {a: gdb_checks.gdb_port(a, d, 6) for a, d in (("arm64", 1257), ("x86_64", 1258))}
# gdb's `bt` from parse_string's first call, up to app_main: the frames the
# code has (no return hook in between; parse_object is inlined in
# parse_value; cJSON_Parse has no frame: it tail-calls
# cJSON_ParseWithLengthOpts, which the graph shows under it), per arch.
BT_WANT = {"x86_64": ["parse_string", "parse_object", "parse_value", "cJSON_ParseWithLengthOpts",
                      "app_main"],
           "arm64": ["parse_string", "parse_object", "parse_value", "cJSON_ParseWithLengthOpts",
                     "app_main"]}

# gdb's `bt` in the timer interrupt: the C handler the entry calls, then
# the entry's frame (`<signal handler called>`: its CFI says it is a trap
# frame), then the interrupted code, never the entry stub again.
IRQ_ENTRY = {"arm64": "arm64_irq_handler", "x86_64": "x86_trap"}
IRQ_TRAP = "<signal"
IRQ_STUBS = {"arm64_vectors", "trap_common", IRQ_TRAP}


def gdb_case(arch, elf, report, logs):
    """The INSTR=xray APP under gdb (tests/gdb/xray_app.gdb): `bt` in a
    traced call, and bt-trace after the APP, equal to the guest's own."""
    d = os.path.join(logs, "gdb-%s-xray-app" % arch)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    serial = os.path.join(d, "serial.log")
    rc, out, _ = run(["tools/qemu-run.sh", arch, elf, CMDLINE], 300,
                     env={"GDB": "1", "GDB_PORT": PORT[arch], "GDB_BATCH": "tests/gdb/xray_app.gdb",
                          "SERIAL_LOG": serial, "SMP": "2", "BT_GDB_OUT": d})
    with open(os.path.join(d, "gdb.log"), "w") as f:
        f.write(out)
    bt = gdb_checks._between(out, "==== bt\n", "==== end") or ""
    names = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\w+) \(", bt, re.M)
    upto = names[:names.index("app_main") + 1] if "app_main" in names else names
    ok = upto == BT_WANT[arch] and "return_to_handler" not in bt
    report(ok, "%s APP=%s INSTR=xray: gdb's bt in a traced call goes through the real callers "
           "(%s)" % (arch, APP, " <- ".join(upto)), out)
    irq = gdb_checks._between(out, "==== irq bt\n", "==== irq end") or ""
    frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\S+)", irq, re.M)
    at = frames.index(IRQ_ENTRY[arch]) + 1 if IRQ_ENTRY[arch] in frames else len(frames)
    ok = frames[:1] == ["timer_interrupt"] and len(frames) < 40 and \
        frames[at:at + 1] == [IRQ_TRAP] and at + 1 < len(frames) and frames[at + 1] not in IRQ_STUBS
    report(ok, "%s APP=%s INSTR=xray: gdb's bt in the timer interrupt ends, through the exception "
           "entry into the interrupted code (%s)" % (arch, APP, " <- ".join(frames[:at + 2])), irq or out)
    text = gdb_checks._read(os.path.join(d, "bt-trace.txt"))
    guest = gdb_checks._read(serial).replace("\r", "")
    i = guest.find("# tracer: ")
    guest = guest[i:] if i >= 0 else ""
    nev = sum(1 for l in text.splitlines() if "|" in l)
    try:
        with open(os.path.join(d, "bt.json")) as f:
            nest = export_checks.nesting_errors(json.load(f))
    except (OSError, ValueError) as e:
        nest = ["bt-json: %s" % e]
    ok = bool(text) and text == guest and marked_lines(text) == APP_MARKS[arch] and not nest
    report(ok, "%s APP=%s INSTR=xray: gdb's bt-trace is the guest's `cat trace` exactly (%d lines, "
           "its marks included), bt-json's B and E nest" % (arch, APP, nev),
           "\n".join(nest[:5]) + "\n" + out)


def app_checks(arch, report, save_log):
    delf, dout = build(arch, "CC=clang")
    xelf, xout = build(arch, "INSTR=xray")
    report(bool(delf and xelf), "%s APP=%s builds with clang for both backends" % (arch, APP),
           dout + xout)
    if not (delf and xelf):
        return
    rc1, dlog = boot(arch, delf)
    save_log(arch + "-default-app-graph", dlog)
    rc2, xlog = boot(arch, xelf)
    save_log(arch + "-xray-app-graph", xlog)
    dg, xg = export_checks.guest_cat_trace(dlog), export_checks.guest_cat_trace(xlog)
    if rc1 or rc2 or not dg or not xg or any("cjson: all checks passed" not in o for o in (dlog, xlog)):
        report(False, "%s APP=%s boots with function_graph under both backends, cat trace, dump"
               % (arch, APP), dlog + xlog)
        return
    graph(arch, dg, xg, app_functions(xelf), report)
    exported(arch, xlog, xg, report)
    gdb_case(arch, xelf, report, os.path.join(ROOT, "build", "test-logs"))
