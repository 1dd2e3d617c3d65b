#!/usr/bin/env python3
"""export_checks.py — the dump/export round trip on a booted guest (issue 6,
"Dumps" and "Tests").

For tests/run.py:
    import export_checks
    export_checks.export_round_trip(arch, kernel_path(arch), report, save_log)

Standalone (own build dirs, one QEMU at a time):
    tests/checks/export_checks.py --arch arm64 --kernel build/dump-arm64/kernel.elf
    tests/checks/export_checks.py ... --capture tests/host/export   (the host test's
        fixtures: the round trip's serial logs, dump and `cat trace` in each)

Checks, each reported as one report(ok, name, detail):
  round trip   a traced workload (function_graph on vfs_*/path_* with args,
               strings and return values), then the piped script `cat trace` +
               `dump`: bt-export exits 0; its --text is the guest's `cat
               trace` byte for byte; `trace-cmd report` on its --dat lists
               the same calls in the same order (name; entry, leaf or exit)
               with the same durations, and `trace-cmd report -t -R` gives
               every event the guest's time in ns; the --json parses and
               every B has its E on the same pid/tid, nested
  function     the same with the function tracer: text identical, trace-cmd
               shows the same number of function events; the 4k buffer
               overflows, so the header counts losses (entries-written >
               entries-in-buffer) and neither text has a LOST line
  marker       the guest writes `@BT1 0badf00d 9999999999` to trace_marker,
               then `cat trace` and `dump`: bt-export reports both lines
               that show it (the shell's echo, the trace's) by line number,
               writes the dump (its text the guest's) and exits 2
  crash        bt.test=crash_panic with ftrace_dump_on_oops: the trace is
               printed after the panic message and backtrace, before the end
               of the panic, and ends inside test_crash_panic_panic; with
               ftrace_dump_on_oops=binary on a fatal write (crash_write) the
               dump decodes completely and ends inside crash_write_text
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import checklib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORT = os.path.join(ROOT, "tools", "bt-export")
GRAPH_CMDLINE = ("ftrace=function_graph ftrace_filter=vfs_*,path_* "
                 "trace_options=funcgraph-args,funcgraph-retval,funcgraph-args-string "
                 "trace_buf_size=8k")
FUNCTION_CMDLINE = "ftrace=function ftrace_filter=vfs_*,path_* trace_buf_size=4k"
SCRIPT = b"cat trace\ndump\n"


def qemu(arch, kernel, cmdline, script=None, timeout=150, smp=4):
    """(status, serial text with \\r removed) of one boot."""
    env = dict(os.environ, SMP=str(smp), TIMEOUT=str(timeout))
    cmd = [os.path.join(ROOT, "tools", "qemu-run.sh"), arch, kernel, cmdline]
    with tempfile.TemporaryFile() as f:
        if script is not None:
            f.write(script)
            f.seek(0)
        try:
            p = subprocess.run(cmd, cwd=ROOT, env=env, stdin=f if script is not None else
                               subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout + 30)
            return p.returncode, p.stdout.decode("utf-8", "replace").replace("\r", "")
        except subprocess.TimeoutExpired as e:
            return 124, (e.stdout or b"").decode("utf-8", "replace").replace("\r", "")


def export(log_text, tmp, *outs):
    """bt-export on a log: (status, stderr, {kind: path})."""
    log = os.path.join(tmp, "serial.log")
    with open(log, "w") as f:
        f.write(log_text)
    paths = {o: os.path.join(tmp, "out." + o) for o in outs}
    args = [EXPORT, log] + [a for o in outs for a in ("--" + o, paths[o])]
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stderr, paths


def guest_cat_trace(out):
    m = re.search(r"^trace> cat trace\n(.*?)^trace> dump", out, re.S | re.M)
    return m.group(1) if m else None


GUEST_GRAPH = re.compile(r"^ *(\d+)\) [ +!#*@$] *(?:([0-9.]+) us +)?\|  ( *)(\w+)\(.*?\)(;| \{)|"
                         r"^ *(\d+)\) [ +!#*@$] *([0-9.]+) us +\|  ( *)\}")
TC_GRAPH = re.compile(r"\[(\d+)\] +[0-9.]+: funcgraph_(?:entry|exit): +(?:[ +!#*@$] *([0-9.]+) us +)?"
                      r"\|  ( *)(?:(\w+)\(\)(;| \{)|\})")


def guest_calls(text):
    """[(cpu, kind, name, duration)] of the guest's graph text."""
    out = []
    for line in text.splitlines():
        m = GUEST_GRAPH.match(line)
        if not m:
            continue
        if m.group(4):
            kind = "leaf" if m.group(5) == ";" else "entry"
            out.append((int(m.group(1)), kind, m.group(4), m.group(2)))
        else:
            out.append((int(m.group(6)), "exit", None, m.group(7)))
    return out


def tc_calls(report_text):
    out = []
    for line in report_text.splitlines():
        m = TC_GRAPH.search(line)
        if not m:
            continue
        if m.group(4):
            out.append((int(m.group(1)), "leaf" if m.group(5) == ";" else "entry", m.group(4),
                        m.group(2)))
        else:
            out.append((int(m.group(1)), "exit", None, m.group(2)))
    return out


def call_summary(calls):
    """What both printers must agree on, whatever their leaf heuristics: the
    calls entered on each CPU, in order (leaf or "{" alike), and the
    durations of all returns.  Returns are compared as one multiset: a task
    migrated between a call and its return returns on another CPU, which the
    guest prints on that CPU ("}") and trace-cmd may fold into a leaf on the
    first (its look-ahead is global), and a leaf may be split at a page end."""
    entries, durations = {}, []
    for cpu, kind, name, dur in calls:
        if kind in ("entry", "leaf"):
            entries.setdefault(cpu, []).append(name)
        if kind in ("exit", "leaf"):
            durations.append(dur)
    return entries, sorted(durations)


def nesting_errors(j):
    stacks, errs = {}, []
    for e in j["traceEvents"]:
        k = (e.get("pid"), e.get("tid"))
        if e["ph"] == "B":
            stacks.setdefault(k, []).append(e)
        elif e["ph"] == "E":
            st = stacks.get(k)
            if not st:
                errs.append("E without B: %s" % e)
            elif st[-1]["name"] != e["name"] or e["ts"] < st[-1]["ts"]:
                errs.append("E %s closes B %s" % (e, st.pop()))
            else:
                st.pop()
    return errs + ["B never closed: %s" % b for st in stacks.values() for b in st]


def raw_times_ok(dat, log_text):
    """trace-cmd report -t -R: each CPU's event times in ns equal the
    guest's (cycles through its own factor, as the host decodes them)."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from btlib import events, frames
    d, _, _ = frames.read_log(log_text.splitlines())
    want = {c: [d.cycles_to_ns(e.ts) for e in evs] for c, evs in events.dump_events(d).items()}
    p = subprocess.run(["trace-cmd", "report", "-t", "-R", dat], capture_output=True, text=True)
    got = {}
    for m in re.finditer(r"\[(\d+)\] +(\d+)\.(\d{9}): ", p.stdout):
        got.setdefault(int(m.group(1)), []).append(int(m.group(2)) * 10 ** 9 + int(m.group(3)))
    got = {c: v for c, v in got.items() if v}
    want = {c: v for c, v in want.items() if v}
    return got == want, "trace-cmd times %s... guest %s..." % (
        {c: v[:3] for c, v in got.items()}, {c: v[:3] for c, v in want.items()})


def round_trip(arch, kernel, report, save_log, tracer):
    cmdline = GRAPH_CMDLINE if tracer == "function_graph" else FUNCTION_CMDLINE
    rc, out = qemu(arch, kernel, cmdline, SCRIPT)
    save_log("%s-export-%s" % (arch, tracer), out)
    name = "%s export round trip (%s)" % (arch, tracer)
    guest = guest_cat_trace(out)
    if rc != 0 or guest is None or "@BT1 " not in out:
        report(False, name + ": boot, cat trace, dump (exit %d)" % rc, out)
        return out
    with tempfile.TemporaryDirectory() as tmp:
        erc, err, paths = export(out, tmp, "text", "dat", "json")
        with open(paths["text"]) as f:
            host = f.read()
        report(erc == 0 and host == guest, name + ": bt-export --text equals the guest's cat trace",
               err + _diff(guest, host))
        p = subprocess.run(["trace-cmd", "report", paths["dat"]], capture_output=True, text=True)
        if tracer == "function_graph":
            want, got = guest_calls(guest), tc_calls(p.stdout)
            same = call_summary(want) == call_summary(got)
            report(p.returncode == 0 and same and len(want) > 10,
                   name + ": trace-cmd report lists the same %d calls and durations" % len(want),
                   p.stderr + _diff("\n".join(map(str, want)), "\n".join(map(str, got))))
        else:
            n_guest = len(re.findall(r"^ *\S+-\d+ +\[\d{3}\] .*: \w+ <-", guest, re.M))
            n_tc = p.stdout.count(" function: ")
            report(p.returncode == 0 and n_guest == n_tc and n_tc > 10,
                   name + ": trace-cmd report shows the %d function events" % n_guest, p.stderr)
            m = re.search(r"^# entries-in-buffer/entries-written: (\d+)/(\d+) ", guest, re.M)
            report(m is not None and int(m.group(2)) > int(m.group(1)) == n_guest and
                   "[LOST" not in guest + host,
                   name + ": losses counted in the header only (%s), no LOST line"
                   % ("/".join(m.groups()) if m else "no header"), guest[:1500])
        ok, detail = raw_times_ok(paths["dat"], out)
        report(ok, name + ": trace-cmd's times are the guest's (ns)", detail)
        try:
            with open(paths["json"]) as f:
                errs = nesting_errors(json.load(f))
        except (OSError, ValueError) as e:
            errs = [str(e)]
        report(not errs, name + ": Chrome JSON parses, B/E nested per pid/tid", "\n".join(errs[:20]))
    return out


def _diff(a, b):
    import difflib
    return "".join(list(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                             "guest", "host"))[:80])


def crash_checks(arch, kernel, report, save_log):
    rc, out = qemu(arch, kernel, "ftrace=function_graph trace_buf_size=8k ftrace_dump_on_oops "
                   "bt.test=crash_panic", timeout=120)
    save_log(arch + "-export-crash-text", out)
    m = re.search(r"PANIC on CPU \d+: deliberate panic.*?\nBacktrace:\n(?:  \[<.*\n)+"
                  r"Dumping ftrace buffer:\n-+\n# tracer: function_graph\n(.*?)\n-+\n"
                  r"---\[ end of panic \]---", out, re.S)
    ok = rc == 3 and m and re.search(r"^ 0\) +\| +test_crash_panic_panic\(\) \{$", m.group(1), re.M)
    report(bool(ok), "%s ftrace_dump_on_oops: the trace after the panic's backtrace (exit %d)"
           % (arch, rc), out)
    rc, out = qemu(arch, kernel, "ftrace=function_graph trace_buf_size=8k "
                   "ftrace_dump_on_oops=binary bt.test=crash_write", timeout=120)
    save_log(arch + "-export-crash-binary", out)
    with tempfile.TemporaryDirectory() as tmp:
        erc, err, paths = export(out, tmp, "text")
        host = open(paths["text"]).read() if os.path.exists(paths["text"]) else ""
    ok = rc == 3 and erc == 0 and re.search(r"^ 0\) +\| +crash_write_text\(\) \{$", host, re.M) \
        and out.index("FATAL EXCEPTION") < out.index("@BT1 ")
    report(bool(ok), "%s ftrace_dump_on_oops=binary: a complete dump after the fault report "
           "(exit %d, bt-export %d)" % (arch, rc, erc), err + out[-3000:])


MARKER_SCRIPT = b"echo @BT1 0badf00d 9999999999 > trace_marker\ncat trace\ndump\n"


def marker_frame(arch, kernel, report, save_log):
    """The guest prints a frame-shaped line itself (shared case
    export-huge-sequence, marker-frame.txt): the shell's echo of the
    command and `cat trace`'s marker line are reported by line as text of
    no dump, the dump after them is written whole, exit 2."""
    rc, out = qemu(arch, kernel, FUNCTION_CMDLINE, MARKER_SCRIPT)
    save_log("%s-export-marker-frame" % arch, out)
    guest = guest_cat_trace(out)
    lines = out.split("\n")
    at = [i + 1 for i, l in enumerate(lines) if "@BT1 0badf00d 9999999999" in l]
    with tempfile.TemporaryDirectory() as tmp:
        erc, err, paths = export(out, tmp, "text")
        host = open(paths["text"]).read() if os.path.exists(paths["text"]) else ""
    said = all("line %d: frame-shaped text of id 0badf00d: sequence number 9999999999 out of "
               "range" % n in err for n in at)
    ok = (rc == 0 and guest is not None and len(at) >= 2 and said and erc == 2 and
          host == guest and "tracing_mark_write: @BT1 0badf00d 9999999999" in host)
    report(ok, "%s export: frame-shaped text from trace_marker reported by line (%d lines), "
           "the dump written (exit %d, bt-export %d)" % (arch, len(at), rc, erc),
           err + _diff(guest or "", host))


def export_round_trip(arch, kernel, report, save_log=lambda name, text: None):
    """Everything above for one arch (test.py's report(ok, name, detail))."""
    round_trip(arch, kernel, report, save_log, "function_graph")
    round_trip(arch, kernel, report, save_log, "function")
    marker_frame(arch, kernel, report, save_log)
    crash_checks(arch, kernel, report, save_log)


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--capture", metavar="DIR", help="save the round trips' logs here")
    a = ap.parse_args()
    results = []
    report = checklib.reporter(results)

    def save_log(name, text):
        if a.capture and "export-function" in name:
            os.makedirs(a.capture, exist_ok=True)
            # From the script on: the boot and the workload's own print are
            # not needed.
            start = text.find("trace> cat trace\n")
            with open(os.path.join(a.capture, name.replace("export-", "") + ".log"), "w") as f:
                f.write(text[max(start, 0):])

    export_round_trip(a.arch, a.kernel, report, save_log)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
