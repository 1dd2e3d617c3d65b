#!/usr/bin/env python3
"""bench-uftrace.py — the uftrace_call comparison figure, on the host.

The demo's lookup code (demo/vfs.c, the same source the kernel runs) is
compiled for the host with NOP entry sites and run twice under valgrind's callgrind
(which counts instructions, so the figure is repeatable): plainly and under
`uftrace record`.  Two run lengths (N and 2N lookups) are used so that the
fixed costs (loading, libmcount's set-up) cancel; the figure is

  ((traced(2N) - traced(N)) - (plain(2N) - plain(N))) / (calls(2N) - calls(N))

added instructions per traced call.  Prints one line "uftrace_call VALUE"
or "uftrace_call na REASON".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN = r'''
#include <stdio.h>
#include <stdlib.h>
#include "demo/vfs.h"
int main(int argc, char **argv) { printf("%ld\n", demo_lookups(atoi(argv[1]))); return 0; }
'''


def collected(outdir, prog):
    """Instructions callgrind counted for the process running prog."""
    for name in os.listdir(outdir):
        path = os.path.join(outdir, name)
        if not name.startswith("cg."):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        if re.search(r"^cmd:\s+%s\s" % re.escape(prog), text, re.M):
            m = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if m:
                return int(m.group(1))
    raise RuntimeError("no callgrind output for " + prog)


def run(prog, n, traced, work):
    out = tempfile.mkdtemp(dir=work)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out + "/cg.%p"]
    if traced:
        cmd += ["--trace-children=yes", "uftrace", "record", "--no-libcall", "-P", ".",
                "-d", out + "/data"]
    subprocess.run(cmd + [prog, str(n)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return collected(out, prog), out


def calls(datadir):
    rep = subprocess.run(["uftrace", "report", "-d", datadir],
                         check=True, capture_output=True, text=True).stdout
    # Rows: total time, unit, self time, unit, calls, function.
    rows = [l.split() for l in rep.splitlines()]
    return sum(int(r[4]) for r in rows
               if len(r) >= 6 and r[4].isdigit() and not r[5].startswith("linux:"))


def main():
    for tool in ("valgrind", "uftrace", "gcc"):
        if not shutil.which(tool):
            print("uftrace_call na %s not installed" % tool)
            return
    work = os.path.join(ROOT, "build", "bench", "uftrace")
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "main.c")
    with open(src, "w") as f:
        f.write(MAIN)
    prog = os.path.join(work, "vfs_work")
    # Like the kernel: a NOP at every function entry (-mnop-mcount), which
    # uftrace patches at run time (-P .).  Linking without -pg keeps gprof's
    # start-up (and its SIGPROF timer) out.
    objs = []
    for c in (src, os.path.join(ROOT, "demo", "vfs.c")):
        o = os.path.join(work, os.path.basename(c) + ".o")
        subprocess.run(["gcc", "-O2", "-fno-pie", "-pg", "-mfentry", "-mnop-mcount", "-mrecord-mcount",
                        "-I", ROOT, "-c", c, "-o", o], check=True)
        objs.append(o)
    subprocess.run(["gcc", "-no-pie", "-o", prog] + objs, check=True)
    n = 2000
    try:
        p1, _ = run(prog, n, False, work)
        p2, _ = run(prog, 2 * n, False, work)
        t1, d1 = run(prog, n, True, work)
        t2, d2 = run(prog, 2 * n, True, work)
        c = calls(d2 + "/data") - calls(d1 + "/data")
    except (subprocess.CalledProcessError, RuntimeError) as e:
        print("uftrace_call na %s" % e)
        return
    if c <= 0:
        print("uftrace_call na no calls recorded")
        return
    print("uftrace_call %.1f" % (((t2 - t1) - (p2 - p1)) / c))


main()
