#!/usr/bin/env python3
"""gdb_checks.py — checks of baretrace's gdb extension (tools/gdb/baretrace.py)
against the guest's own output, for tests/run.py (or standalone).

gdb_trace_checks(arch, run, report, kernel_path, LOGS) boots the kernel
nine times under QEMU's gdbstub (GDB=1 through tools/qemu-run.sh, SMP=2,
gdb in batch mode with tests/gdb/*.gdb) and once without gdb:

  workload  `ftrace=function_graph ftrace_filter=vfs_stat,path_walk,kind_name`,
            stopped at trace_print_all (after the demo, before the guest
            prints): bt-trace, bt-save-dat, bt-json, bt-enabled, bt-stats,
            then the guest goes on and prints `cat trace` on its serial log.
            - bt-trace's text equals the guest's `cat trace`, byte for byte;
            - trace-cmd report on the .dat shows the same calls per CPU, in
              order, with the same nesting (entry {, leaf ;, exit }) and as
              many events as the buffer holds;
            - bt-json parses, its B/E pairs nest per task and it has one
              event per buffer event;
            - bt-enabled equals the guest's `cat enabled_functions` for the
              same command line (a second boot, the shell fed through
              stdin: the trampoline pool gives the same address);
            - bt-stats: one row per CPU, recording on, nothing lost, no
              writer inside, the entries add up to the .dat's events.
  wrapped   the same with trace_buf_size=12k (4 pages per CPU: the writer
            overwrites the oldest pages) and trace_options=funcgraph-args,
            funcgraph-retval,funcgraph-args-string (signatures read from the
            guest; vfs_stat's char * path from its entry event, captured at
            the call): bt-trace equals `cat trace`, neither has a LOST line
            (losses before a read are not printed by `cat trace`), bt-stats
            counts overruns, and trace-cmd reads the .dat (the same events,
            "[N EVENTS DROPPED]" with each CPU's overrun count).
  strings   `bt.test=graph_golden`, stopped at its trace_print_all: bt-trace
            equals the golden text the guest prints, whose strings were
            overwritten in memory after the calls (gw_strings): they come
            from the events, not from guest memory.
  midrun    the workload command line, stopped at the 21st call of
            rb_reserve_slow (a writer inside a reservation on that CPU; the
            other vCPU wherever it was): bt-trace's events per CPU are the
            start of the guest's final `cat trace` (the unfinished writes
            left out, and bt-stats counting them as writers inside), and
            trace-cmd report on the .dat has the same events.
  crash     `bt.test=crash_panic ftrace=function ftrace_filter=test_*
            ftrace_dump_on_oops`, stopped in arch_poweroff after the panic
            report: bt-trace equals the trace the panic path printed,
            trace-cmd report on bt-save-dat's file lists the same function
            events (CPU, time, name) ending in test_crash_panic_panic, and
            bt-stats says recording is off (the panic path stopped it).
  crash-raw the same panic without ftrace_dump_on_oops (the buffer as the
            panic left it, never read by the guest): the .dat reads and
            lists test_run -> test_crash_panic_panic.
  hooked-bt `ftrace=function_graph ftrace_filter=vfs_stat,path_walk`,
            stopped in dir_lookup (tests/gdb/hooked_bt.gdb): gdb's `bt`
            goes through each hooked return (return_to_handler) to the
            real caller, down to the thread's start.
  direct    `bt.test=direct_gdb` (tests/guest/test_direct.c), stopped in
            direct_gdb_stop with a direct trampoline and a callback ops on
            dt_gdb, the direct trampoline alone on dt_gdb_alone and a
            SAVE_REGS ops on its own trampoline on dt_gdb_regs:
            bt-enabled equals the enabled_functions the guest printed just
            before, and is exactly those three states' lines.
  states    `bt.test=gdb_states` (tests/guest/fixtures/gdb_states.c), stopped in
            gdb_states_stop with every kind of site state at once: an ops
            alone on its trampoline, plain and SAVE_REGS; list and regs list
            sites; a direct trampoline alone and with an ops; with the
            trampoline pool full, a plain and a SAVE_REGS ops (CALL_OPS on
            arm64, list sites on x86-64): bt-enabled equals the guest's
            enabled_functions, and each line is exactly its state's
            (STATES_WANT).

`run(cmd, timeout, env=None, stdin=...)` and `report(ok, name, detail)` are
tests/run.py's; kernel_path(arch) names the ELF.  gdb uses ports 1251
(arm64) / 1252 (x86_64) (BT_GDB_PORT_BASE + 2 / + 3 if set: gdb_port());
files go to LOGS/gdb-ARCH-CASE/.

Standalone (own build dir, nothing else touched):
  tests/checks/gdb_checks.py [--arch arm64|x86_64]... [--build-dir build/gdb-{arch}]
"""
import json
import os
import re
import subprocess
import sys
import checklib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gdb_port(arch, default, offset):
    """The gdbstub port of a check: default, or with BT_GDB_PORT_BASE set
    (test runs of two work trees at once) that base + offset, + 1 for x86_64."""
    base = os.environ.get("BT_GDB_PORT_BASE")
    return str(int(base) + offset + (arch == "x86_64")) if base else str(default)


PORT = {a: gdb_port(a, d, 2) for a, d in (("arm64", 1251), ("x86_64", 1252))}
SMP = 2
WORKLOAD = "ftrace=function_graph ftrace_filter=vfs_stat,path_walk,kind_name"
CRASH = "bt.test=crash_panic ftrace=function ftrace_filter=test_*"
STATS_RE = re.compile(r"^ +(\d+)  (on|off) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+)"
                      r" +(\d+)  (yes|no)$", re.M)
FN_TEXT_RE = re.compile(r"^ *\S+-\d+ +\[(\d{3})\] \S{5} +(\d+\.\d{6}): (\S+) <-\S+$", re.M)
FN_REPORT_RE = re.compile(r"^ *\S+-\d+ +\[(\d{3})\] +(\d+\.\d{6}): function: +(\S+)$", re.M)


def _read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return b"" if "b" in mode else ""


def _gdb_boot(arch, run, kernel, cmdline, batch, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        os.unlink(os.path.join(out_dir, f))
    serial = os.path.join(out_dir, "serial.log")
    rc, out, _ = run(["tools/qemu-run.sh", arch, kernel, cmdline], 240,
                     env={"GDB": "1", "GDB_PORT": PORT[arch], "GDB_BATCH": batch,
                          "SERIAL_LOG": serial, "SMP": str(SMP), "BT_GDB_OUT": out_dir})
    with open(os.path.join(out_dir, "gdb.log"), "w") as f:
        f.write(out)
    return rc, out, _read(serial).replace("\r", "")


def _between(out, start, end):
    i = out.find(start)
    j = out.find(end, i + 1) if i >= 0 else -1
    return out[i + len(start):j].strip("\n") if i >= 0 and j >= 0 else None


def _stats(out):
    """[(cpu, recording, entries, overrun, dropped, ..., inside, reader)]."""
    block = _between(out, "==== bt-stats\n", "==== end") or ""
    return [m.groups() for m in STATS_RE.finditer(block)]


def _report(path):
    try:
        p = subprocess.run(["trace-cmd", "report", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, str(e)


def _graph_calls_text(text):
    """{cpu: ["vfs_stat() {", "  path_walk();", "}", ...]} of a function_graph
    text with the CPU column (default options)."""
    per = {}
    for line in text.splitlines():
        m = re.match(r"^ (\d+)\) .*\|  (.*\S)\s*$", line)
        if m and not m.group(2).lstrip().startswith(("==========>", "<==========")):
            per.setdefault(int(m.group(1)), []).append(_norm(m.group(2)))
    return per


def _graph_calls_report(rep):
    per, n = {}, 0
    for line in rep.splitlines():
        m = re.match(r"^ *\S+-\d+ +\[(\d{3})\] +\d+\.\d{6}: funcgraph_(entry|exit): .*\|  (.*\S)\s*$",
                     line)
        if m:
            per.setdefault(int(m.group(1)), []).append(_norm(m.group(3)))
    return per


def _expand(per):
    """Leaves ("f();") as entry and exit: trace-cmd 3.1.6 collapses a leaf
    only when no other CPU's event falls between its entry and exit (it
    peeks at the next event of all CPUs, the guest at the next of the same
    CPU), so the two agree on events and nesting, not on which are leaves."""
    out = {}
    for cpu, calls in per.items():
        seq = out.setdefault(cpu, [])
        for c in calls:
            m = re.match(r"^( *)(\S+\(\));$", c)
            if m:
                seq += [m.group(1) + m.group(2) + " {", m.group(1) + "}"]
            else:
                seq.append(c)
    return out


def _summary(per):
    """What trace-cmd and the guest agree on whatever their leaf look-ahead:
    the calls entered on each CPU in order (with their depth), and how many
    returned.  A task migrated between a call and its return returns on
    another CPU: the guest prints that "}" there, trace-cmd (peeking at all
    CPUs) may fold it into a leaf on the first, so returns are only counted."""
    entries, exits = {}, 0
    for cpu, seq in per.items():
        for c in seq:
            if c.endswith("{"):
                entries.setdefault(cpu, []).append(c)
            else:
                exits += 1
    return entries, exits


def _norm(call):
    """The call's shape only: "f(a=1) {" -> "f() {", "f(); /* ret=0 */" ->
    "f();", "} /* f ret=0 */" -> "}" (trace-cmd prints no arguments or return
    values; a closing brace also names its function when the entry is not
    in the buffer).  The nesting is what both must agree on."""
    call = re.sub(r"^( *)([^ (]+)\(.*\)( \{|;)(?: /\*.*\*/)?$", r"\1\2()\3", call)
    return re.sub(r"^( *)\} /\* .* \*/$", r"\1}", call)


def _same_fn(a, b):
    """(cpu, time, name) of a text line and a report line: the same event.
    The time may differ by one in the last digit: trace.dat's TSC2NSEC
    factor is a 32-bit rounding of the guest's when no exact one exists
    (x86-64's TSC rate), see btlib/tracedat.py."""
    return a[0] == b[0] and a[2] == b[2] and abs(float(a[1]) - float(b[1])) <= 1.5e-6


def _report_lines(rep):
    return len(re.findall(r"^ *\S+-\d+ +\[\d{3}\] +\d+\.\d{6}: \w+:", rep, re.M))


def _json_ok(path, nevents):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        return False, "bt-json: %s" % e
    evs = [e for e in d.get("traceEvents", []) if e.get("ph") != "M"]
    stacks, bad = {}, 0
    for e in evs:
        key = (e.get("pid"), e.get("tid"))
        if e.get("ph") == "B":
            stacks.setdefault(key, []).append(e.get("name"))
        elif e.get("ph") == "E":
            st = stacks.get(key)
            if st and (e.get("name") in (None, st[-1])):
                st.pop()
            elif st is not None and not st:
                bad += 1
    count = sum(2 if e.get("ph") == "X" else 1 for e in evs)
    ok = not bad and count == nevents
    return ok, "bt-json: %d events for %d in the buffer, %d unmatched ends" % (count, nevents, bad)


def _enabled_reference(arch, run, kernel):
    """The guest's own `cat enabled_functions` for the workload command line."""
    script = os.path.join(ROOT, "tests", "gdb", "enabled.txt")
    with open(script, "rb") as f:
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel, WORKLOAD], 150,
                         env={"SMP": str(SMP), "TIMEOUT": "120"}, stdin=f)
    return _between(out.replace("\r", ""), "trace> cat enabled_functions\n", "trace> "), out


def workload_case(arch, run, report, kernel, logs):
    d = os.path.join(logs, "gdb-%s-trace" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, WORKLOAD, "tests/gdb/trace.gdb", d)
    bt = _read(os.path.join(d, "bt-trace.txt"))
    i = serial.find("# tracer: ")
    guest = serial[i:] if i >= 0 else ""
    ok = bool(bt) and bt == guest and guest.startswith("# tracer: function_graph\n")
    nlines = bt.count("\n")
    why = "" if ok else "gdb output:\n%s\nfirst difference at line %s" % (
        out, next((n for n, (a, b) in enumerate(zip(bt.splitlines(), guest.splitlines()), 1)
                   if a != b), min(nlines, guest.count("\n")) + 1))
    report(ok, "%s gdb bt-trace: the guest's `cat trace` exactly (%d lines)" % (arch, nlines), why)

    m = re.search(r"^bt-save-dat: (\d+) events, (\d+) pages, (\d+) CPUs", out, re.M)
    nev = int(m.group(1)) if m else -1
    rrc, rep = _report(os.path.join(d, "bt.dat"))
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write(rep)
    tcalls, rcalls = _expand(_graph_calls_text(bt)), _expand(_graph_calls_report(rep))
    ncalls = sum(len(v) for v in tcalls.values())
    ok = rrc == 0 and m and ncalls > 0 and _summary(tcalls) == _summary(rcalls) and ncalls == nev
    report(bool(ok), "%s gdb bt-save-dat: trace-cmd report has the same %d entries and exits "
           "per CPU, nested alike, %d events" % (arch, ncalls, nev),
           "trace-cmd rc %d, %d report lines\n%s" % (rrc, _report_lines(rep), rep[-3000:]))

    ok, why = _json_ok(os.path.join(d, "bt.json"), nev)
    report(ok, "%s gdb bt-json: parses, B/E nest per task, one event per buffer event" % arch,
           why + "\n" + out)

    mine = _between(out, "==== bt-enabled\n", "==== bt-stats")
    ref, ref_out = _enabled_reference(arch, run, kernel)
    ok = mine is not None and ref is not None and mine == ref and len(mine.splitlines()) == 3
    report(ok, "%s gdb bt-enabled: the guest's enabled_functions exactly" % arch,
           "bt-enabled:\n%s\nguest:\n%s\n%s" % (mine, ref, ref_out[-2000:]))

    rows = _stats(out)
    entries = sum(int(r[2]) for r in rows)
    ok = len(rows) == SMP and all(r[1] == "on" and r[3] == "0" and r[4] == "0" and
                                  r[10] == "0" and int(r[9]) <= int(r[8]) for r in rows) \
        and entries == nev and nev > 0
    report(ok, "%s gdb bt-stats: %d CPUs recording, %d entries = the .dat's, none lost"
           % (arch, len(rows), entries), out)


def _drops_match(rep, lost):
    """trace-cmd's drop marks are the text's LOST marks: the same CPUs, and
    the same count wherever the page held it (the count goes after a page's
    data only when 8 bytes are left there; with variable-length entry
    events, strings captured at the call, a page may end closer than that,
    and trace-cmd then prints "[EVENTS DROPPED]" alone, as for Linux)."""
    marks = re.findall(r"^CPU:(\d+) \[(\d*) ?EVENTS DROPPED\]$", rep, re.M)
    want = dict(lost)
    return len(marks) == len(lost) and sorted(c for c, _ in marks) == sorted(want) and \
        all(n in ("", want[c]) for c, n in marks)


def wrapped_case(arch, run, report, kernel, logs):
    d = os.path.join(logs, "gdb-%s-wrapped" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, WORKLOAD + " trace_buf_size=12k "
                                "trace_options=funcgraph-args,funcgraph-retval,"
                                "funcgraph-args-string",
                                "tests/gdb/trace.gdb", d)
    bt = _read(os.path.join(d, "bt-trace.txt"))
    i = serial.find("# tracer: ")
    rows = _stats(out)
    lost = [(r[0], r[3]) for r in rows if r[3] != "0"]       # (CPU, overrun)
    ok = bool(bt) and i >= 0 and bt == serial[i:] and len(rows) == SMP and \
        re.search(r'\bvfs_stat\(path="[^"]+"\)', bt) and "[LOST" not in bt and lost
    rrc, rep = _report(os.path.join(d, "bt.dat"))
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write(rep)
    ok = ok and rrc == 0 and _summary(_expand(_graph_calls_report(rep))) == \
        _summary(_expand(_graph_calls_text(bt))) \
        and _drops_match(rep, lost)
    report(bool(ok), "%s gdb on a wrapped buffer (trace_buf_size=12k), args (char * from "
           "the entry events) and retvals: "
           "bt-trace equals `cat trace`, no LOST line, trace-cmd reads the .dat with"
           " bt-stats' overruns as dropped" % arch,
           "%s\nreport:\n%s" % (out, rep[-2000:]))


def strings_case(arch, run, report, kernel, logs):
    """bt.test=graph_golden (tests/guest/test_graph.c): gw_strings' buffer was
    overwritten after the call and its frame reused by the time the guest
    prints; bt-trace must equal the guest's text, "version" included: the
    strings come from the entry events, not from guest memory."""
    d = os.path.join(logs, "gdb-%s-strings" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, "bt.test=graph_golden", "tests/gdb/trace.gdb", d)
    bt = _read(os.path.join(d, "bt-trace.txt"))
    guest = _between(serial, "--- graph golden begin ---\n", "--- graph golden end ---")
    ok = bool(bt) and guest is not None and bt.rstrip("\n") == guest and \
        'gw_name(name="version");' in bt and \
        'gw_names(a="0123456789abcdef0123456789abcdef"..., b=0x0, c=0xdead0000, d="");' in bt
    report(ok, "%s gdb bt-trace with strings captured at the call (buffer overwritten since): "
           "the guest's text exactly" % arch, "%s\nbt-trace:\n%s\nguest:\n%s" % (out, bt, guest))


def midrun_case(arch, run, report, kernel, logs):
    d = os.path.join(logs, "gdb-%s-midrun" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, WORKLOAD, "tests/gdb/midrun.gdb", d)
    bt = _read(os.path.join(d, "bt-trace.txt"))
    i = serial.find("# tracer: ")
    final = _expand(_graph_calls_text(serial[i:] if i >= 0 else ""))
    mine = _expand(_graph_calls_text(bt))
    rows = _stats(out)
    inside = sum(int(r[10]) for r in rows)
    prefix = bool(mine) and all(final.get(c, [])[:len(v)] == v for c, v in mine.items())
    n = sum(len(v) for v in mine.values())
    ok = prefix and inside > 0 and len(rows) == SMP and \
        "stopped with" in out and all(r[1] == "on" for r in rows)
    report(ok, "%s gdb stopped mid-write (in rb_reserve_slow): bt-trace's %d events begin, "
           "CPU by CPU, the guest's final trace, %d unfinished writes left out" % (arch, n, inside),
           out)
    rrc, rep = _report(os.path.join(d, "bt.dat"))
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write(rep)
    m = re.search(r"^bt-save-dat: (\d+) events", out, re.M)
    ok = rrc == 0 and m and _summary(_expand(_graph_calls_report(rep))) == _summary(mine) and \
        int(m.group(1)) == n == sum(int(r[2]) for r in rows)
    report(bool(ok), "%s gdb stopped mid-write: trace-cmd reads bt-save-dat's file, the same "
           "%d events as bt-trace and bt-stats" % (arch, n), "%s\nreport:\n%s" % (out, rep[-3000:]))


def crash_case(arch, run, report, kernel, logs, dump_on_oops):
    tag = "crash" if dump_on_oops else "crash-raw"
    d = os.path.join(logs, "gdb-%s-%s" % (arch, tag))
    cmdline = CRASH + (" ftrace_dump_on_oops" if dump_on_oops else "")
    rc, out, serial = _gdb_boot(arch, run, kernel, cmdline, "tests/gdb/crash.gdb", d)
    panicked = "PANIC on CPU" in serial and re.search(r"^#0 .*arch_poweroff", out, re.M)
    bt = _read(os.path.join(d, "bt-trace.txt"))
    rrc, rep = _report(os.path.join(d, "bt.dat"))
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write(rep)
    text_fn = [m.groups() for m in FN_TEXT_RE.finditer(bt)]
    rep_fn = [m.groups() for m in FN_REPORT_RE.finditer(rep)]
    names = [n for _, _, n in rep_fn]
    same_fn = len(text_fn) == len(rep_fn) and all(_same_fn(a, b) for a, b in zip(text_fn, rep_fn))
    chain = names[-2:] == ["test_run", "test_crash_panic_panic"]
    rows = _stats(out)
    if dump_on_oops:
        m = re.search(r"Dumping ftrace buffer:\n-+\n(.*?)^-+\n", serial, re.M | re.S)
        guest = m.group(1) if m else None
        ok = panicked and bt and bt == guest
        report(bool(ok), "%s gdb on a panicked guest: bt-trace equals the panic's trace dump"
               % arch, "%s\nserial:\n%s" % (out, serial[-3000:]))
        ok = rrc == 0 and chain and same_fn and \
            len(rows) == SMP and all(r[1] == "off" for r in rows)
        report(bool(ok), "%s gdb on a panicked guest: trace-cmd reads bt-save-dat's file, same "
               "%d function events, recording off" % (arch, len(rep_fn)),
               "%s\nreport:\n%s" % (out, rep[-3000:]))
    else:
        ok = panicked and rrc == 0 and chain and same_fn and len(rows) == SMP
        report(bool(ok), "%s gdb on a panicked guest (no dump on oops): trace-cmd reads "
               "bt-save-dat's file, %d function events ending in the panicking test"
               % (arch, len(rep_fn)), "%s\nreport:\n%s" % (out, rep[-3000:]))


def hooked_bt_case(arch, run, report, kernel, logs):
    """gdb's `bt` inside functions whose returns function_graph hooked: the
    hook (return_to_handler) is followed by the real caller, down to the
    thread's start, as the kernel's own backtraces resolve it."""
    d = os.path.join(logs, "gdb-%s-hooked-bt" % arch)
    rc, out, _ = _gdb_boot(arch, run, kernel, "ftrace=function_graph ftrace_filter=vfs_stat,path_walk",
                           "tests/gdb/hooked_bt.gdb", d)
    bt = _between(out, "==== bt\n", "==== end") or ""
    names = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\w+) \(", bt, re.M)
    # dir_lookup <- walk_component <- path_walk <- [hook] <- ... <- vfs_stat
    # <- [hook] <- its caller (a worker, or the timer's demo_tick)
    want = ["dir_lookup", "walk_component", "path_walk", "return_to_handler"]
    ok = names[:4] == want and "vfs_stat" in names[4:] and \
        names[names.index("vfs_stat", 4) + 1:names.index("vfs_stat", 4) + 3][:1] == \
        ["return_to_handler"] and \
        names[names.index("vfs_stat", 4) + 2] in ("worker_main", "demo_tick") and \
        "corrupt stack" not in bt.split("vfs_stat", 1)[-1][:200]
    report(bool(ok), "%s gdb bt through hooked returns: the real callers after the hook (%s)" %
           (arch, " <- ".join(names[:7])), out)


# The lines of the direct case, by function: a direct trampoline with a
# callback ops (the regs list caller calls its list function, then the
# trampoline), and alone; a SAVE_REGS ops' own trampoline.  %pS-style symbols, with or without offset/size.
_SYM = r"(?:\+0x0/0x[0-9a-f]+)?"
DIRECT_WANT = {
    "dt_gdb": r"dt_gdb \(2\)     D      ->ftrace_ops_list_regs_func%s\n"
              r"\tdirect-->arch_test_direct_tramp%s" % (_SYM, _SYM),
    "dt_gdb_alone": r"dt_gdb_alone \(1\)     D     \n\tdirect-->arch_test_direct_tramp%s" % _SYM,
    # A SAVE_REGS ops on its own trampoline, which calls its entry (the
    # assist function; the ops' call is the plain list function).
    "dt_gdb_regs": r"dt_gdb_regs \(1\) R         \ttramp: 0x[0-9a-f]+ \(dcount_cb%s\) "
                   r"->ftrace_ops_assist_func%s" % (_SYM, _SYM),
}


def _entries(text):
    """enabled_functions text -> {name: its line and the tab-indented ones after it}."""
    out, name = {}, None
    for line in text.split("\n"):
        if line.startswith("\t") and name:
            out[name] += "\n" + line
        elif line:
            name = line.split(" ", 1)[0]
            out[name] = line
    return out


def direct_case(arch, run, report, kernel, logs):
    """bt-enabled with a direct trampoline and a callback ops on one
    function (suite direct_gdb stops in direct_gdb_stop): the guest's own
    enabled_functions, printed just before, line for line, and the exact
    lines of that state."""
    d = os.path.join(logs, "gdb-%s-direct" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, "bt.test=direct_gdb", "tests/gdb/direct.gdb", d)
    mine = _between(out, "==== bt-enabled\n", "==== end")
    guest = _between(serial, "==== enabled_functions\n", "==== end")
    got = _entries(mine or "")
    exact = sorted(got) == sorted(DIRECT_WANT) and \
        all(re.fullmatch(DIRECT_WANT[n], got[n]) for n in DIRECT_WANT)
    passed = re.search(r"^ok \d+ direct_gdb$", serial, re.M) is not None
    ok = mine is not None and mine == guest and exact and passed
    report(ok, "%s gdb bt-enabled, a direct trampoline with and without a callback ops: the "
           "guest's enabled_functions exactly (%d functions)" % (arch, len(got)),
           "bt-enabled:\n%s\nguest:\n%s\ntest passed: %s\n%s" % (mine, guest, passed, out[-2000:]))


# The lines of the states case (tests/guest/fixtures/gdb_states.c), by function
# and arch: an ops' own trampoline names the ops' entry (ftrace_ops_entry:
# the assist wrapper, which a SAVE_REGS ops has as regs_call), a list site
# its list function, a CALL_OPS site (arm64, the pool full) the ops' call or,
# with R, regs_call, and "\tops: OPS (callback)" (an ops has no symbol: hex).
_HEX = r"0x[0-9a-f]+"
_TRAMP = r"\ttramp: %s \(dcount_cb%s\) ->ftrace_ops_assist_func%s" % (_HEX, _SYM, _SYM)
_OPS = r"\tops: %s \(dcount_cb%s\)" % (_HEX, _SYM)
_STATES = {
    "gs_tramp": r"gs_tramp \(1\)           " + _TRAMP,
    "gs_tramp_regs": r"gs_tramp_regs \(1\) R         " + _TRAMP,
    "gs_list": r"gs_list \(2\)            ->ftrace_ops_list_func" + _SYM,
    "gs_list_regs": r"gs_list_regs \(2\) R          ->ftrace_ops_list_regs_func" + _SYM,
    "gs_direct": r"gs_direct \(1\)     D     \n\tdirect-->arch_test_direct_tramp" + _SYM,
    "gs_direct_ops": r"gs_direct_ops \(2\)     D      ->ftrace_ops_list_regs_func%s\n"
                     r"\tdirect-->arch_test_direct_tramp%s" % (_SYM, _SYM),
    "gs_fill": r"gs_fill \([1-9]\d*\)            ->ftrace_ops_list_func" + _SYM,
}
STATES_WANT = {
    "arm64": dict(_STATES, **{
        "gs_pool": r"gs_pool \(1\)       O    ->ftrace_ops_assist_func" + _SYM + _OPS,
        "gs_pool_regs": r"gs_pool_regs \(1\) R     O    ->ftrace_ops_assist_func" + _SYM + _OPS,
    }),
    "x86_64": dict(_STATES, **{
        "gs_pool": r"gs_pool \(1\)            ->ftrace_ops_list_func" + _SYM,
        "gs_pool_regs": r"gs_pool_regs \(1\) R          ->ftrace_ops_list_regs_func" + _SYM,
    }),
}


def states_case(arch, run, report, kernel, logs):
    """bt-enabled with every kind of site state at once (suite gdb_states
    stops in gdb_states_stop): the guest's own enabled_functions, printed
    just before, line for line, and each function's line the exact one of
    its state on this arch."""
    d = os.path.join(logs, "gdb-%s-states" % arch)
    rc, out, serial = _gdb_boot(arch, run, kernel, "bt.test=gdb_states", "tests/gdb/gdb_states.gdb",
                                d)
    mine = _between(out, "==== bt-enabled\n", "==== end")
    guest = _between(serial, "==== enabled_functions\n", "==== end")
    want = STATES_WANT[arch]
    got = _entries(mine or "")
    wrong = [n for n in sorted(set(want) | set(got))
             if n not in want or n not in got or not re.fullmatch(want[n], got[n])]
    passed = re.search(r"^ok \d+ gdb_states$", serial, re.M) is not None
    ok = mine is not None and mine == guest and not wrong and passed
    report(ok, "%s gdb bt-enabled, every site state at once (own trampoline, R, list, regs "
           "list, direct, direct + ops, pool full): the guest's enabled_functions exactly "
           "(%d functions)" % (arch, len(got)),
           "%s\nbt-enabled:\n%s\nguest:\n%s\ntest passed: %s, lines not as wanted: %s"
           % (out[-2000:], mine, guest, passed, wrong))


def gdb_trace_checks(arch, run, report, kernel_path, LOGS):
    kernel = kernel_path(arch)
    hooked_bt_case(arch, run, report, kernel, LOGS)
    direct_case(arch, run, report, kernel, LOGS)
    states_case(arch, run, report, kernel, LOGS)
    workload_case(arch, run, report, kernel, LOGS)
    wrapped_case(arch, run, report, kernel, LOGS)
    strings_case(arch, run, report, kernel, LOGS)
    midrun_case(arch, run, report, kernel, LOGS)
    crash_case(arch, run, report, kernel, LOGS, True)
    crash_case(arch, run, report, kernel, LOGS, False)


# ---- standalone ---------------------------------------------------------------------
def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", action="append")
    ap.add_argument("--build-dir", default="build/gdb-{arch}")
    a = ap.parse_args()
    results = []
    report = checklib.reporter(results)

    logs = os.path.join(ROOT, "build", "gdb-checks")
    for arch in a.arch or ["arm64", "x86_64"]:
        b = a.build_dir.format(arch=arch)
        p = subprocess.run(["make", "-s", "ARCH=" + arch, "B=" + b, "kernel"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            report(False, "%s kernel builds in %s" % (arch, b), p.stdout.decode())
            continue
        gdb_trace_checks(arch, checklib.run, report, lambda _a, b=b: os.path.join(b, "kernel.elf"), logs)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
