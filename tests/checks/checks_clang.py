"""checks_clang.py — the kernel built by clang 14 (`CC=clang`, mk/clang.mk)
builds and runs like the GCC one (issue 20, first step).

For tests/run.py (group `clang`):
    import checks_clang
    checks_clang.clang_group(arch, report, save_log, golden_diff)

Run alone: tests/run.py --arch arm64 --only clang

Checks, each reported as one report(ok, name, detail):
  build    `make ARCH=... CC=clang kernel` with -Werror, into its own build
           directory (not the GCC one), check-nofp passing on its listing;
           the image's code is clang's (its .comment names clang 14)
  suites   SUITES booted on 4 vCPUs with the BTF module as -initrd: every
           case ok, none skipped, the run complete
  golden   bt.test=graph_golden gives tests/golden/graph.txt exactly,
           durations masked: the same graph, arguments and return values
           as the GCC build's on both arches
  crash    bt.test=crash_write: the fault report's backtrace goes from the
           faulting function through its caller (the unwinder's reading of
           clang's prologues), exit status 3
  demo     `make qemu-ARCH CC=clang`: the default run (the demo under
           function_graph with args and retval) finds what it expects,
           prints graph lines with the demo's typed arguments and exits 0
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import ROOT, run  # noqa: E402

CC = "CC=clang"
# A quick but meaningful subset (about a minute per arch under TCG on a
# loaded machine): the site states and patching (arch_ftrace), boot, the
# scheduler, the graph tracer's core and its output, BTF signatures, the
# profiler and fprobes.  The whole of bt.test=all passes too (by hand:
# several minutes per arch).
SUITES = "arch_ftrace,boot,sched,fgraph,graph,btf,profile,fprobe"


def kernel_path(arch, cc=True):
    rc, out, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, "print-kernel"] +
                     ([CC] if cc else []), 60)
    return out.strip().splitlines()[-1] if rc == 0 and out.strip() else ""


def boot(arch, cmdline, timeout, smp=4, env=None):
    e = {"SMP": str(smp), "TIMEOUT": str(timeout)}
    e.update(env or {})
    return run(["tools/qemu-run.sh", arch, kernel_path(arch), cmdline], timeout + 30, env=e)


def build(arch, report):
    rc, out, secs = run(["nice", "make", "-s", "ARCH=" + arch, CC, "kernel"], 1200)
    elf = kernel_path(arch)
    gcc_elf = kernel_path(arch, cc=False)
    b = os.path.dirname(elf)
    own_dir = elf and gcc_elf and b != os.path.dirname(gcc_elf)
    # check-nofp again, on this build's listing (an up-to-date kernel
    # prints nothing).
    nrc, nofp, _ = run(["tools/check-nofp.py"] + [os.path.join(b, "kernel." + x)
                                                  for x in ("nm", "asm", "sites")], 120)
    # The linker drops .comment: the objects name their compiler.
    objs = [os.path.join(b, o) for o in ("trace/core/fgraph.c.o", "demo/demo.c.o")]
    crc, comment, _ = run(["readelf", "-p", ".comment"] + objs, 60)
    clang = crc == 0 and len(re.findall(r"clang version 14\.", comment)) == len(objs) \
        and "GCC" not in comment
    ok = rc == 0 and own_dir and nrc == 0 and clang and os.path.exists(os.path.join(ROOT, elf))
    report(bool(ok), "%s clang kernel builds with -Werror into %s, check-nofp passes, code "
           "by clang 14 (%.0fs)" % (arch, b or "?", secs), out + "\n" + nofp + "\n" + comment)
    return bool(ok)


def suites(arch, report, save_log):
    # The BTF module too (-initrd), so that btf's initrd_module case runs.
    btf = os.path.join(os.path.dirname(kernel_path(arch)), "kernel.btf")
    rc, out, secs = boot(arch, "bt.test=" + SUITES, 300, env={"INITRD": btf})
    save_log(arch + "-clang-suites", out)
    cases = re.findall(r"^    (not ok|ok) \d+ (\S+)(.*)$", out, re.M)
    bad = [c[1] for c in cases if c[0] != "ok" or "SKIP" in c[2]]
    want = SUITES.split(",")
    done = re.findall(r"^ok \d+ (\S+)$", out, re.M)
    ok = rc == 0 and cases and not bad and sorted(done) == sorted(want)
    report(bool(ok), "%s clang build: suites %s, %d cases all ok (%.0fs)%s"
           % (arch, SUITES, len(cases), secs, "; failed or skipped: " + ", ".join(bad) if bad else ""),
           out)


def golden(arch, report, save_log, golden_diff):
    rc, out, _ = boot(arch, "bt.test=graph_golden", 120, smp=2)
    save_log(arch + "-clang-graph-golden", out)
    same, diff = golden_diff(out)
    report(rc == 0 and same, "%s clang build: function_graph golden, the GCC build's "
           "graph exactly" % arch, diff or out)


def crash(arch, report, save_log):
    rc, out, _ = boot(arch, "bt.test=crash_write", 120)
    save_log(arch + "-clang-crash-write", out)
    ok = rc == 3 and re.search(r"FATAL EXCEPTION on CPU \d+: .*\(write\) at crash_write_text\+", out) \
        and re.search(r"\] crash_write_text\+0x[0-9a-f]+/0x[0-9a-f]+\n.*\] test_crash_write_write_to_text\+0x",
                      out) and "---[ end of panic ]---" in out
    report(bool(ok), "%s clang build: a fatal write to text is reported with a backtrace through "
           "its caller (arch_frame_fp on clang's frames), exit 3 (got %d)" % (arch, rc), out)


def demo(arch, report, save_log):
    rc, out, secs = run(["make", "-s", "--no-print-directory", "qemu-" + arch, CC], 200,
                        env={"SMP": "4", "TIMEOUT": "150"})
    save_log(arch + "-clang-demo", out)
    m = re.search(r"demo: .* (\d+) bytes found \(expected (\d+)\)", out)
    graph = re.search(r"^# tracer: function_graph$", out, re.M) and \
        re.search(r"^ \d\)  .*\|\s+vfs_stat\(path=\"/[^\"]*\"\) \{$", out, re.M) and \
        re.search(r"^ \d\)  .*\|\s+\} /\* vfs_stat ret=0x[0-9a-f]+ \*/$", out, re.M)
    ok = rc == 0 and m and m.group(1) == m.group(2) and graph and \
        "baretrace: demo returned 0" in out and "baretrace: 4 CPUs online" in out
    report(bool(ok), "%s clang build: make qemu-%s CC=clang runs the demo under function_graph "
           "(typed args, retval) and exits 0 (%.0fs)" % (arch, arch, secs), out)


def clang_group(arch, report, save_log, golden_diff):
    if build(arch, report):
        suites(arch, report, save_log)
        golden(arch, report, save_log, golden_diff)
        crash(arch, report, save_log)
        demo(arch, report, save_log)

