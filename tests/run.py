#!/usr/bin/env python3
"""test.py — everything `make test` runs, graded, ending in "N passed, N failed".

Checks, each a line "ok - NAME" or "not ok - NAME" (with the evidence):
  host        tests/host: `make -C tests/host check` (TAP)
  ARCH build  the kernel builds (both link passes agree)
  ARCH guest  every in-guest KTAP case (bt.test=all), one check per case;
              a crash, hang or missing case fails and shows the serial log;
              then the slow ring-buffer tortures (bt.test_slow), both modes,
              and the ftrace suite with its slow case
  ARCH demo   `make qemu-ARCH </dev/null` runs the demo and exits 0
  ARCH app    APP=tests/apps/ok exits 0, APP=tests/apps/fail exits non-zero;
              APP=tests/apps/libc: the C library (tests/checks/checks_libc.py)
  ARCH crash  a fatal exception, a panic, a call into a freed trampoline and
              kernel stack overflows (tests/checks/checks_stack.py)
              print their report and exit 3
  ARCH ftrace the function tracer from the command line: exact events; the
              ftrace suite under single-threaded TCG; a corrupted site refused
  ARCH shell a scripted shell session (tests/shell/session.txt) through piped stdin,
              against its masked transcript tests/shell/session.golden
              (tests/checks/checks_shell.py);
              issue 21's resize and lost-line cases (tests/checks/checks_rbresize.py)
  ARCH gdb    QEMU's gdbstub + gdb-multiarch (make gdb-ARCH's path) in batch mode
  ARCH thirdparty  cJSON and Lua as APPs: function_graph equals uftrace's
              trace of the same driver built for the host
              (tests/checks/checks_thirdparty.py)
  ARCH clang  the kernel built by clang (CC=clang): builds, suites, golden graph,
              demo (tests/checks/checks_clang.py)
  ARCH input  what the guest is given means that or is refused; make's status
              (tests/checks/checks_guestword.py)
  ARCH xray   the XRay backend (INSTR=xray): builds, suites, sled refusal, demo
              (tests/checks/checks_xray.py)
  bench       tools/bench.py runs; every figure present, positive and finite

How it runs: both kernels build at once (and the thirdparty host traces
meanwhile); then host (and after it bench) and each arch are jobs of their
own at once (forked children: run_jobs), their lines printed in that
order, the first unfinished job's as they come, each arch's groups in
ARCH_GROUPS order; the guest groups (EXCLUSIVE) one arch at a time.
Before the last line, "# " lines give each group's wall seconds per arch
(not checks).

Options: --arch arm64|x86_64 (repeatable), --only GROUP (repeatable: host,
bench or a group of ARCH_GROUPS); serial logs stay in build/test-logs.
"""
import argparse
import contextlib
import fcntl
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "checks"))
from bench_figures import FIGURES as BENCH_FIGURES  # noqa: E402
import export_checks  # noqa: E402
import checks_libc  # noqa: E402
import checks_thirdparty  # noqa: E402
from gdb_checks import gdb_trace_checks, gdb_port  # noqa: E402
from checks_gdb_corrupt import gdb_corrupt_checks  # noqa: E402
import checks_rbresize  # noqa: E402
import checks_clang  # noqa: E402
import checks_xray  # noqa: E402
from checks_stack import stack_overflow  # noqa: E402
import checks_guestword  # noqa: E402
import checks_btfaddr  # noqa: E402
import checks_layers  # noqa: E402
from checklib import run, golden_compare, mask_durations  # noqa: E402
from checks_shell import shell_session  # noqa: E402
LOGS = os.path.join(ROOT, "build", "test-logs")
SMP = 4
results = []          # (ok, name)


def report(ok, name, detail=""):
    results.append((ok, name))
    print("%s - %s" % ("ok" if ok else "not ok", name), flush=True)
    if not ok and detail:
        for line in detail.rstrip().splitlines()[-60:]:
            print("    | " + line)


def save_log(name, text):
    os.makedirs(LOGS, exist_ok=True)
    with open(os.path.join(LOGS, name + ".log"), "w") as f:
        f.write(text)


def host_tests():
    if not os.path.exists(os.path.join(ROOT, "tests/host/Makefile")):
        return
    rc, out, _ = run(["make", "-s", "-C", "tests/host", "check"], 900)
    save_log("host", out)
    n = 0
    for m in re.finditer(r"^\s*(not ok|ok)\s+\d+\s*-?\s*(.*)$", out, re.M):
        n += 1
        report(m.group(1) == "ok", "host " + m.group(2).strip(), out if m.group(1) != "ok" else "")
    if rc != 0 or n == 0:
        report(False, "host tests exit status %d" % rc, out)
    checks_layers.layers(report)


def kernel(arch, app=None):
    cmd = ["make", "-s", "ARCH=" + arch, "kernel"] + (["APP=" + app] if app else [])
    rc, out, _ = run(cmd, 900)
    return rc == 0, out


def kernel_path(arch, app=None):
    cmd = ["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel"]
    rc, out, _ = run(cmd + (["APP=" + app] if app else []), 60)
    return out.strip().splitlines()[-1]


def boot(arch, cmdline, app=None, timeout=300, smp=SMP, env=None):
    """Boot the built kernel; the status is the guest's own (tools/qemu-run.sh)."""
    cmd = ["tools/qemu-run.sh", arch, kernel_path(arch, app), cmdline]
    e = {"SMP": str(smp), "TIMEOUT": str(timeout)}
    e.update(env or {})
    return run(cmd, timeout + 30, env=e)


def online_ok(out, smp=SMP):
    return ("baretrace: %d CPUs online" % smp) in out


def ktap_case_block(out, name):
    """The lines a KTAP case printed (its diagnostics come before its result
    line), down to its "not ok" line: what a failure report shows, rather
    than the tail of the whole boot, where later cases' output hides it.
    The whole output if the case is not found."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^    not ok \d+ %s\b" % re.escape(name), line):
            j = i
            while j > 0 and not re.match(r"^    ((not )?ok \d+ |# Subtest: )", lines[j - 1]):
                j -= 1
            return "\n".join(lines[j:i + 1])
    return out


def guest_tests(arch):
    rc, out, secs = boot(arch, "bt.test=all")
    save_log(arch + "-guest", out)
    cases = re.findall(r"^    (not ok|ok) \d+ (\S+)(.*)$", out, re.M)
    suites = re.findall(r"^# Subtest: (\S+)", out, re.M) or re.findall(r"^    # Subtest: (\S+)", out, re.M)
    plan = re.search(r"^KTAP version 1\n1\.\.(\d+)", out, re.M)
    # Attribute cases to suites in order of appearance.
    suite, per = None, []
    for line in out.splitlines():
        m = re.match(r"^    # Subtest: (\S+)", line)
        if m:
            suite = m.group(1)
        m = re.match(r"^    (not ok|ok) \d+ (\S+)(.*)$", line)
        if m:
            per.append((suite, m.group(1) == "ok", m.group(2), m.group(3)))
    for s, ok, name, rest in per:
        report(ok, "%s guest %s/%s%s" % (arch, s, name, rest),
               ktap_case_block(out, name) if not ok else "")
    done = re.findall(r"^(ok|not ok) \d+ \S+$", out, re.M)
    complete = plan and len(done) == int(plan.group(1)) and len(suites) == len(done)
    report(rc == 0 and complete and online_ok(out),
           "%s guest run complete (exit %d, %d cases, %.0fs)" % (arch, rc, len(per), secs), out)


def rb_torture(arch):
    """The in-guest ring-buffer tortures (slow cases, a few seconds each):
    every CPU writes while its timer, raised to 10 kHz, writes nested events
    and one CPU consumes; both modes.  Exact invariants are checked inside."""
    rc, out, secs = boot(arch, "bt.test=ring_buffer bt.test_slow", timeout=180)
    save_log(arch + "-rb-torture", out)
    for mode in ("torture_overwrite", "torture_producer_consumer"):
        m = re.search(r"^    (not ok|ok) \d+ %s$" % mode, out, re.M)
        report(rc == 0 and m is not None and m.group(1) == "ok",
               "%s guest ring_buffer/%s on %d CPUs (%.0fs)" % (arch, mode, SMP, secs),
               ktap_case_block(out, mode) if not (m and m.group(1) == "ok") else "")


def ftrace_slow(arch):
    """The whole ftrace suite with its slow case (live switching under fire
    for bt.live_rounds, 180 by default: under a minute per arch with 4 vCPUs
    under TCG; 1000 rounds take about five)."""
    rc, out, secs = boot(arch, "bt.test=ftrace bt.test_slow", timeout=300)
    save_log(arch + "-ftrace-slow", out)
    cases = re.findall(r"^    (not ok|ok) \d+ (\S+)(.*)$", out, re.M)
    bad = [c[1] for c in cases if c[0] != "ok" or "SKIP" in c[2]]
    many = re.search(r"^    ok \d+ live_switching_many_rounds$", out, re.M)
    report(rc == 0 and cases and not bad and many is not None,
           "%s guest ftrace with bt.test_slow: %d cases, live switching for 180 rounds (%.0fs)%s"
           % (arch, len(cases), secs, "" if not bad else "; failed: " + ", ".join(bad)),
           out if bad or not many or rc else "")


def demo(arch):
    # Through make, as a user runs it: make's status is non-zero iff the guest's is.
    rc, out, secs = run(["make", "-s", "--no-print-directory", "qemu-" + arch], 150,
                        env={"SMP": str(SMP), "TIMEOUT": "120"})
    save_log(arch + "-demo", out)
    m = re.search(r"demo: .* (\d+) bytes found \(expected (\d+)\)", out)
    ok = rc == 0 and online_ok(out) and m and m.group(1) == m.group(2) and \
        "baretrace: demo returned 0" in out
    report(bool(ok), "%s demo runs and powers off with status 0 (%.0fs)" % (arch, secs), out)


def apps(arch):
    for app, want_ok, text in (("tests/apps/ok", True, "app: sum of squares 34850"),
                               ("tests/apps/fail", False, "app: failing on purpose"),
                               ("tests/apps/printf_oom", True, "app: printf after out of memory: ok")):
        built, out = kernel(arch, app)
        if not built:
            report(False, "%s APP=%s builds" % (arch, app), out)
            continue
        rc, out, _ = boot(arch, "", app=app, timeout=120)
        save_log("%s-app-%s" % (arch, os.path.basename(app)), out)
        ok = (rc == 0) == want_ok and rc not in (99, 124) and text in out
        report(ok, "%s APP=%s exits %s (got %d)" % (arch, app, "0" if want_ok else "non-zero", rc), out)


def crash(arch):
    # QEMU failing by itself (here: no such kernel) is a failure, never the
    # guest's status 0.
    rc, out, _ = run(["tools/qemu-run.sh", arch, os.path.join(LOGS, "no-such-kernel.elf"), ""],
                     60, env={"SMP": "1", "TIMEOUT": "30"})
    report(rc not in (0, 124), "%s QEMU that cannot start: qemu-run fails (got %d)" % (arch, rc), out)
    rc, out, _ = boot(arch, "bt.test=crash_write", timeout=120)
    save_log(arch + "-crash-write", out)
    ok = rc == 3 and re.search(r"FATAL EXCEPTION on CPU \d+: .*\(write\) at crash_write_text\+", out) \
        and "Backtrace:" in out and re.search(r"\] test_crash_write_write_to_text\+0x", out) \
        and "---[ end of panic ]---" in out
    report(bool(ok), "%s fatal write to text: report, symbolized backtrace, exit 3 (got %d)" % (arch, rc), out)
    rc, out, _ = boot(arch, "bt.test=crash_panic", timeout=120)
    save_log(arch + "-crash-panic", out)
    ok = rc == 3 and "PANIC on CPU 0: deliberate panic, value 42" in out and \
        re.search(r"\] test_crash_panic_panic\+0x", out)
    report(bool(ok), "%s panic: message, backtrace, exit 3 (got %d)" % (arch, rc), out)
    # A freed trampoline's slot is trap fill after its grace period: a late
    # call into it is a fatal exception that names the trap, at the slot.
    rc, out, _ = boot(arch, "bt.test=crash_tramp", timeout=120)
    save_log(arch + "-crash-tramp", out)
    m = re.search(r"^crash_tramp: calling the freed trampoline at 0x([0-9a-f]+)$", out, re.M)
    ok = rc == 3 and m and re.search(
        r"^FATAL EXCEPTION on CPU \d+: trampoline trap fill executed \(freed or unused pool "
        r"slot\) \(undefined instruction\) at __tramp_pool_start\+0x[0-9a-f]+/0x[0-9a-f]+\n"
        r"  pc 0*%s " % m.group(1), out, re.M) and "Backtrace:" in out and \
        re.search(r"\] test_run\+0x", out) and "---[ end of panic ]---" in out
    report(bool(ok), "%s call into a freed trampoline: the trap fill fires, named, at the slot, "
           "exit 3 (got %d)" % (arch, rc), out)
    stack_overflow(arch, boot, report, save_log)


LINE_RE = re.compile(r"^ {0,15}\S+-(\d+) +\[(\d{3})\] [d.][N.][h.][.0-9a-f]\. +\d+\.\d{6}: (\S+) <-(\S+)$")


def ftrace_boot(arch):
    """ftrace=function from the command line: the exact events of the demo."""
    rc, out, _ = boot(arch, "ftrace=function ftrace_filter=vfs_stat,path_walk "
                            "ftrace_notrace=path_walk", timeout=120)
    save_log(arch + "-ftrace-boot", out)
    lines = [LINE_RE.match(l) for l in out.splitlines()]
    calls = {}
    for m in filter(None, lines):
        calls[(m.group(3), m.group(4))] = calls.get((m.group(3), m.group(4)), 0) + 1
    irq = re.search(r"(\d+) lookups from the timer interrupt", out)
    hdr = re.search(r"^# tracer: function\n#\n# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:4$",
                    out, re.M)
    want = {("vfs_stat", "worker_main"): 4 * 50 * 8}
    if irq and int(irq.group(1)):
        want[("vfs_stat", "demo_tick")] = int(irq.group(1))
    total = sum(want.values())
    ok = rc == 0 and calls == want and hdr and int(hdr.group(1)) == total == int(hdr.group(2))
    report(bool(ok), "%s ftrace=function ftrace_filter=vfs_stat,path_walk ftrace_notrace=path_walk: "
           "exactly the demo's calls (%s)" % (arch, calls), out)
    # Live patching again with all vCPUs on one host thread (docs/TOOLCHAIN-NOTES.md:
    # cross-modifying code must hold under both TCG modes).
    rc, out, secs = boot(arch, "bt.test=ftrace", timeout=300, env={"TCG_THREAD": "single"})
    save_log(arch + "-ftrace-single", out)
    ok = rc == 0 and re.search(r"^    ok \d+ live_switching_under_fire$", out, re.M)
    report(bool(ok), "%s ftrace suite under single-threaded TCG (%.0fs)" % (arch, secs), out)
    rc, out, _ = boot(arch, "bt.test=ftrace_refuse", timeout=120)
    save_log(arch + "-ftrace-refuse", out)
    ok = rc == 0 and re.search(r"^ftrace: tracing disabled: site of ft_refuse_target at [0-9a-f]+ "
                               r"holds unexpected bytes \(EILSEQ\)$", out, re.M)
    report(bool(ok), "%s a corrupted site is refused, named, and tracing disabled" % arch, out)
    # The same for a site's data word (arm64's literal), judged by the
    # update's shortcut and by its general path (another ops attached);
    # x86-64 has no data word and says so with a KTAP SKIP.
    for suite in ("ftrace_refuse_data", "ftrace_refuse_data_shared"):
        rc, out, _ = boot(arch, "bt.test=" + suite, timeout=120)
        save_log(arch + "-" + suite.replace("_", "-"), out)
        if arch == "arm64":
            ok = rc == 0 and re.search(r"^ftrace: tracing disabled: site of dt_lit at [0-9a-f]+ "
                                       r"holds an unexpected data word \(EILSEQ\)$", out, re.M) \
                and re.search(r"^    ok 1 corrupt_data_word_is_refused$", out, re.M)
        else:
            ok = rc == 0 and re.search(r"^    ok 1 corrupt_data_word_is_refused # SKIP no "
                                       r"per-site data word on this arch$", out, re.M)
        report(bool(ok), "%s %s: a corrupted data word is refused, named, tracing disabled "
               "(or no data word)" % (arch, suite), out)
    rc, out, _ = boot(arch, "ftrace=nosuch ftrace_filter=[oops", timeout=120)
    save_log(arch + "-ftrace-bad", out)
    ok = rc == 0 and "bad boot option 'ftrace=nosuch', ignored" in out and \
        "ftrace_filter: invalid pattern '[oops': unterminated '[' in pattern, ignored\n" \
        "baretrace: bad boot option 'ftrace_filter=[oops', ignored\n" in out and \
        "# tracer:" not in out and "baretrace: demo returned 0" in out
    report(ok, "%s bad ftrace= option reported and ignored, a bad glob with its reason" % arch, out)
    # Each pattern on its own (Linux's rule): the bad ones are reported,
    # with the reason, and skipped; vfs_stat alone is traced.
    rc, out, _ = boot(arch, "ftrace=function ftrace_filter=vfs_stat,nosuchfn,[oops "
                            "ftrace_notrace=nosuch2,[x", timeout=120)
    save_log(arch + "-ftrace-bad-token", out)
    calls = {}
    for m in filter(None, (LINE_RE.match(l) for l in out.splitlines())):
        calls[m.group(3)] = calls.get(m.group(3), 0) + 1
    irq = re.search(r"(\d+) lookups from the timer interrupt", out)
    msgs = ["ftrace_filter: invalid pattern '[oops': unterminated '[' in pattern, ignored",
            "ftrace_notrace: invalid pattern '[x': unterminated '[' in pattern, ignored",
            "ftrace_filter: no function matches 'nosuchfn', ignored",
            "ftrace_notrace: no function matches 'nosuch2', ignored"]
    missing = [m for m in msgs if not re.search("^" + re.escape(m) + "$", out, re.M)]
    ok = rc == 0 and irq and not missing and "bad boot option" not in out and \
        calls == {"vfs_stat": 1600 + int(irq.group(1))}
    report(bool(ok), "%s ftrace_filter=vfs_stat,nosuchfn,[oops: each pattern on its own, the bad "
           "ones reported (%s)%s" % (arch, calls, "" if not missing else "; missing: %s" % missing),
           out)


def graph_golden(arch):
    """The graph of a known workload (args, return values, strings, a tail
    call, recursion) is exactly tests/golden/graph.txt, durations masked —
    one file for both arches."""
    rc, out, _ = boot(arch, "bt.test=graph_golden", timeout=120, smp=2)
    save_log(arch + "-graph-golden", out)
    same, diff = golden_diff(out)
    report(rc == 0 and same, "%s function_graph golden (args, retval, tail call)" % arch,
           diff or out)


def golden_diff(out):
    """(equal, unified diff): the graph between the golden markers of a
    bt.test=graph_golden log, durations masked, against tests/golden/graph.txt."""
    m = re.search(r"--- graph golden begin ---\n(.*)--- graph golden end ---", out, re.S)
    with open(os.path.join(ROOT, "tests/golden/graph.txt")) as f:
        return golden_compare(f.read(), mask_durations(m.group(1)) if m else "")


def btf_module(arch):
    """BTF as a module through -initrd: loads and passes the btf suite; a
    truncated one is refused at boot and the graph tracer goes on with raw
    words and its notice; the shell drops and reloads signatures."""
    btf = os.path.join(os.path.dirname(kernel_path(arch)), "kernel.btf")
    rc, out, _ = boot(arch, "btf=initrd bt.test=btf", timeout=120, smp=2, env={"INITRD": btf})
    save_log(arch + "-btf-initrd", out)
    ok = rc == 0 and re.search(r"^btf: initrd: \d+ types, \d+ functions with signatures", out, re.M) \
        and re.search(r"^    ok \d+ initrd_module$", out, re.M)
    report(bool(ok), "%s BTF loaded as a module (-initrd), btf suite passes" % arch, out)
    cut = os.path.join(LOGS, arch + "-truncated.btf")
    with open(btf, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:1000])
    script = os.path.join(LOGS, arch + "-btf-script.txt")

    def graph_with_module(blob, commands, log):
        """The graph tracer on kind_name with args and retval, BTF from the
        module `blob`, then the shell runs `commands`."""
        with open(script, "w") as f:
            f.write(commands)
        with open(script, "rb") as f:
            rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch),
                              "btf=initrd ftrace=function_graph ftrace_filter=kind_name "
                              "trace_options=funcgraph-args,funcgraph-retval"], 150,
                             env={"SMP": "2", "TIMEOUT": "120", "INITRD": blob}, stdin=f)
        save_log(arch + log, out)
        return rc, out

    rc, out = graph_with_module(cut, "cat btf\necho embedded > btf\ncat btf\necho unload > btf\n"
                                "cat btf\necho nosuch > btf\n", "-btf-truncated")
    blocks = {}
    for part in out.split("trace> ")[1:]:
        cmd, _, answer = part.partition("\n")
        blocks.setdefault(cmd, []).append(answer.rstrip("\n"))
    status = blocks.get("cat btf", [])
    ok = re.search(r"^btf: initrd: rejected: type section \[\d+, \d+\) runs past the end of "
                   r"the blob \(1000 bytes\)$", out, re.M) and \
        "# no BTF loaded: arguments and return values are raw words" in out and \
        re.search(r"^ \d\) [ +!#*@$] +[0-9.]+ us +\|  kind_name\(0x[0-9a-f]+(, 0x[0-9a-f]+){%d}\); "
                  r"/\* ret=0x[0-9a-f]+ \*/$" % ({"arm64": 7, "x86_64": 5}[arch]), out, re.M) and \
        len(status) == 3 and status[0] == "none" and status[1].startswith("embedded: ") and \
        status[2] == "none" and \
        blocks.get("echo nosuch > btf") == \
        ["echo: write error: Invalid argument (btf takes embedded, initrd or unload)"]
    report(bool(ok) and rc == 1, "%s truncated BTF module refused, raw words, shell reload/unload" % arch,
           out)
    # A well-formed blob that is not this image's (one byte of its last name
    # changed: it parses, and matching functions by name would take it): the
    # image's recorded size and CRC-32 reject it, the tracer prints raw words.
    with open(btf, "rb") as f:
        good = f.read()
    other = bytearray(good)
    other[-2] ^= 1
    renamed = os.path.join(LOGS, arch + "-renamed.btf")
    with open(renamed, "wb") as g:
        g.write(other)
    rc, out = graph_with_module(renamed, "cat btf\n", "-btf-renamed")
    want = ("btf: initrd: rejected: not this image's BTF (%d bytes, CRC-32 0x%08x; the image's: "
            "%d bytes, CRC-32 0x%08x)" % (len(other), zlib.crc32(bytes(other)), len(good),
                                           zlib.crc32(good)))
    ok = want in out.splitlines() and \
        "# no BTF loaded: arguments and return values are raw words" in out and \
        re.search(r"^ \d\) [ +!#*@$] +[0-9.]+ us +\|  kind_name\(0x[0-9a-f]+(, 0x[0-9a-f]+){%d}\); "
                  r"/\* ret=0x[0-9a-f]+ \*/$" % ({"arm64": 7, "x86_64": 5}[arch]), out, re.M) and \
        "kind_name(k=" not in out and out.split("trace> cat btf\n", 1)[-1].startswith("none\n")
    report(bool(ok) and rc == 0, "%s another image's BTF module refused (exact message), raw words"
           % arch, out)
    # btf=off: return values without a type, by Linux's rule (an int error
    # in a 64-bit register, upper half clear, is still an error: "ret=-2").
    # Interrupts off: exactly the workers' 4 x 50 x 8 calls, 200 per path
    # (demo/vfs.c: vfs_paths and vfs_expect; newlib's ELOOP is 92).
    rc, out, _ = boot(arch, "btf=off ftrace=function_graph ftrace_filter=vfs_stat "
                            "trace_options=funcgraph-retval,nofuncgraph-irqs", timeout=120, smp=2)
    save_log(arch + "-btf-off", out)
    rets = {}
    for v in re.findall(r"^ \d\) [ +!#*@$] +[0-9.]+ us +\|  (?:vfs_stat\(\);|\}) /\* (?:vfs_stat )?"
                        r"ret=(\S+) \*/$", out, re.M):
        rets[v] = rets.get(v, 0) + 1
    want = {v: 200 for v in ("0x4ba", "0xbb", "0x40", "0x1000", "-2", "-20", "-92", "0x0")}
    ok = rc == 0 and rets == want and "btf: off (btf=off): no function signatures" in out and \
        "# no BTF loaded: arguments and return values are raw words" in out
    report(ok, "%s btf=off: untyped return values as Linux prints them (%s)" % (arch, rets), out)


def graph_boot_options(arch):
    """function_graph from the command line with every graph option, bad ones
    among them: each bad one is reported and ignored, the rest apply."""
    # kind_name runs once, outside vfs_stat: it is traced unless the graph
    # filter's good pattern (vfs_stat) applies.
    rc, out, _ = boot(arch, "ftrace=function_graph ftrace_filter=vfs_stat,kind_name "
                            "ftrace_graph_filter=vfs_stat,nosuchfn,[bad "
                            "trace_options=funcgraph-proc,nosuchopt "
                            "ftrace_graph_notrace=nosuch2 ftrace_dump_on_oops=maybe "
                            "traceoff_on_warning=2", timeout=120, smp=2)
    save_log(arch + "-graph-boot", out)
    # Any depth: a timer interrupt's lookup that lands inside a worker's
    # vfs_stat on the same CPU is printed one level deeper (as in Linux).
    lines = re.findall(r"^ \d\) +(\S+)-(\d+) +\| [ +!#*@$0-9.us]*\|  +(\w+)\(\)(;| \{)$", out, re.M)
    irq = re.search(r"(\d+) lookups from the timer interrupt", out)
    ok = rc == 0 and irq and \
        "\nftrace_graph_filter: invalid pattern '[bad': unterminated '[' in pattern, ignored\n" in out and \
        "\nftrace_graph_filter: no function matches 'nosuchfn', ignored\n" in out and \
        "\nftrace_graph_notrace: no function matches 'nosuch2', ignored\n" in out and \
        "bad boot option 'ftrace_graph" not in out and \
        "trace_options: unknown option 'nosuchopt', ignored" in out and \
        "bad boot option 'trace_options" not in out and \
        "bad boot option 'ftrace_dump_on_oops=maybe', ignored" in out and \
        "bad boot option 'traceoff_on_warning=2', ignored" in out and \
        "# CPU  TASK/PID         DURATION                  FUNCTION CALLS" in out and \
        len(lines) == 1600 + int(irq.group(1)) and all(l[2] == "vfs_stat" for l in lines)
    report(bool(ok), "%s function_graph boot options: bad ones reported and ignored, the rest "
           "apply (%d calls)" % (arch, len(lines)), out)
    # ftrace_graph_max_depth= (Linux's name): 2 applies; the bad values after
    # it are each reported with the reason and leave it at 2.  Interrupts
    # off (nofuncgraph-irqs), each worker vfs_stat (depth 0) calls path_walk
    # (depth 1) once; the path_walk a symlink nests (depth 2) is cut.
    bad = ["-1", "2x", "4294967296", ""]
    script = os.path.join(LOGS, arch + "-maxdepth-script.txt")
    with open(script, "w") as f:
        f.write("cat max_graph_depth\n")
    with open(script, "rb") as f:
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch),
                          "ftrace=function_graph ftrace_filter=vfs_stat,path_walk "
                          "trace_options=nofuncgraph-irqs ftrace_graph_max_depth=2 " +
                          " ".join("ftrace_graph_max_depth=" + v for v in bad)], 150,
                         env={"SMP": "2", "TIMEOUT": "120"}, stdin=f)
    save_log(arch + "-graph-maxdepth", out)
    calls = {}
    for indent, name in re.findall(r"^ \d\) [ +!#*@$0-9.us]*\|( +)(\w+)\(\)(?:;| \{)$", out, re.M):
        key = (name, (len(indent) - 2) // 2)
        calls[key] = calls.get(key, 0) + 1
    lines = out.splitlines()
    ok = rc == 0 and calls == {("vfs_stat", 0): 1600, ("path_walk", 1): 1600} and \
        all(("ftrace_graph_max_depth: '%s' is not a depth (a number up to 4294967295, 0 for no "
             "limit)" % v if v else "ftrace_graph_max_depth: needs a value") in lines and
            ("baretrace: bad boot option 'ftrace_graph_max_depth=%s', ignored" % v) in lines
            for v in bad) and \
        "trace> cat max_graph_depth\n2\n" in out
    report(ok, "%s ftrace_graph_max_depth=2: exactly depths 0 and 1 (%s); bad values reported, "
           "depth kept" % (arch, calls), out)


def no_buffer(arch):
    """trace_buf_size larger than the heap holds (250 MB per CPU, 4 CPUs): the
    buffer cannot be made, the boot says why and that the boot tracer does
    not start, and every tracefs file that needs it says so (nothing
    crashes); nop stays the tracer, the profiler (which needs no buffer)
    still works.  Then sizes that are not sizes (0, junk, a sign, a
    fraction, beyond the ring buffer's limit, overflowing) are each a bad
    option, and the default size stays."""
    script = os.path.join(LOGS, arch + "-nobuf-script.txt")
    with open(script, "w") as f:
        f.write("echo function > current_tracer\necho function_graph > current_tracer\n"
                "cat current_tracer\ncat trace\necho > trace\ncat trace_pipe\n"
                "echo hi > trace_marker\necho 0 > tracing_on\necho 100 > buffer_size_kb\n"
                "cat buffer_size_kb\necho 1 > function_profile_enabled\n"
                "echo 0 > function_profile_enabled\n" + "".join(c + "\n" for c in PER_CPU_NOBUF) +
                "echo 0 > options/overwrite\nls per_cpu\n")
    with open(script, "rb") as f:
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch),
                          "trace_buf_size=250m ftrace=function"], 150,
                         env={"SMP": "4", "TIMEOUT": "120", "MEM": "512M"}, stdin=f)
    save_log(arch + "-nobuf", out)
    blocks = {}
    for part in out.split("trace> ")[1:]:
        cmd, _, answer = part.partition("\n")
        blocks.setdefault(cmd, []).append(answer.rstrip("\n"))
    want = {
        "echo function > current_tracer": ["echo: current_tracer: no trace buffer"],
        "echo function_graph > current_tracer": ["echo: current_tracer: no trace buffer"],
        "cat current_tracer": ["nop"],
        "cat trace": ["# tracer: nop\n# (no trace buffer)"],
        "echo > trace": ["echo: trace: no trace buffer"],
        "cat trace_pipe": ["cat: trace_pipe: no trace buffer"],
        "echo hi > trace_marker": ["echo: trace_marker: no trace buffer"],
        "echo 0 > tracing_on": ["echo: tracing_on: no trace buffer"],
        "echo 100 > buffer_size_kb": ["echo: buffer_size_kb: no trace buffer"],
        "cat buffer_size_kb": ["cat: buffer_size_kb: no trace buffer"],
        "echo 1 > function_profile_enabled": [""],
        "echo 0 > function_profile_enabled": [""],
        "echo 0 > options/overwrite": [""],
        "ls per_cpu": ["cpu0\ncpu1\ncpu2\ncpu3"],
    }
    for c in PER_CPU_NOBUF:
        op, path = ("cat", c[4:]) if c.startswith("cat ") else ("echo", c.split("> ")[1])
        want[c] = ["%s: %s: no trace buffer" % (op, path)]
    bad = [k for k, v in want.items() if blocks.get(k) != v]
    ok = "trace: cannot create the buffer (262144000 bytes per CPU): out of memory; only the nop " \
        "tracer runs\ntrace: tracer function not started: no trace buffer\n" in out \
        and "baretrace: demo returned 0" in out and not bad and \
        "baretrace: script done, %d command(s) failed" % (8 + len(PER_CPU_NOBUF)) in out and rc == 1
    # Bad sizes, each refused with the default kept: 1441792 bytes, which
    # is ceil(1441792 / 4080) = 354 pages of 4080 data bytes = 1410 KiB.
    bad_sizes = ["300m", "0", "0k", "abc", "-1", "4k2", "1.5m", "", "1g",
                 "99999999999999999999", "18446744073709551616k"]
    script2 = os.path.join(LOGS, arch + "-badbuf-script.txt")
    with open(script2, "w") as f:
        f.write("cat buffer_size_kb\n")
    with open(script2, "rb") as f:
        rc2, out2, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch),
                            " ".join("trace_buf_size=" + v for v in bad_sizes)], 90,
                           env={"SMP": "2", "TIMEOUT": "60"}, stdin=f)
    save_log(arch + "-bigbuf", out2)
    missing = [v for v in bad_sizes
               if "bad boot option 'trace_buf_size=%s', ignored" % v not in out2]
    ok = ok and rc2 == 0 and not missing and "trace> cat buffer_size_kb\n1410\n" in out2
    if missing:
        bad = bad + ["trace_buf_size=%s accepted" % v for v in missing]
    report(bool(ok), "%s no trace buffer (trace_buf_size too large): said at boot and by every "
           "file that needs it%s" % (arch, "" if not bad else ": " + ", ".join(bad)),
           out + "\n" + out2)


# The files of the buffer added with per_cpu/: each says there is none.
PER_CPU_NOBUF = ["cat buffer_total_size_kb", "cat per_cpu/cpu0/trace", "cat per_cpu/cpu0/trace_pipe",
                 "cat per_cpu/cpu0/stats", "cat per_cpu/cpu0/buffer_size_kb",
                 "echo > per_cpu/cpu0/trace", "echo 8 > per_cpu/cpu0/buffer_size_kb"]


def gdb_smoke(arch):
    """make gdb-ARCH's machinery: QEMU's gdbstub plus gdb-multiarch with symbols."""
    port = gdb_port(arch, {"arm64": 1241, "x86_64": 1242}[arch], 0)
    os.makedirs(LOGS, exist_ok=True)
    rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch), ""], 120,
                     env={"GDB": "1", "GDB_PORT": port, "GDB_BATCH": "tests/gdb/smoke.gdb",
                          "SERIAL_LOG": os.path.join(LOGS, arch + "-gdb-serial.log")})
    save_log(arch + "-gdb", out)
    ok = rc == 0 and re.search(r"^#0 +(0x[0-9a-f]+ in )?demo_main \(\)", out, re.M) and \
        re.search(r"^#1 .* in run_workload \(\)", out, re.M) and \
        re.search(r"^\$1 = 4$", out, re.M) and \
        len(re.findall(r"^\*? +\d+ +Thread 1\.\d+ ", out, re.M)) == 4
    report(bool(ok), "%s gdb: breakpoint, backtrace, globals, one thread per vCPU" % arch, out)


# Figures whose feature is not built yet: the only ones allowed to be n/a.
NOT_BUILT = set()


def bench_smoke():
    """make bench's code runs and every figure is present and sane (never a time)."""
    rc, out, secs = 0, "", 0
    host = os.path.join(ROOT, "build", "bench", "host-figures.json")   # measured by the first run
    if os.path.exists(host):
        os.remove(host)
    for arch in ("arm64", "x86_64"):            # each beside other groups, never an EXCLUSIVE one
        with machine_lock():
            arc, aout, asecs = run(["tools/bench.py", "--arch", arch, "--host-figures", host], 1500)
        rc, out, secs = rc or arc, out + aout, secs + asecs
    save_log("bench", out)
    figs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    names = {(f["arch"], f["bench"]) for f in figs}
    bad = [f for f in figs if (f["value"] is None and f["bench"] not in NOT_BUILT) or
           (f["value"] is not None and not (0 < f["value"] < float("inf")))]
    want = 2 * len(BENCH_FIGURES)
    ok = rc == 0 and len(names) == want and not bad
    report(ok, "make bench: %d figures present, none missing or insane (%.0fs)" % (len(names), secs),
           out if not ok else "")


# The per-arch groups in their order (--only names them): each a list of
# functions of the arch, called in turn.  Both arches run at once
# (run_jobs), so a check may write only under its arch's names: build
# directories build/ARCH*, logs build/test-logs/ARCH-*, gdb ports by
# gdb_port(arch, ...).
ARCH_GROUPS = [
    ("guest", [guest_tests, rb_torture, ftrace_slow]),
    ("demo", [demo]),
    ("crash", [crash]),
    ("ftrace", [ftrace_boot]),
    ("shell", [lambda arch: shell_session(arch, run, report, kernel_path, save_log, SMP),
               no_buffer,
               lambda arch: checks_rbresize.checks(arch, run, report, kernel_path, save_log, SMP)]),
    ("graph", [graph_golden, graph_boot_options, btf_module,
               lambda arch: checks_btfaddr.twins(arch, run, report, save_log, LOGS)]),
    ("export", [lambda arch: export_checks.export_round_trip(arch, kernel_path(arch), report,
                                                              save_log)]),
    ("gdb", [gdb_smoke, lambda arch: gdb_trace_checks(arch, run, report, kernel_path, LOGS),
             lambda arch: gdb_corrupt_checks(arch, run, report, kernel_path(arch), LOGS)]),
    ("app", [apps, lambda arch: checks_libc.libc_app(arch, run, report, save_log)]),
    ("thirdparty", [lambda arch: checks_thirdparty.thirdparty(
        arch, report, lambda a, c, app: boot(a, c, app=app, smp=2), save_log, THIRDPARTY_HOST)]),
    ("clang", [lambda arch: checks_clang.clang_group(arch, report, save_log, golden_diff)]),
    ("xray", [lambda arch: checks_xray.xray_group(arch, report, save_log)]),
    ("input", [lambda arch: checks_guestword.input_checks(arch, kernel_path, report, save_log)]),
]
# uftrace's traces of the thirdparty drivers, built for the host: the same
# for both arches, made once before they start (checks_thirdparty.host_side).
THIRDPARTY_HOST = {}
TIMES = []            # (group, arch or "-", wall seconds)


def timed(group, arch, fn, *args):
    """fn(*args), its wall time added to TIMES as (group, arch, seconds)."""
    t0 = time.time()
    try:
        return fn(*args)
    finally:
        TIMES.append((group, arch, time.time() - t0))


def host_job(only):
    """What runs on the host only, beside the arches."""
    if "host" in only:
        # Exclusive: the tortures count how deep writers nest on every
        # thread, which a host busy with two guests' vCPUs starves (the tsan
        # producer/consumer run missed three deep at 76 with both arches
        # beside it).
        with machine_lock(exclusive=True):
            timed("host", "-", host_tests)
    if "app" in only:
        checks_libc.mkinitrd_refusals(report)


# Groups whose boots load every CPU for minutes (SMP=4 stress: live
# patching under fire, the tortures, the ftrace suite under one TCG
# thread) and whose cases wait on each other's vCPUs or count preemptions:
# each runs alone, as in a sequential run, and so do the host tests (their
# threaded tortures).  They hold EXCLUSIVE_LOCK
# exclusively; every other group and each bench boot hold
# it shared (machine_lock), so they run side by side but never beside
# these.  An arch whose exclusive group finds the lock taken runs its
# next groups first.
EXCLUSIVE = {"guest", "ftrace"}
EXCLUSIVE_LOCK = os.path.join(ROOT, "build", ".run-exclusive.lock")


@contextlib.contextmanager
def machine_lock(exclusive=False, wait=True):
    """EXCLUSIVE_LOCK held shared (or exclusive) for the with-block;
    BlockingIOError if wait is False and it is taken."""
    os.makedirs(os.path.dirname(EXCLUSIVE_LOCK), exist_ok=True)
    with open(EXCLUSIVE_LOCK, "w") as lock:
        fcntl.flock(lock, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) |
                    (0 if wait else fcntl.LOCK_NB))
        yield


def captured(fn):
    """fn() with this process's stdout and stderr going to a file; the
    text written.  A check that raises is a failed check of its own."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            fn()
        except Exception:
            report(False, "the checks ran to their end", traceback.format_exc())
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        f.seek(0)
        return f.read()


def arch_checks(arch, only):
    """One arch's groups (a job of run_jobs), each timed, their output
    printed in ARCH_GROUPS order.  An EXCLUSIVE group waits while the lock
    is taken: the groups after it run first."""
    groups = [(g, checks) for g, checks in ARCH_GROUPS if g in only]
    outputs, waiting = {}, []
    printed = 0

    def one(group, checks):
        outputs[group] = captured(lambda: timed(group, arch, lambda: [c(arch) for c in checks]))

    todo = list(groups)
    while todo or waiting:
        for held in list(waiting):
            try:
                with machine_lock(exclusive=True, wait=not todo):
                    one(*held)
            except BlockingIOError:
                continue
            waiting.remove(held)
        if todo:
            group, checks = todo.pop(0)
            if group in EXCLUSIVE:
                waiting.append((group, checks))
            else:
                with machine_lock():
                    one(group, checks)
        while printed < len(groups) and groups[printed][0] in outputs:
            sys.stdout.buffer.write(outputs.pop(groups[printed][0]))
            sys.stdout.flush()
            printed += 1


def kernels(arches, meanwhile):
    """Build every arch's kernel at once (one make each: their build
    directories are their own), calling meanwhile() while they build;
    {arch: (built, output)}."""
    procs = {}
    for arch in arches:
        log = tempfile.TemporaryFile()
        procs[arch] = (subprocess.Popen(["make", "-s", "ARCH=" + arch, "kernel"], cwd=ROOT,
                                        stdin=subprocess.DEVNULL, stdout=log,
                                        stderr=subprocess.STDOUT), log, time.time())
    meanwhile()
    out = {}
    for arch, (p, log, t0) in procs.items():
        try:
            rc = p.wait(max(1, 900 - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        TIMES.append(("build", arch, time.time() - t0))
        log.seek(0)
        out[arch] = (rc == 0, log.read().decode("utf-8", "replace"))
    return out


RESULT_MARK = "\x1ebaretrace-results "


def run_jobs(jobs, slots=3):
    """Run jobs, [(label, function, labels it must wait for)], each in a
    forked child, at most `slots` at once, in the list's order as slots and
    waits allow.  A child's output (its check lines and their details, its
    commands' stray output) is printed whole and in the list's order: the
    first unfinished job's as it comes, a later one's held until all before
    it have ended.  Each child ends by sending its results and TIMES (one
    line, RESULT_MARK); a child that dies before sending them, or whose
    function raises, is a failed check of its own."""
    sys.stdout.flush()
    sys.stderr.flush()
    todo, running, done = list(jobs), {}, set()
    lines = {label: [] for label, _, _ in jobs}
    order = [label for label, _, _ in jobs]
    head = [0]                   # index in order of the job printed live
    sel = selectors.DefaultSelector()

    def start(label, fn):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.dup2(w, 1)
            os.dup2(w, 2)
            os.close(w)
            status = 0
            del results[:], TIMES[:]
            try:
                fn()
            except BaseException:
                status = 1
                report(False, "%s: the checks ran to their end" % label, traceback.format_exc())
            sys.stdout.write(RESULT_MARK + json.dumps({"results": results, "times": TIMES}) + "\n")
            sys.stdout.flush()
            os._exit(status)
        os.close(w)
        os.set_blocking(r, False)
        running[r] = {"label": label, "pid": pid, "partial": b"", "got": None}
        sel.register(r, selectors.EVENT_READ)

    def take(job, data):
        text = job["partial"] + data
        *full, job["partial"] = text.split(b"\n")
        for raw in full:
            line, mark, got = raw.decode("utf-8", "replace").partition(RESULT_MARK)
            if mark:
                job["got"] = json.loads(got)
            if line or not mark:
                lines[job["label"]].append(line)

    def show():
        while head[0] < len(order):
            label = order[head[0]]
            for line in lines[label]:
                print(line)
            lines[label] = []
            if label not in done:
                break
            head[0] += 1
        sys.stdout.flush()

    def finish(fd, status=None):
        job = running.pop(fd)
        sel.unregister(fd)
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not data:
                break
            take(job, data)
        os.close(fd)
        if job["partial"]:
            take(job, b"\n")
        if status is None:
            status = os.waitpid(job["pid"], 0)[1]
        label, got = job["label"], job["got"]
        if got is None:
            results.append((False, "%s: the checks ran to their end" % label))
            lines[label].append("not ok - %s: the checks ran to their end (exit status %d, no "
                                "results)" % (label, os.waitstatus_to_exitcode(status)))
        else:
            results.extend((ok, name) for ok, name in got["results"])
            TIMES.extend(tuple(t) for t in got["times"])
        done.add(label)

    while todo or running:
        for job in list(todo):
            label, fn, after = job
            if len(running) < slots and all(a in done or a not in order for a in after):
                todo.remove(job)
                start(label, fn)
        for key, _ in sel.select(timeout=1.0):
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if data:
                take(running[key.fd], data)
            else:
                finish(key.fd)
        # A child that has ended while a process it started still holds
        # its pipe open: done all the same.
        for fd, job in list(running.items()):
            pid, status = os.waitpid(job["pid"], os.WNOHANG)
            if pid:
                finish(fd, status)
        show()


def timing_summary():
    """Each group's wall seconds per arch, as '# ' lines (not checks)."""
    arches = sorted({a for _, a, _ in TIMES if a != "-"})
    groups = []
    for g, _, _ in TIMES:
        if g not in groups:
            groups.append(g)
    secs = {(g, a): s for g, a, s in TIMES}
    print("# wall seconds per group (the arches ran at once)")
    print("# %-12s" % "group" + "".join("%9s" % a for a in arches + ["-"]))
    for g in groups:
        print("# %-12s" % g + "".join("%9s" % ("%.0f" % secs[(g, a)] if (g, a) in secs else "")
                                     for a in arches + ["-"]))
    slow = sorted(TIMES, key=lambda t: -t[2])[:5]
    print("# slowest: " + ", ".join("%s %s %.0fs" % (g, a, s) for g, a, s in slow))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", action="append")
    ap.add_argument("--only", action="append")
    args = ap.parse_args()
    arches = args.arch or ["arm64", "x86_64"]
    only = set(args.only or ["host", "bench"] + [g for g, _ in ARCH_GROUPS])
    t0 = time.time()
    # Kernels first: the host BTF tests also decode their blobs.  Meanwhile
    # what both arches' thirdparty groups share, made once.
    def thirdparty_host_side():
        if "thirdparty" in only:
            timed("thirdparty", "-", checks_thirdparty.host_side, report, THIRDPARTY_HOST)

    built = {}
    for arch, (ok, out) in kernels(arches, thirdparty_host_side).items():
        built[arch] = ok
        report(ok, "%s kernel builds" % arch, out)
    jobs = [("host", lambda: host_job(only), ())] if {"host", "app"} & only else []
    for arch in arches:
        if built[arch]:
            jobs.append((arch, lambda arch=arch: arch_checks(arch, only), ()))
    if "bench" in only and not args.arch:
        # After host, in its place: both build build/host's ring-buffer benchmarks.
        jobs.append(("bench", lambda: timed("bench", "-", bench_smoke), ("host",)))
    run_jobs(jobs)
    TIMES.append(("total", "-", time.time() - t0))
    timing_summary()
    passed = sum(1 for ok, _ in results if ok)
    failed = len(results) - passed
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


main()
