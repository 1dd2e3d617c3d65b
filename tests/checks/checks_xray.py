"""checks_xray.py — the XRay backend (`INSTR=xray`, mk/xray.mk; issue 20):
the kernel built with clang's XRay sleds instead of patchable entries
traces with the function tracer on its entry sleds, switches each
function's sleds together, and refuses what it cannot give.

For tests/run.py (group `xray`):
    import checks_xray
    checks_xray.xray_group(arch, report, save_log)

Run alone: tests/run.py --arch arm64 --only xray

Checks, each reported as one report(ok, name, detail):
  options  INSTR=xray with another compiler than clang, an unknown INSTR,
           and INSTR with make bench (it runs both backends itself) are
           refused by make before anything is built
  build    `make ARCH=... INSTR=xray kernel` (no CC: it implies clang) with
           -Werror into its own build directory, check-nofp passing on its
           listing; no object of trace/, patch/ or arch/ has a sled
           (section xray_instr_map), the traced demo has
  suites   SUITES booted on 4 vCPUs: every case ok (ftrace's one slow case
           skipped, as in every build); `xray` checks the sled table, that
           every sled holds its record's state before and after 40 switches
           of one function's sleds under fire from three CPUs, and exact
           counts; `xgraph` the tail-call matrix's exact graph on the trace
           stack, again after each of 40 switches under fire (no wrong
           value, no mispaired exit, no entry left); fgraph, fgraph_solo
           (users coming and going while calls are open: the exit sled's
           single-user path takes a frame only by its user's tag),
           fgraph_hook (the exit sled's solo_return: the one NOFP user's
           exit without FP/SIMD saves, the FP return value exact through
           it and through the general exit, __fexit_fp), graph,
           graph_edges (func_cmd's traceoff / traceon under function_graph,
           the last graph user leaving while a thread is inside: no entry
           left), tstack, profile, fprobe as in the default build;
           arch_ftrace's text-poking cases, its cases that patch
           patchable-entry sites skipped with arch/tests.h's reason
           (exactly NO_FENTRY_CASES: this backend has no such site)
  refuse   bt.test=xray_refuse: an exit sled holding other bytes than its
           record says is refused (patch_apply and the update), tracing
           killed with the sled named, nothing written; bt.test=
           xray_refuse_func: the same for an exit sled whose function word
           to its function (what its handler finds it by) leads to another
  demo     `make qemu-ARCH INSTR=xray` with the function tracer on the
           demo's vfs_stat and path_walk: the trace in Linux's function
           format, then a script: function_graph and the profiler are
           switched on (the trace stack), no command fails
  xgraph   tests/checks/checks_xgraph.py: the tail calls of suite xgraph
           are jumps in the code; the golden graph and the demo's graph
           equal the default backend's, the golden's marked exits exactly
  xapp     tests/checks/checks_xapp.py: APP=tests/apps/cjson built with
           clang for both backends: the same call trees, arguments and
           return values; bt-export's text, trace.dat and JSON of the
           INSTR=xray dump carry its marks exactly; under gdb, `bt` in a
           traced call and bt-trace
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import ROOT, run  # noqa: E402
import checks_xapp  # noqa: E402
import checks_xgraph  # noqa: E402

INSTR = "INSTR=xray"
SUITES = "boot,sched,ftrace,func_cmd,btf,dump,xray,xgraph,fgraph,fgraph_solo,fgraph_hook,graph,graph_edges," \
    "tstack,profile,fprobe,arch_ftrace"
# ftrace's live_switching_many_rounds runs only with bt.test_slow.
SLOW_SKIP = {"live_switching_many_rounds"}
# arch_ftrace's cases that patch patchable-entry sites, which this backend
# has none of: skipped, with arch/tests.h's reason (ARCH_FTRACE_XRAY_SKIP);
# its text-poking cases run.
NO_FENTRY = "INSTR=xray has no patchable-entry site: the sleds are suite xray's"
NO_FENTRY_CASES = {
    "arm64": {"compiled_sites_are_aligned", "site_init_and_encode", "all_argument_registers_survive",
              "regs_trampoline", "list_caller_uses_the_literal", "live_switching_under_fire",
              "exact_counts_per_window", "trampoline_sees_arguments", "direct_trampolines"},
    "x86_64": {"site_encoding", "recorded_sites", "argument_state_survives", "regs_and_redirect",
               "live_patching_under_fire", "int3_emulates_the_new_state", "trampoline_sees_arguments",
               "direct_trampolines"},
}
DEMO_CMDLINE = "ftrace=function ftrace_filter=vfs_stat,path_walk"
DEMO_SCRIPT = b"echo function_graph > current_tracer\ncat current_tracer\n" \
              b"echo 1 > function_profile_enabled\necho > trace\nrun\ncat trace\n"


def kernel_path(arch):
    rc, out, _ = run(["make", "-s", "--no-print-directory", "ARCH=" + arch, INSTR, "print-kernel"], 60)
    return out.strip().splitlines()[-1] if rc == 0 and out.strip() else ""


def boot(arch, cmdline, timeout, smp=4):
    """Boot this arch's INSTR=xray kernel, its BTF module as -initrd (so
    that btf's initrd_module case runs)."""
    elf = kernel_path(arch)
    return run(["tools/qemu-run.sh", arch, elf, cmdline], timeout + 30,
               env={"SMP": str(smp), "TIMEOUT": str(timeout),
                    "INITRD": os.path.join(ROOT, os.path.dirname(elf), "kernel.btf")})


def options(arch, report):
    rc1, out1, _ = run(["make", "-s", "ARCH=" + arch, INSTR, "CC=gcc", "print-kernel"], 60)
    rc2, out2, _ = run(["make", "-s", "ARCH=" + arch, "INSTR=fentry", "print-kernel"], 60)
    # make bench and make test run both backends themselves: an INSTR given
    # to them would reach every build they start, the default's included.
    # -n: were it not refused, nothing would run.
    rc3, out3, _ = run(["make", "-s", "-n", "ARCH=" + arch, INSTR, "bench"], 60)
    ok = rc1 != 0 and "INSTR=xray needs clang (CC=gcc)" in out1 and \
        rc2 != 0 and "INSTR=fentry: the backends are" in out2 and \
        rc3 != 0 and "INSTR=xray with make bench: it runs both backends itself" in out3
    report(ok, "%s INSTR=xray CC=gcc, INSTR=fentry and make bench INSTR=xray refused by make" % arch,
           out1 + out2 + out3)


def sleds_in(objs):
    """The objects among objs that have an xray_instr_map section."""
    rc, out, _ = run(["readelf", "-SW"] + objs, 120)
    have, cur = set(), None
    for line in out.splitlines():
        m = re.match(r"^File: (\S+)$", line)
        if m:
            cur = m.group(1)
        elif "xray_instr_map" in line and cur:
            have.add(cur)
    return rc, have


def build(arch, report):
    rc, out, secs = run(["nice", "make", "-s", "ARCH=" + arch, INSTR, "kernel"], 1200)
    elf = kernel_path(arch)
    b = os.path.dirname(elf)
    nrc, nofp, _ = run(["tools/check-nofp.py"] + [os.path.join(b, "kernel." + x)
                                                  for x in ("nm", "asm", "sites")], 120)
    tracer = []
    for top in ("trace", "patch", "arch"):
        for d, _, files in os.walk(os.path.join(ROOT, b, top)):
            tracer += [os.path.join(d, f) for f in files if f.endswith(".o")]
    demo = os.path.join(ROOT, b, "demo", "demo.c.o")
    src, have = sleds_in(tracer + [demo])
    ok = rc == 0 and b.endswith("-clang-xray") and nrc == 0 and src == 0 and len(tracer) > 40 \
        and have == {demo} and os.path.exists(os.path.join(ROOT, elf))
    report(bool(ok), "%s INSTR=xray kernel builds with clang and -Werror into %s, check-nofp "
           "passes, none of %d tracer objects has a sled, the demo has (%.0fs)"
           % (arch, b or "?", len(tracer), secs),
           out + "\n" + nofp + "\nwith sleds: " + " ".join(sorted(have)))
    return bool(ok)


def suites(arch, report, save_log):
    rc, out, secs = boot(arch, "bt.test=" + SUITES, 600)
    save_log(arch + "-xray-suites", out)
    cases = re.findall(r"^    (not ok|ok) \d+ (\S+)(.*)$", out, re.M)
    no_fentry = {c[1] for c in cases if c[0] == "ok" and c[2] == " # SKIP " + NO_FENTRY}
    bad = [c[1] for c in cases if c[0] != "ok" or ("SKIP" in c[2] and c[1] not in SLOW_SKIP
                                                   and c[1] not in no_fentry)]
    if no_fentry != NO_FENTRY_CASES[arch]:
        bad.append("arch_ftrace skipped %s, not %s" % (sorted(no_fentry), sorted(NO_FENTRY_CASES[arch])))
    done = re.findall(r"^ok \d+ (\S+)$", out, re.M)
    xray = re.findall(r"^    ok \d+ (table_covers_every_sled|every_sled_holds_its_state|"
                      r"sleds_switch_together_under_fire)$", out, re.M)
    ok = rc == 0 and cases and not bad and sorted(done) == sorted(SUITES.split(",")) and len(xray) == 3
    report(bool(ok), "%s INSTR=xray: suites %s, %d cases ok (%.0fs)%s"
           % (arch, SUITES, len(cases), secs, "; failed or skipped: " + ", ".join(bad) if bad else ""),
           out)


def refuse(arch, report, save_log):
    for suite, case, what in (("xray_refuse", "corrupt_sled_is_refused", "other bytes than the table says"),
                              ("xray_refuse_func", "sled_function_word_is_refused",
                               "the way back to another function")):
        rc, out, _ = boot(arch, "bt.test=" + suite, 120)
        save_log(arch + "-" + suite.replace("_", "-"), out)
        ok = rc == 0 and re.search(r"^ftrace: tracing disabled: sled of xt_refuse_target at [0-9a-f]+ "
                                   r"holds unexpected bytes \(EILSEQ\)$", out, re.M) and \
            re.search(r"^    ok 1 %s$" % case, out, re.M)
        report(bool(ok), "%s INSTR=xray: a sled holding %s is refused, "
               "tracing killed naming it, nothing written" % (arch, what), out)


def demo(arch, report, save_log):
    script = os.path.join(ROOT, "build", arch + "-xray-demo-script.txt")
    os.makedirs(os.path.dirname(script), exist_ok=True)
    with open(script, "wb") as f:
        f.write(DEMO_SCRIPT)
    with open(script, "rb") as f:
        rc, out, secs = run(["make", "-s", "--no-print-directory", "qemu-" + arch, INSTR,
                             "CMDLINE=" + DEMO_CMDLINE], 300,
                            env={"SMP": "4", "TIMEOUT": "200"}, stdin=f)
    save_log(arch + "-xray-demo", out)
    m = re.search(r"demo: .* (\d+) bytes found \(expected (\d+)\)", out)
    fn = re.search(r"^# tracer: function$", out, re.M) and \
        re.search(r"^ +\S+-\d+ +\[\d{3}\] \S+ +\d+\.\d+: vfs_stat <-worker_main$", out, re.M) and \
        re.search(r"^ +\S+-\d+ +\[\d{3}\] \S+ +\d+\.\d+: path_walk <-vfs_stat$", out, re.M)
    taken = "Operation not supported" not in out and \
        re.search(r"^trace> cat current_tracer\nfunction_graph$", out, re.M) and \
        "baretrace: script done, 0 command(s) failed" in out
    ok = m and m.group(1) == m.group(2) and fn and taken and "baretrace: demo returned 0" in out
    report(bool(ok), "%s INSTR=xray: the demo traced by the function tracer on entry sleds; "
           "then function_graph and the profiler switched on from the shell (%.0fs)" % (arch, secs), out)
    checks_xgraph.vfs_stat_flat(arch, out[out.rfind("trace> cat trace"):], report)


def xray_group(arch, report, save_log):
    options(arch, report)
    if build(arch, report):
        suites(arch, report, save_log)
        refuse(arch, report, save_log)
        demo(arch, report, save_log)
        checks_xgraph.xgraph_checks(arch, report, save_log, boot, kernel_path(arch))
        checks_xapp.app_checks(arch, report, save_log)
