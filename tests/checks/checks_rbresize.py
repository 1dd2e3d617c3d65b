"""checks_rbresize.py — issue 21's ring-buffer cases as shell sessions (the
cases resize-keeps-events and lost-lines-in-trace, each a script piped to
the shell of one boot, as `make qemu-ARCH CMDLINE= < script` runs it).

For tests/run.py (group shell):
    import checks_rbresize
    checks_rbresize.checks(arch, run, report, kernel_path, save_log, smp)

tests/shell/rbresize-resize.txt: the function tracer records a few events,
tracing off, then buffer_size_kb grows (64) and shrinks (4, two pages):
`cat trace` is the same text, header and events, all three times (Linux's
ring_buffer_resize keeps the events; here they used to be emptied).

tests/shell/rbresize-lost.txt: an 8 KB buffer (3 pages per CPU) overflows
in overwrite mode.  `cat trace` twice: the same text, no LOST line, the
losses in the header only (entries-written > entries-in-buffer).  Then a
shrink to 2 pages: entries-written unchanged, each CPU keeps its newest
events (the end of what it had), the per-CPU stats add up (entries +
overrun + dropped = written).  trace_pipe then prints one
`CPU:N [LOST N EVENTS]` per CPU, N = that CPU's overrun + dropped, and every
event left; afterwards CPU 0's stats read them all.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE_DATA = 4080
HEADER = re.compile(r"^# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:(\d+)$", re.M)
EVENT = re.compile(r"^ *\S+-\d+ +\[(\d{3})\] .*$", re.M)
STATS = re.compile(r"^entries: (\d+)\noverrun: (\d+)\n.*?^dropped events: (\d+)\nread events: (\d+)$",
                   re.M | re.S)


def _session(arch, run, kernel_path, script, smp):
    with open(os.path.join(ROOT, "tests", "shell", script), "rb") as f:
        rc, out, _ = run(["tools/qemu-run.sh", arch, kernel_path(arch), ""], 150,
                         env={"SMP": str(smp), "TIMEOUT": "120"}, stdin=f)
    blocks = []                       # (command, its output), in order
    for part in out.split("trace> ")[1:]:
        cmd, _, answer = part.partition("\n")
        blocks.append((cmd, answer))
    return rc, out, blocks


def _answers(blocks, cmd):
    return [a for c, a in blocks if c == cmd]


def _kb(kb):
    """buffer_size_kb's reading after `echo kb > buffer_size_kb`."""
    pages = max(2, -(-kb * 1024 // PAGE_DATA))
    return "%d\n" % (pages * PAGE_DATA // 1024)


def _per_cpu(text):
    lines = {}
    for m in EVENT.finditer(text):
        lines.setdefault(int(m.group(1)), []).append(m.group(0))
    return lines


def _stats(answer):
    m = STATS.search(answer)
    return tuple(int(x) for x in m.groups()) if m else None


def resize_keeps(arch, run, report, kernel_path, save_log, smp):
    rc, out, blocks = _session(arch, run, kernel_path, "rbresize-resize.txt", smp)
    save_log(arch + "-rbresize-resize", out)
    traces = _answers(blocks, "cat trace")
    sizes = _answers(blocks, "cat buffer_size_kb")
    h = HEADER.search(traces[0]) if traces else None
    n = len(EVENT.findall(traces[0])) if traces else 0
    ok = rc == 0 and len(traces) == 3 and h and int(h.group(1)) == int(h.group(2)) == n > 0 and \
        traces[1] == traces[0] and traces[2] == traces[0] and sizes == [_kb(64), _kb(4)]
    report(bool(ok), "%s shell resize-keeps-events: `cat trace` the same (%d events, header "
           "and all) after buffer_size_kb grows to 64 and shrinks to 4" % (arch, n), out)


def lost_lines(arch, run, report, kernel_path, save_log, smp):
    rc, out, blocks = _session(arch, run, kernel_path, "rbresize-lost.txt", smp)
    save_log(arch + "-rbresize-lost", out)
    traces = _answers(blocks, "cat trace")
    heads = [HEADER.search(t) for t in traces]
    if rc != 0 or len(traces) != 3 or not all(heads):
        report(False, "%s shell lost-lines-in-trace: the session ran" % arch, out)
        return
    (in0, w0, _), (in2, w2, _) = [tuple(int(x) for x in h.groups()) for h in (heads[0], heads[2])]
    cpu1 = _stats(_answers(blocks, "cat per_cpu/cpu1/stats")[0])
    ok = cpu1 and cpu1[1] > 0 and traces[0] == traces[1] and "LOST" not in traces[0] and \
        w0 > in0 == len(EVENT.findall(traces[0]))
    report(bool(ok), "%s shell lost-lines-in-trace: `cat trace` twice the same, losses in its "
           "header only (%d/%d), no LOST line" % (arch, in0, w0), out)

    before, after = _per_cpu(traces[0]), _per_cpu(traces[2])
    shrunk = [c for c, _ in blocks].index("echo 4 > buffer_size_kb")
    stats = {c: _stats(a) for c in range(smp)
             for a in _answers(blocks[shrunk:], "cat per_cpu/cpu%d/stats" % c)[:1]}
    ok = w2 == w0 and in2 < in0 and "LOST" not in traces[2] and \
        all(s for s in stats.values()) and len(stats) == smp and \
        all(after.get(c, []) == before.get(c, [])[len(before.get(c, [])) - len(after.get(c, [])):]
            for c in range(smp)) and \
        sum(s[0] for s in stats.values()) == in2 and \
        sum(s[0] + s[1] + s[2] for s in stats.values()) == w2
    report(bool(ok), "%s shell: buffer_size_kb 8 -> 4 keeps each CPU's newest events "
           "(%d of %d), the oldest pages counted as overrun (entries + overrun + dropped = %d)"
           % (arch, in2, in0, w2), out)

    pipe = _answers(blocks, "cat trace_pipe")
    pipe = pipe[0] if pipe else ""
    lost = [(int(c), int(k)) for c, k in re.findall(r"^CPU:(\d+) \[LOST (\d+) EVENTS\]$", pipe, re.M)]
    want = sorted((c, s[1] + s[2]) for c, s in stats.items() if s and s[1] + s[2])
    last = _stats(_answers(blocks, "cat per_cpu/cpu0/stats")[-1])
    ok = lost and sorted(lost) == want and len(EVENT.findall(pipe)) == in2 > 0 and last and \
        last[0] == 0 and last[3] == stats[0][0]
    report(bool(ok), "%s shell: trace_pipe prints one LOST line per CPU (overrun + dropped) "
           "and the %d events, then read events counts them" % (arch, in2), out)


def checks(arch, run, report, kernel_path, save_log, smp):
    resize_keeps(arch, run, report, kernel_path, save_log, smp)
    lost_lines(arch, run, report, kernel_path, save_log, smp)
