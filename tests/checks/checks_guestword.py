"""checks_guestword.py — issue 21, "The guest keeps its word": what the guest
is given (typed bytes, boot options, the command line through make) means
exactly that or is refused with a message, and a run ends with the status
the README promises.  tests/run.py group `input`, per arch:

  shell    one scripted boot: `cat trace_pipe` (all CPUs, and one) ends once
           drained while function and function_graph trace every function,
           and the reader's own calls are never in it; non-ASCII bytes kept
           as typed (the marker) or the write refused (a filter); an escape
           sequence dropped whole; a control byte refuses its line; a POSIX
           class refused by name; the demo's interrupt lookups counted per run
  options  one boot with every boot option given what it does not take (a
           value to a flag, none or an empty one to the others): each refused
           with the reason and without effect (the demo runs, status 0)
  select   bt.bench= / bt.test= naming nothing: said, nothing runs, status 1
  cmdline  1100 bytes are taken whole (the script runs); 3000 are refused by
           qemu-run (status 2) and, past it, by the guest (status 1)
  make     CMDLINE through make byte for byte; make exits 2 with the run's
           status in its error line; tools/make-run exits 3 and 124
"""
import os
import re
import tempfile

from checklib import ROOT, run

SMP = "2"


def _script(arch, name, data, save_log):
    path = os.path.join(ROOT, "build", "test-logs", "%s-%s-script.txt" % (arch, name))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _boot(arch, kernel, cmdline, script=None, timeout=60, env=None):
    e = {"SMP": SMP, "TIMEOUT": str(timeout)}
    e.update(env or {})
    cmd = ["tools/qemu-run.sh", arch, kernel, cmdline]
    if script is None:
        return run(cmd, timeout + 30, env=e)
    with open(script, "rb") as f:
        return run(cmd, timeout + 30, env=e, stdin=f)


def _blocks(out):
    """The answer printed after each prompt, keyed by the command."""
    blocks = {}
    for part in out.split("trace> ")[1:]:
        cmd, _, answer = part.partition("\n")
        blocks.setdefault(cmd, []).append(answer.rstrip("\n"))
    return blocks


SHELL = (
    # trace_pipe with every function traced: each read ends.
    b"echo 64 > buffer_size_kb\n"
    b"echo function > current_tracer\n"
    b"cat trace_pipe\n"
    b"cat per_cpu/cpu0/trace_pipe\n"
    b"echo function_graph > current_tracer\n"
    b"cat trace_pipe\n"
    b"echo nop > current_tracer\n"
    b"echo pipe drained > trace_marker\n"
    b"cat trace_pipe\n"
    # Bytes: kept as typed, or the line refused.
    b"echo '\xc3\xa9' > set_ftrace_filter\n"
    b"echo 'vfs_stat\xc3\xbf' > set_ftrace_notrace\n"
    b"cat set_ftrace_filter\n"
    b"cat set_ftrace_notrace\n"
    b"echo h\xc3\xa9llo w\xc3\xb6rld > trace_marker\n"
    b"echo a\x1b[Ab\x1bOPc\x1b[1;5Cd > trace_marker\n"
    b"echo x\x01y > trace_marker\n"
    b"echo ab\x7f\xc3\xa9\x7fc > trace_marker\n"
    b"cat trace\n"
    b"echo '[[:alpha:]]*' > set_ftrace_filter\n"
    # The demo's interrupt lookups, per run.
    b"echo demo_tick > set_ftrace_filter\n"
    b"echo function > current_tracer\n"
    + b"run\ncat trace\necho > trace\n" * 4
)
MARK = r"^ +init-1 +\[\d{3}\] \S{5} +\d+\.\d{6}: tracing_mark_write: %s$"


def shell(arch, kernel, report, save_log):
    script = _script(arch, "input-shell", SHELL, save_log)
    rc, out, secs = _boot(arch, kernel, "", script)
    save_log(arch + "-input-shell", out)
    b = _blocks(out)
    pipes = b.get("cat trace_pipe", []) + b.get("cat per_cpu/cpu0/trace_pipe", [])
    traces = b.get("cat trace", [])
    marks = re.findall(r"tracing_mark_write: (.*)$", traces[0] if traces else "", re.M)
    lookups = [int(n) for n in re.findall(r"(\d+) lookups from the timer interrupt", out)]
    ticks = [len(re.findall(r"^ .*\] \S{5} +\d+\.\d{6}: demo_tick <-", t, re.M)) for t in traces[1:]]
    cls = "character classes ('[:alpha:]' and the like) are not supported"
    checks = [
        ("cat trace_pipe ends once drained under function and function_graph (all CPUs, "
         "one CPU), the reader's own calls not in it",
         len(pipes) == 4 and not any("thread_comm" in p or "trace_print" in p for p in pipes) and
         re.match(MARK % "pipe drained", pipes[2]) is not None and
         "baretrace: script done, 4 command(s) failed" in out and rc == 1),
        ("a non-ASCII filter matches nothing: refused, filters unchanged",
         b.get("echo '\u00e9' > set_ftrace_filter") ==
         ["echo: write error: Invalid argument (no function matches '\u00e9')"] and
         b.get("echo 'vfs_stat\u00ff' > set_ftrace_notrace") ==
         ["echo: write error: Invalid argument (no function matches 'vfs_stat\u00ff')"] and
         b.get("cat set_ftrace_filter") == ["#### all functions enabled ####"] and
         b.get("cat set_ftrace_notrace") == ["#### no functions disabled ####"]),
        ("markers keep their bytes; escape sequences dropped whole (a bell); a control byte "
         "refuses the line; backspace erases a whole UTF-8 character",
         marks == ["h\u00e9llo w\u00f6rld", "abcd", "ac"] and
         "trace> echo a\ab\ac\ad > trace_marker\n" in out and
         b.get("echo xy > trace_marker") ==
         ["shell: control character 0x01 in the line, not run"]),
        ("a POSIX character class is refused by name",
         b.get("echo '[[:alpha:]]*' > set_ftrace_filter") ==
         ["echo: write error: Invalid argument (invalid pattern '[[:alpha:]]*': %s)" % cls]),
        ("the demo's interrupt lookups are counted per run (%s, traced %s)" % (lookups, ticks),
         len(lookups) == 5 and ticks == lookups[1:]),
    ]
    for name, ok in checks:
        report(bool(ok), "%s input shell: %s" % (arch, name), out if not ok else "")


# Every boot option, with what it takes: BT_PARAM (a value), BT_PARAM_FLAG
# (none), BT_PARAM_OPT (optional), read from the sources so a new option is
# checked as soon as it is registered.
PARAM_RE = re.compile(r'^BT_PARAM(|_FLAG|_OPT)\("([^"]+)"', re.M)


def boot_params():
    params = {}
    for top in ("boot", "trace", "lib", "demo", "patch", "tests/guest", "arch"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for fn in files:
                if fn.endswith(".c"):
                    with open(os.path.join(d, fn)) as f:
                        for kind, name in PARAM_RE.findall(f.read()):
                            params[name] = kind
    return params


def options(arch, kernel, report, save_log):
    params = boot_params()
    given, want = [], []
    for name, kind in sorted(params.items()):
        if kind == "_FLAG":
            tries = [(name + "=0", "takes no value")]
        elif kind == "_OPT":
            tries = [(name + "=", "an empty value")]
        else:
            tries = [(name, "needs a value"), (name + "=", "needs a value")]
        for opt, why in tries:
            given.append(opt)
            want += ["%s: %s" % (name, why), "baretrace: bad boot option '%s', ignored" % opt]
    rc, out, _ = _boot(arch, kernel, " ".join(given), timeout=60)
    save_log(arch + "-input-options", out)
    reason = re.compile(r"^(%s): (takes no value|needs a value|an empty value)$" %
                        "|".join(re.escape(p) for p in params))
    got = [l for l in out.splitlines() if reason.match(l) or "boot option" in l]
    ok = rc == 0 and got == want and "baretrace: demo returned 0" in out and \
        "# tracer:" not in out and "KTAP" not in out and "\nbench: " not in out and \
        "trace> " not in out and len(params) >= 17
    report(ok, "%s input options: each of %d boot options given what it does not take is "
           "refused with the reason, without effect (exit %d)" % (arch, len(params), rc),
           out if not ok else "")


def select(arch, kernel, report, save_log):
    rc, out, _ = _boot(arch, kernel, "bt.bench=nosuch")
    save_log(arch + "-input-bench", out)
    ok = rc == 1 and "bench: no benchmark matches 'nosuch'\n" in out and "bench: done 0" in out
    report(ok, "%s input bt.bench=nosuch: said, status 1 (got %d)" % (arch, rc), out)
    rc, out, _ = _boot(arch, kernel, "bt.test=boot,nosuch")
    save_log(arch + "-input-test", out)
    ok = rc == 1 and '# no test suite matches "nosuch"\n' in out and "KTAP" not in out
    report(ok, "%s input bt.test=boot,nosuch: said, nothing runs, status 1 (got %d)" % (arch, rc),
           out)


def make(args, stdin_path=None, env=None, timeout=150, wrapper=False):
    cmd = (["tools/make-run"] if wrapper else ["make"]) + ["-s", "--no-print-directory"] + args
    e = {"SMP": SMP, "TIMEOUT": "60"}
    e.update(env or {})
    if stdin_path is None:
        return run(cmd, timeout, env=e)
    with open(stdin_path, "rb") as f:
        return run(cmd, timeout, env=e, stdin=f)


def cmdline(arch, kernel, report, save_log):
    # The README's case, through make: the long line is taken, the script runs.
    long = "x" * 1100
    script = _script(arch, "input-long", b"cat nosuchfile\n", save_log)
    rc, out, _ = make(["qemu-" + arch, "CMDLINE=" + long], script, wrapper=True)
    save_log(arch + "-input-long", out)
    ok = rc == 1 and ('command line "bt.script %s"\n' % long) in out and \
        ("unknown boot option '%s...', ignored\n" % long[:200]) in out and \
        "cat: nosuchfile: No such file or directory" in out
    report(ok, "%s input 1100-byte command line taken whole, the script runs (got %d)" % (arch, rc),
           out)
    rc, out, _ = _boot(arch, kernel, "x" * 3000)
    ok = rc == 2 and "qemu-run: the command line has 3000 bytes, more than the 2047 the guest " \
        "takes: not run\n" in out and "baretrace" not in out
    report(ok, "%s input 3000-byte command line refused before QEMU, status 2 (got %d)" % (arch, rc),
           out)
    rc, out, _ = _boot(arch, kernel, "x" * 3000, env={"CMDLINE_CHECK": "0"})
    save_log(arch + "-input-toolong", out)
    ok = rc == 1 and "baretrace: the command line has 3000 bytes, more than the 2047 this kernel " \
        "takes: not run\n" in out and "running demo" not in out
    report(ok, "%s input 3000-byte command line refused by the guest, status 1 (got %d)" % (arch, rc),
           out)


# Quotes, $ and make's own $(...), a backslash, runs of blanks.
TRICKY = ('ftrace=function "ftrace_filter=vfs_stat path_walk" trace_buf_size=8k q=\'$HOME\' '
          'b=\\x  c="$(DEMO_FUNCS)" d=$$ e=`id`')


def make_checks(arch, kernel, report, save_log):
    rc, out, _ = make(["qemu-" + arch, "CMDLINE=" + TRICKY])
    save_log(arch + "-input-make-quotes", out)
    ok = rc == 0 and ('command line "%s"\n' % TRICKY) in out and "# tracer: function\n" in out and \
        re.search(r"^ .*: vfs_stat <-worker_main$", out, re.M) and \
        re.search(r"^ .*: path_walk <-vfs_stat$", out, re.M)
    report(bool(ok), "%s input make CMDLINE=... reaches the guest byte for byte" % arch, out)
    rc, out, _ = make(["qemu-" + arch, "CMDLINE=bt.test=crash_panic"])
    save_log(arch + "-input-make-panic", out)
    ok = rc == 2 and re.search(r"^make(\[\d+\])?: \*\*\* \[Makefile:\d+: qemu-%s\] Error 3$" % arch, out, re.M)
    report(bool(ok), "%s input make: a panic exits 2, 'Error 3' (got %d)" % (arch, rc), out)
    rc, out, _ = make(["qemu-" + arch, "CMDLINE=bt.test=crash_panic"], wrapper=True)
    report(rc == 3, "%s input tools/make-run: a panic exits 3 (got %d)" % (arch, rc), out)
    rc, out, _ = make(["qemu-" + arch, "CMDLINE=bt.interactive"], env={"TIMEOUT": "8"},
                      wrapper=True)
    report(rc == 124 and "qemu-run: timeout after 8s" in out,
           "%s input tools/make-run: a timeout exits 124 (got %d)" % (arch, rc), out)


def input_checks(arch, kernel_path, report, save_log):
    kernel = kernel_path(arch)
    shell(arch, kernel, report, save_log)
    options(arch, kernel, report, save_log)
    select(arch, kernel, report, save_log)
    cmdline(arch, kernel, report, save_log)
    make_checks(arch, kernel, report, save_log)
