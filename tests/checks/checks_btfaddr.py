#!/usr/bin/env python3
"""checks_btfaddr.py — signatures by address (trace/DESIGN.md, "Build";
tools/btfaddr.py).

tests/apps/twins has two static functions named `twin` of different
prototypes (a.c, b.c) and a static `writer`, a name the kernel's
tests/guest/test_rb_files.c also has.  Booted with function_graph on
`twin,writer`, funcgraph-args, -retval and -args-string, per arch:
  guest    the guest's `cat trace` shows exactly EXPECT, in that order: each
           function its own typed arguments (by name, the three would
           print raw words: pahole keeps one FUNC per name);
  export   bt-export's --text of the same boot's dump shows the same lines
           (the dump carries the guest's signatures by address);
  gdb      gdb's bt-trace, stopped just before the guest prints its trace,
           shows the same lines (it reads the guest's table by address).

For tests/run.py (group graph):
    checks_btfaddr.twins(arch, run, report, save_log, logs)
Alone: tests/checks/checks_btfaddr.py [--arch arm64|x86_64]
"""
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdb_checks  # noqa: E402

APP = "tests/apps/twins"
CMDLINE = ("ftrace=function_graph ftrace_filter=twin,writer trace_options=funcgraph-args,"
           "funcgraph-retval,funcgraph-args-string,nofuncgraph-irqs")
EXPECT = ['twin(a=-5, s="left"); /* ret=-9 */',
          'twin(x=0x2a, y=-3, z=0x1); /* ret=0x28 */',
          'writer(msg="hello", n=2); /* ret=0x7 */']


def calls(text):
    """The call lines of a function_graph text, without CPU and duration."""
    return [m.group(1) for m in re.finditer(r"^ *\d+\) .*?\|  (\S.*?)\s*$", text or "", re.M)]


def twins(arch, run, report, save_log, logs):
    rc, out, _ = run(["nice", "make", "-s", "ARCH=" + arch, "kernel", "APP=" + APP], 900)
    if rc != 0:
        report(False, "%s APP=%s builds" % (arch, APP), out)
        return
    _, elf, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel",
                     "APP=" + APP], 60)
    kernel = elf.strip().splitlines()[-1]
    with tempfile.TemporaryFile() as script:
        script.write(b"cat trace\ndump\n")
        script.seek(0)
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel, CMDLINE], 150,
                         env={"SMP": "2", "TIMEOUT": "120"}, stdin=script)
    save_log(arch + "-btfaddr-twins", out)
    m = re.search(r"^trace> cat trace\n(.*?)^trace> dump", out, re.S | re.M)
    got = calls(m.group(1) if m else "")
    report(rc == 0 and "twins: ok" in out and got == EXPECT,
           "%s functions sharing a name (two APP `twin`, the APP's and the kernel's `writer`): "
           "each its own typed arguments in the guest's trace" % arch,
           "got %r\nwant %r\n%s" % (got, EXPECT, out))
    with tempfile.TemporaryDirectory() as tmp:
        log, txt = os.path.join(tmp, "serial.log"), os.path.join(tmp, "out.txt")
        with open(log, "w") as f:
            f.write(out)
        rc, eout, _ = run(["tools/bt-export", log, "--text", txt], 60)
        text = open(txt).read() if os.path.exists(txt) else ""
    got = calls(text)
    report(rc == 0 and got == EXPECT, "%s bt-export prints the same typed arguments" % arch,
           "got %r\nwant %r\n%s" % (got, EXPECT, eout))
    d = os.path.join(logs, "gdb-%s-btfaddr" % arch)
    rc, gout, serial = gdb_checks._gdb_boot(arch, run, kernel, CMDLINE, "tests/gdb/trace.gdb", d)
    try:
        with open(os.path.join(d, "bt-trace.txt")) as f:
            got = calls(f.read())
    except OSError:
        got = []
    report(got == EXPECT, "%s gdb bt-trace prints the same typed arguments" % arch,
           "got %r\nwant %r\n%s" % (got, EXPECT, gout))


def main():
    import argparse
    from checklib import log_saver, reporter, run
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", action="append")
    args = ap.parse_args()
    results = []
    report = reporter(results)
    logs = os.path.join(ROOT, "build", "test-logs")
    save_log = log_saver(logs)

    for arch in args.arch or ["arm64", "x86_64"]:
        twins(arch, run, report, save_log, logs)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
