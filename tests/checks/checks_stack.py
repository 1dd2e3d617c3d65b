"""Kernel stack overflows (tests/guest/fixtures/stack.c), for tests/run.py's crash group.

Each case prints the stack it is about to overflow; the report must name the
overflow with that stack's bounds, its owner and context, put the faulting
address in the page right below the stack (inside its guard), backtrace
through the recursion, run the trace dump (ftrace_dump_on_oops) and exit 3.
The thread case also has its canary (the slot below the guard) checked from
the panic path: not one byte changed.

Mutations these checks caught (both arches unless named): guards left mapped
(no report, or a timeout); arm64 without the entry's guard check (the fault
address walks to the bottom of the guard and the canary is overwritten);
x86-64 not reading a double fault with CR2 in a guard as an overflow (no
overflow report).
"""
import re

STACK_SIZE = 32 * 1024
PAGE = 4096
CMDLINE = "ftrace=function_graph ftrace_filter=stk_* trace_buf_size=16k ftrace_dump_on_oops"

CASES = (
    # suite, what the case prints first, recursive function, stack use, context
    ("crash_stack", r"^crash_stack: thread (?P<name>\S+) \(tid (?P<tid>\d+)\) "
     r"stack \[(?P<lo>[0-9a-f]{16})-(?P<hi>[0-9a-f]{16})\)$", "stk_down", "thread", "thread"),
    ("crash_stack_irq", r"^crash_stack_irq: recursing in the timer interrupt on (?P<name>\S+), "
     r"stack \[(?P<lo>[0-9a-f]{16})-(?P<hi>[0-9a-f]{16})\)$", "stk_irq_down", "boot/idle",
     "interrupt"),
)


def check_log(out, rc, suite, announce, fn, use, ctx):
    """The reasons the log of one case is wrong (empty: right)."""
    bad = []
    m = re.search(announce, out, re.M)
    if rc != 3:
        bad.append("exit status %d, not 3" % rc)
    if not m:
        return bad + ["the case did not announce its stack"]
    lo, hi = int(m.group("lo"), 16), int(m.group("hi"), 16)
    if hi - lo != STACK_SIZE:
        bad.append("announced stack is not %d bytes" % STACK_SIZE)
    tid = m.groupdict().get("tid") or "0"
    head = re.search(r"^FATAL EXCEPTION on CPU (\d+): kernel stack overflow \(write\) at \S+\n"
                     r"  pc [0-9a-f]{16}  address ([0-9a-f]{16})  code [0-9a-f]+  thread (\S+)\n"
                     r"  stack overflow: thread (\S+) \(tid (\d+)\) on CPU (\d+), in (\S+) context\n"
                     r"  (\S+) stack \[([0-9a-f]{16})-([0-9a-f]{16})\)  "
                     r"guard \[([0-9a-f]{16})-([0-9a-f]{16})\)  caught as: (.+)$", out, re.M)
    if not head:
        return bad + ["no kernel stack overflow report"]
    g = head.groups()
    addr = int(g[1], 16)
    if g[2] != m.group("name") or g[3] != m.group("name") or g[4] != tid or g[0] != g[5]:
        bad.append("report names %s (tid %s) on CPU %s, not the announced %s (tid %s)"
                   % (g[3], g[4], g[5], m.group("name"), tid))
    if g[6] != ctx or g[7] != use:
        bad.append("report says %s context, %s stack; want %s, %s" % (g[6], g[7], ctx, use))
    if (int(g[8], 16), int(g[9], 16), int(g[10], 16), int(g[11], 16)) != \
            (lo, hi, lo - STACK_SIZE, lo):
        bad.append("report's stack or guard bounds differ from the announced stack")
    if not lo - PAGE <= addr < lo:
        bad.append("fault address %x not in the page below the stack %x" % (addr, lo))
    bt = out[head.end():]
    if not re.match(r"\n( [^\n]*\n)*Backtrace:\n", bt) or \
            len(re.findall(r"^  \[<[0-9a-f]{16}>\] %s\+0x" % fn, bt, re.M)) < 8:
        bad.append("no backtrace through %s" % fn)
    dump = re.search(r"^Dumping ftrace buffer:\n-+\n# tracer: function_graph\n", bt, re.M)
    if not dump or len(re.findall(r"\| +%s\(\) \{$" % fn, bt[dump.end():], re.M)) < 10:
        bad.append("no trace dump with %s's calls" % fn)
    if "---[ end of panic ]---" not in bt:
        bad.append("no end of panic")
    if suite == "crash_stack":
        c = re.search(r"^crash_stack: canary below the guard: (\d+) of %d bytes changed$"
                      % STACK_SIZE, bt, re.M)
        if not c or c.group(1) != "0" or (dump and c.start() > dump.start()):
            bad.append("canary below the guard not reported intact before the dump")
    return bad


def stack_overflow(arch, boot, report, save_log):
    for suite, announce, fn, use, ctx in CASES:
        rc, out, _ = boot(arch, "bt.test=%s %s" % (suite, CMDLINE), timeout=120)
        save_log("%s-%s" % (arch, suite.replace("_", "-")), out)
        bad = check_log(out, rc, suite, announce, fn, use, ctx)
        report(not bad, "%s %s: kernel stack overflow in %s context reported (bounds, guard "
               "address, backtrace, trace dump%s), exit 3%s" % (
                   arch, suite, ctx, ", canary intact" if suite == "crash_stack" else "",
                   "" if not bad else ": " + "; ".join(bad)), out)
