"""checks_shell.py — the scripted shell session (tests/shell/session.txt)
through piped stdin, against its expected transcript tests/shell/session.golden.

The golden file is the session's transcript from the first prompt on, masked
(mask_session): a check per "## NAME" section of it (golden_compare,
tests/checks/checklib.py), then the relations between parts of the output that a
transcript cannot state (relations): which CPU's files show the markers,
the profiler's hits summed over the CPUs, the tracing_cpumask run's CPUs
and tasks.

Masked, as they vary from run to run or between the arches: timestamps
(not 0.000000), graph durations, trampoline addresses and function sizes,
a trace's task-pid, CPU and flags columns, the order of a trace's lines
(folded to "COUNTx LINE", sorted, a CPU's lines between its ==========>
and <========== marked "irq", a graph call an interrupt split in two,
"name() {" ... "}", counted as one "name();"), the profiler's rows, the per-CPU files that
name the CPU a marker landed on, the pids of saved_cmdlines.  Counts that
vary are <N:name> in the golden file: the same name is the same number
(the demo's timer-interrupt lookups and the graph's interrupt calls).
"""
import os
import re

from checklib import ROOT, golden_compare, mask_durations

GOLDEN = os.path.join(ROOT, "tests/shell/session.golden")
SCRIPT = os.path.join(ROOT, "tests/shell/session.txt")

_EVENT = re.compile(r"^ *\S+-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: (.*)$")
_GRAPH = re.compile(r"^ (\d+)\) (.*)$")
_DASHES = " " + "-" * 42
_SIZE = re.compile(r"(\+0x[0-9a-f]+)/0x[0-9a-f]+")
_PROFILE_ROW = re.compile(r"^  \w+ +\d+ +[0-9.]+ us ")
# Files whose text depends on the CPU a marker landed on: relations() checks them.
_PER_CPU = re.compile(r"^cat per_cpu/cpu\d/(trace|trace_pipe|stats)$")


def _fold(body):
    """A trace's event or graph lines, masked, as sorted "COUNTx LINE"."""
    counts, irq = {}, set()                     # the CPUs inside an interrupt
    for line in body:
        m = _EVENT.match(line)
        if m:
            key = "<task> [<cpu>] <flags> <ts>: " + _SIZE.sub(r"\1/<size>", m.group(1))
        elif line == _DASHES or " => " in line:
            key = "<cpu>) <task switch>"
        else:
            g = _GRAPH.match(line)
            cpu, rest = g.group(1), re.sub(r"\|  +", "|  ", g.group(2))
            # A call an interrupt split ("name() {" ... "}") is one call.
            if re.match(r"^ <duration>  \|  \}$", rest):
                continue
            rest = re.sub(r"^ +\|  (\w+)\(\) \{$", r" <duration>  |  \1();", rest)
            key = ("irq " if cpu in irq and "==========" not in rest else "") + "<cpu>) " + rest
            if "==========>" in rest:
                irq.add(cpu)
            elif "<==========" in rest:
                irq.discard(cpu)
        counts[key] = counts.get(key, 0) + 1
    return ["%dx %s" % (n, k) for k, n in sorted(counts.items())]


def mask_session(out):
    """The transcript from the first prompt on, masked as the module says."""
    start = out.find("trace> ")
    lines = mask_durations(out[start:] if start >= 0 else "").split("\n")
    res, body, cmd = [], [], ""
    for line in lines:
        if line.startswith("trace> "):
            cmd = line[len("trace> "):]
        elif _PER_CPU.match(cmd):
            continue                                   # relations() checks these
        elif _EVENT.match(line) or line == _DASHES or _GRAPH.match(line) or \
                (body and line == ""):
            if line:
                body.append(line)
            continue
        if body:
            res += _fold(body)
            body = []
        if _PROFILE_ROW.match(line):
            line = "  <profile row>"
        elif cmd == "cat saved_cmdlines" and re.match(r"^\d+ \S+$", line) and line != "1 init":
            line = "<pid> <comm>"
        line = re.sub(r"(?<![\d.])(?!0\.000000)\d+\.\d{6}\b", "<ts>", line)
        line = re.sub(r"tramp: 0x[0-9a-f]+", "tramp: <addr>", line)
        line = _SIZE.sub(r"\1/<size>", line)
        res.append(line)
    res += _fold(body)
    # Runs of identical lines (saved_cmdlines' pids, profile rows) folded too.
    out_lines = []
    for line in res:
        if line in ("<pid> <comm>", "  <profile row>") and out_lines and \
                out_lines[-1].endswith(line) and re.match(r"^\d+x ", out_lines[-1]):
            n = int(out_lines[-1].split("x", 1)[0]) + 1
            out_lines[-1] = "%dx %s" % (n, line)
        elif line in ("<pid> <comm>", "  <profile row>"):
            out_lines.append("1x " + line)
        else:
            out_lines.append(line)
    return "\n".join(out_lines).rstrip("\n") + "\n"


def sections(golden):
    """[(name, text)] of the golden file's "## NAME" sections, in order."""
    res = []
    for part in re.split(r"^## ", golden, flags=re.M)[1:]:
        name, _, text = part.partition("\n")
        res.append((name, text))
    return res


def blocks_of(out):
    """The answer printed after each prompt, keyed by the command (a list:
    a command may run more than once)."""
    blocks = {}
    for part in out.split("trace> ")[1:]:
        cmd, _, answer = part.partition("\n")
        blocks.setdefault(cmd, []).append(answer.rstrip("\n"))
    return blocks


def relations(blocks, smp):
    """What the masked transcript cannot state: [(name, ok)]."""
    def one(cmd, i=0):
        got = blocks.get(cmd, [])
        return got[i] if len(got) > i else None
    header = ("# tracer: nop\n#\n# entries-in-buffer/entries-written: %s   #P:%d\n#\n"
              "#                                _-----=> irqs-off/BH-disabled\n"
              "#                               / _----=> need-resched\n"
              "#                              | / _---=> hardirq/softirq\n"
              "#                              || / _--=> preempt-depth\n"
              "#                              ||| / _-=> migrate-disable\n"
              "#                              |||| /     delay\n"
              "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
              "#              | |         |   |||||     |         |")
    line = r" +init-1 +\[00(\d)\] \.{5} +\d+\.\d{6}: tracing_mark_write: %s"
    # The CPU each marker landed on: the one whose file shows it.
    traces = [one("cat per_cpu/cpu%d/trace" % c) or "" for c in range(smp)]
    shown = [c for c in range(smp) if re.search(line % "per-cpu marker", traces[c])]
    n1 = shown[0] if len(shown) == 1 else -1
    pipes = [one("cat per_cpu/cpu%d/trace_pipe" % c) for c in range(smp)]
    piped = [c for c in range(smp) if pipes[c]]
    n2 = piped[0] if len(piped) == 1 else -1

    def stats(entries, nbytes, oldest, read):
        return re.compile(r"entries: %d\noverrun: 0\ncommit overrun: 0\nbytes: %d\n"
                          r"oldest event ts: %s\nnow ts: +\d+\.\d{6}\ndropped events: 0\n"
                          r"read events: %d$" % (entries, nbytes, oldest, read))
    # The timer's lookups of each run: the boot's own, then the session's four
    # (function, function_graph, profiled, tracing_cpumask).
    ticks = [int(n) for n in re.findall(r"(\d+) lookups from the timer interrupt",
                                        "\n".join(blocks.get("run", [])))]
    prof_irq = ticks[2] if len(ticks) == 4 else -1
    # trace_stat/functionN: "  name   hits    total us ..." summed over the CPUs.
    prof_hits = {}
    for n in range(smp):
        for name, hits in re.findall(r"^  (\w+) +(\d+) +[0-9.]+ us ",
                                     one("cat trace_stat/function%d" % n) or "", re.M):
            prof_hits[name] = prof_hits.get(name, 0) + int(hits)
    # The function tracer's run with tracing_cpumask 1: (comm, pid, cpu, func).
    cpumask_trace = one("cat trace", 3) or ""
    masked = re.findall(r"^ *(\S+)-(\d+) +\[(\d{3})\] \S{5} +\d+\.\d{6}: (\S+) <-",
                        cpumask_trace, re.M)
    # The first run's trace, then the same with sym-offset and noprint-parent.
    calls = re.findall(r"^ *\S+-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: (\S+) <-(\S+)$",
                       one("cat trace") or "", re.M)
    symoff = re.findall(r"^ *\S+-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: (\S+)$",
                        one("cat trace", 1) or "", re.M)
    cmdlines = [tuple(l.split(" ", 1)) for l in (one("cat saved_cmdlines") or "").split("\n") if l]
    return [
        ("function profiler",
         prof_hits.get("vfs_stat") == 1600 + prof_irq and prof_hits.get("kind_name") == 1 and
         set(prof_hits) == {"vfs_stat", "kind_name"}),
        ("sym-offset, noprint-parent", len(symoff) == len(calls) > 0),
        ("tracing_cpumask",
         len(masked) > 0 and all(c == "000" and f == "vfs_stat" for _, _, c, f in masked) and
         ("# entries-in-buffer/entries-written: %d/%d " % (len(masked), len(masked)))
         in cpumask_trace),
        ("saved_cmdlines", {(p, n) for n, p, _, _ in masked if p != "0"} <= set(cmdlines)),
        ("per_cpu/cpuN/trace: that CPU's events under the whole buffer's header",
         n1 >= 0 and all(traces[c] == header % ("1/1", smp) for c in range(smp) if c != n1) and
         re.match("^" + re.escape(header % ("1/1", smp)) + "\n" + line % "per-cpu marker" + "$",
                  traces[n1]) and re.search(line % "per-cpu marker", traces[n1]).group(1) == str(n1)),
        ("per_cpu/cpuN/stats: entries, bytes, oldest event of that CPU only",
         n1 >= 0 and all(stats(0, 0, r" +0\.000000", 0).match(one("cat per_cpu/cpu%d/stats" % c) or "")
                         for c in range(smp) if c != n1) and
         stats(1, 36, r" +\d+\.\d{6}", 0).match(one("cat per_cpu/cpu%d/stats" % n1) or "")),
        ("echo > per_cpu/cpuN/trace clears that CPU only",
         n1 >= 0 and all(one("cat per_cpu/cpu%d/trace" % c, 1) ==
                         header % ("1/1" if c < n1 else "0/0", smp) for c in range(smp))),
        ("per_cpu/cpuN/trace_pipe: that CPU's events, consumed (read events)",
         n2 >= 0 and re.match("^" + line % "piped marker" + "$", pipes[n2]) and
         all(pipes[c] == "" for c in range(smp) if c != n2) and
         all(stats(0, 0, r" +0\.000000", 1 if c == n2 else 0).match(
             one("cat per_cpu/cpu%d/stats" % c, 1) or "") for c in range(smp))),
    ]


def shell_session(arch, run, report, kernel_path, save_log, smp):
    """Boot with the script on stdin; report each golden section and relation."""
    with open(SCRIPT, "rb") as f:
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch), ""], 150,
                         env={"SMP": str(smp), "TIMEOUT": "120"}, stdin=f)
    save_log(arch + "-shell", out)
    got, binds = mask_session(out), {}
    with open(GOLDEN) as f:
        parts = sections(f.read())
    # Cut the masked transcript before the prompt each section starts at;
    # a name's sections and relations are one check.
    got_lines = got.split("\n")
    prompts = [i for i, l in enumerate(got_lines) if l.startswith("trace> ")] + [len(got_lines)]
    checks, n = {}, 0
    for k, (name, text) in enumerate(parts):
        m = sum(1 for l in text.split("\n") if l.startswith("trace> "))
        lo = prompts[min(n, len(prompts) - 1)]
        hi = len(got_lines) if k == len(parts) - 1 else prompts[min(n + m, len(prompts) - 1)]
        same, diff = golden_compare(text, "\n".join(got_lines[lo:hi]), binds)
        checks.setdefault(name, []).append((same, diff))
        n += m
    for name, ok in relations(blocks_of(out), smp) + [("status", rc == 1)]:
        checks.setdefault(name, []).append((bool(ok), "" if ok else "%s: not so" % name))
    for name, res in checks.items():
        bad = [d for ok, d in res if not ok]
        report(not bad, "%s shell script: %s" % (arch, name),
               "\n".join(bad) + "\n(the serial log: build/test-logs/%s-shell.log)" % arch)
