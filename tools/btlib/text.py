"""text.py — the guest's `cat trace` text from a dump, byte for byte: the
"# tracer:" header, Linux's default header or the function_graph columns,
the function tracer's lines (trace/function.c, trace/output.c) and the
function_graph printer (trace/graph_output.c; trace/DESIGN.md "function_graph
output" describes it), all CPUs merged by time as the guest's iterator does.
"""
from . import events as E
from . import fsig as F

# enum trace_opt (trace/options.h): bit numbers in trace_opts.
(PRINT_PARENT, SYM_OFFSET, G_OVERRUN, G_CPU, G_OVERHEAD, G_PROC, G_DURATION, G_ABSTIME,
 G_IRQS, G_TAIL, G_RETVAL, G_RETVAL_HEX, G_ARGS, G_ARGS_STR) = range(14)

PRINT_DEPTH = 50
# funcgraph_exit's overrun word: bits 30, 31 are the trace stack's marks
# (trace/fgraph_frame.h FGRAPH_RET_GONE, FGRAPH_RET_LATE).
RET_LATE = 1 << 31
RET_GONE = 1 << 30
RET_MARKS = RET_LATE | RET_GONE
LINE_MAX = 1024
BANNER = " ------------------------------------------\n"

DEFAULT_HEADER = (
    "#                                _-----=> irqs-off/BH-disabled\n"
    "#                               / _----=> need-resched\n"
    "#                              | / _---=> hardirq/softirq\n"
    "#                              || / _--=> preempt-depth\n"
    "#                              ||| / _-=> migrate-disable\n"
    "#                              |||| /     delay\n"
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
    "#              | |         |   |||||     |         |\n")


class Printer:
    def __init__(self, dump):
        self.d = dump
        self.out = []
        self.it = E.merged(dump)
        self.last_pid = {}
        self.graph = {}               # cpu -> {"enter": [..], "irq": bool}

    def opt(self, o):
        return (self.d.opts >> o) & 1 == 1

    # ---- shared columns
    def comm(self, pid):
        if pid == 0:
            return "<idle>"
        return self.d.comms.get(pid, "<...>")

    def ts(self, cycles):
        ns = self.d.cycles_to_ns(cycles)
        return "%5d.%06d" % (ns // 1000000000, ns % 1000000000 // 1000)

    def context(self, ev):
        pc = ev.preempt
        depth = "0123456789abcdef"[pc & 15] if pc else "."
        return "%16s-%-7d [%03u] %s%s%s%s. %s: " % (
            self.comm(ev.pid), ev.pid, ev.cpu,
            "d" if ev.flags & E.FLAG_IRQS_OFF else ".",
            "N" if ev.flags & E.FLAG_NEED_RESCHED else ".",
            "h" if ev.flags & E.FLAG_HARDIRQ else ".", depth, self.ts(ev.ts))

    # ---- the function tracer
    def sym(self, addr):
        """An address as trace/function.c's put_sym prints it."""
        s = self.d.sym_lookup(addr)
        if not s:
            return "0x%x" % addr
        name, start, size = s
        if self.opt(SYM_OFFSET):
            return "%s+0x%x/0x%x" % (name, addr - start, size)
        return name

    def function(self, ev):
        if self.opt(PRINT_PARENT):
            self.out.append(self.context(ev) + "%s <-%s\n" % (self.sym(ev.ip), self.sym(ev.parent_ip)))
        else:
            self.out.append(self.context(ev) + "%s\n" % self.sym(ev.ip))

    def marker(self, ev):
        """trace_marker text in the function format (trace/marker.c)."""
        fn = self.d.sym_name(ev.ip)
        text = ev.buf.decode("utf-8", "replace")
        self.out.append(self.context(ev) + "%s: %s%s" % (
            fn if fn else "?", text, "" if text.endswith("\n") else "\n"))

    # ---- function_graph
    def cpu_col(self, cpu):
        top = max(self.d.ncpus - 1, 0)
        return " %*u) " % (len(str(top)), cpu)

    def proc(self, pid):
        comm = self.comm(pid)[:7]
        pidstr = "%d" % pid
        n = len(comm) + 1 + len(pidstr)
        sp = 14 - n if n < 14 else 0
        return " " * (sp // 2) + comm + "-" + pidstr + " " * (sp - sp // 2)

    def gcontext(self, ev):
        s = ""
        if self.opt(G_ABSTIME):
            ns = self.d.cycles_to_ns(ev.ts)
            s += "%5d.%06d |  " % (ns // 1000000000, ns % 1000000000 // 1000)
        if self.opt(G_CPU):
            s += self.cpu_col(ev.cpu)
        if self.opt(G_PROC):
            s += self.proc(ev.pid) + " | "
        return s

    def duration(self, cycles):
        if not self.opt(G_DURATION):
            return ""
        ns = self.d.cycles_to_ns(cycles & (2 ** 64 - 1))
        mark = " "
        if self.opt(G_OVERHEAD):
            for over, m in ((1000000000, "$"), (100000000, "@"), (10000000, "*"),
                            (1000000, "#"), (100000, "!"), (10000, "+")):
                if ns > over:
                    mark = m
                    break
        s = mark + " " if self.opt(G_OVERHEAD) else "  "
        us = "%d" % (ns // 1000)
        n = len(us)
        s += us
        if n < 7:
            digits = min(7 - n, 3)
            s += "." + ("%03d" % (ns % 1000))[:digits]
            n += digits + 1
        s += " us " + " " * (8 - n if n < 8 else 0)
        return s + "|  "

    def fill(self, f):
        return f if self.opt(G_DURATION) else ""

    def fname(self, func):
        n = self.d.sym_name(func)
        return n if n else "0x%x" % func

    def args(self, ev):
        if not ev.nargs:
            return "()"
        abi = F.ABI.get(self.d.arch, F.AAPCS64)
        return "(" + F.format_args(self.d.sigs.get(ev.func), ev.args, ev.strs,
                                   abi)[:LINE_MAX // 2 - 1] + ")"

    def ret(self, func, raw):
        r = F.format_ret(self.d.sigs.get(func), raw, self.opt(G_RETVAL_HEX))[:63]
        return " " + r if r else ""

    def gstate(self, cpu):
        return self.graph.setdefault(cpu, {"enter": [0] * PRINT_DEPTH, "irq": False, "depth": -1})

    def check_task(self, ev):
        prev = self.last_pid.get(ev.cpu, -1)
        if prev == ev.pid:
            return ""
        self.last_pid[ev.cpu] = ev.pid
        if prev == -1:
            return ""
        return (BANNER + self.cpu_col(ev.cpu) + self.proc(prev) + " => " + self.proc(ev.pid) +
                "\n" + BANNER + "\n")

    def arrow(self, ev, a):
        return self.gcontext(ev) + self.fill("  ") + a + self.fill(" |") + "\n"

    def prologue(self, ev):
        s = self.check_task(ev)
        g = self.gstate(ev.cpu)
        irq = bool(ev.flags & E.FLAG_HARDIRQ)
        if g["irq"] != irq:
            g["irq"] = irq
            s += self.arrow(ev, "==========>" if irq else "<==========")
        return s

    def epilogue(self, ev):
        g = self.gstate(ev.cpu)
        nxt = self.it.peek(ev.cpu)
        if not g["irq"] or nxt is None or len(nxt.data) < 8:
            return ""
        if not nxt.flags & E.FLAG_HARDIRQ:
            g["irq"] = False
            return self.arrow(ev, "<==========")
        return ""

    def remember(self, cpu, depth, func):
        # Linux's per-CPU depth, for comments: a leaf leaves the level above
        # it current, an open call its own.
        self.gstate(cpu)["depth"] = depth if func else depth - 1
        if depth < PRINT_DEPTH:
            self.gstate(cpu)["enter"][depth] = func

    def take_leaf(self, ev):
        nxt = self.it.peek(ev.cpu)
        if nxt is None or nxt.lost or len(nxt.data) < 48:
            return None
        if nxt.type != E.TRACE_GRAPH_RET or nxt.pid != ev.pid or nxt.func != ev.func:
            return None
        if nxt.overrun & RET_MARKS:     # a marked exit keeps its own line
            return None
        self.it.skip(ev.cpu)
        return nxt

    def indent(self, depth):
        """put_indent's spaces (u32 depth * 2), never more than a line keeps."""
        return " " * min(depth * 2 & 0xffffffff, LINE_MAX)

    def line(self, s):
        # gl_put keeps at most LINE_MAX - 1 bytes of a line being built.
        self.out.append(s if len(s) < LINE_MAX else s[:LINE_MAX - 1])

    def entry(self, ev):
        pre = self.prologue(ev)
        if pre:
            self.out.append(pre)
        s = self.gcontext(ev)
        ret = self.take_leaf(ev)
        if ret is not None:
            self.remember(ev.cpu, ev.depth, 0)
            s += self.duration(ret.rettime - ret.calltime) + self.indent(ev.depth)
            s += self.fname(ev.func) + self.args(ev) + ";"
            if self.opt(G_RETVAL):
                r = self.ret(ret.func, ret.retval)
                if r:
                    s += " /*" + r + " */"
            s += "\n"
        else:
            self.remember(ev.cpu, ev.depth, ev.func)
            s += self.fill("              |  ") + self.indent(ev.depth)
            s += self.fname(ev.func) + self.args(ev) + " {\n"
        self.line(s)
        post = self.epilogue(ev)
        if post:
            self.out.append(post)

    def exit(self, ev):
        if ev.depth >= PRINT_DEPTH:
            seen = True
        else:
            g = self.gstate(ev.cpu)["enter"]
            seen = g[ev.depth] == ev.func
            g[ev.depth] = 0
        pre = self.prologue(ev)
        if pre:
            self.out.append(pre)
        s = self.gcontext(ev) + self.duration(ev.rettime - ev.calltime) + self.indent(ev.depth)
        if ev.overrun & RET_MARKS:
            s += "} /* " + self.fname(ev.func) + \
                (" (late) */" if ev.overrun & RET_LATE else " (gone) */")
        elif self.opt(G_RETVAL):
            s += "} /* " + self.fname(ev.func) + self.ret(ev.func, ev.retval) + " */"
        elif seen and not self.opt(G_TAIL):
            s += "}"
        else:
            s += "} /* " + self.fname(ev.func) + " */"
        s += "\n"
        self.gstate(ev.cpu)["depth"] = ev.depth - 1
        if self.opt(G_OVERRUN):
            s += " (Overruns: %u)\n" % (ev.overrun & ~RET_MARKS & 0xffffffff)
        self.line(s)
        post = self.epilogue(ev)
        if post:
            self.out.append(post)

    def comment(self, ev):
        """trace_marker text in a graph: a comment at the CPU's depth."""
        depth = self.gstate(ev.cpu)["depth"]
        text = ev.buf.decode("utf-8", "replace").rstrip("\n")
        pre = self.prologue(ev)
        if pre:
            self.out.append(pre)
        s = self.gcontext(ev) + self.fill("              |  ")
        if depth > 0:
            s += self.indent(depth + 1)
        self.line(s + "/* %s */\n" % text)
        post = self.epilogue(ev)
        if post:
            self.out.append(post)

    def graph_event(self, ev):
        if not (ev.is_entry or ev.is_exit or ev.is_print):
            return False
        if self.last_pid.get(ev.cpu, -1) == -1:
            self.graph[ev.cpu] = {"enter": [0] * PRINT_DEPTH, "irq": False, "depth": -1}
        if ev.is_entry:
            self.entry(ev)
        elif ev.is_exit:
            self.exit(ev)
        else:
            self.comment(ev)
        return True

    def graph_header(self):
        a, c, p, du = (self.opt(G_ABSTIME), self.opt(G_CPU), self.opt(G_PROC),
                       self.opt(G_DURATION))
        s = ""
        if (self.opt(G_ARGS) or self.opt(G_RETVAL)) and not self.d.flags & 1:
            s += "# no BTF loaded: arguments and return values are raw words\n"
        s += "#%s%s%s%s               FUNCTION CALLS\n" % (
            "     TIME       " if a else "", " CPU" if c else "",
            "  TASK/PID       " if p else "", "  DURATION   " if du else "")
        s += "#%s%s%s%s               |   |   |   |\n" % (
            "      |         " if a else "", " |  " if c else "",
            "   |    |        " if p else "", "   |   |      " if du else "")
        return s

    # ---- the pass
    def run(self):
        d = self.d
        self.out.append("# tracer: %s\n#\n" % d.tracer)
        if d.tracer == "function_graph":
            self.out.append(self.graph_header())
        else:
            in_buffer = E.count_events(d)
            lost = sum(st[0] + st[1] for st in d.cpu_stats)
            self.out.append("# entries-in-buffer/entries-written: %d/%d   #P:%d\n#\n" % (
                in_buffer, in_buffer + lost, d.ncpus))
            self.out.append(DEFAULT_HEADER)
        graph_first = d.tracer == "function_graph"
        for ev in self.it:
            # No "CPU:N [LOST N EVENTS]" line: a dump is read as `cat trace`
            # reads the buffer (not consuming, recording paused), which
            # counts earlier losses in its header only (output.c).
            if len(ev.data) < 8:
                continue
            # The current tracer's printer first, then the others (output.c).
            if graph_first and self.graph_event(ev):
                continue
            if ev.is_function:
                self.function(ev)
                continue
            if ev.is_print:
                self.marker(ev)
                continue
            self.graph_event(ev)
        return "".join(self.out)


def render(dump):
    """The text of `cat trace` for the dump's buffer and options."""
    return Printer(dump).run()
