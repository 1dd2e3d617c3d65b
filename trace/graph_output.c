/*
 * graph_output.c — the function_graph tracer's text: Linux's format, byte for
 * byte, for the same events and options.
 *
 *   graph_print_header()   the two column lines (after output.c's
 *                          "# tracer: function_graph\n#\n")
 *   graph_print(ti)        one TRACE_GRAPH_ENT / TRACE_GRAPH_RET event;
 *                          false for any other event
 *
 * A line is: [abstime] [CPU] [comm-pid |] [duration column] indentation,
 * then "func() {", "func();" (a leaf: entry and exit consumed together),
 * or "}" (followed by a comment naming the function with funcgraph-tail,
 * funcgraph-retval, or when its entry was not seen).  An exit the trace
 * stack marked (trace/tstack.h) always names it, followed by "(late)" or
 * "(gone)" and no return value, and is never folded into a leaf: ours,
 * Linux has no such exits.  Options are read
 * with trace_opt() as each line is printed.
 *
 * Rules of use: thread context, one printing pass at a time (output.c's
 * print_mutex); the pass's struct trace_iter carries what this file
 * remembers between events (last_pid[], graph[]; trace/trace.h).  Argument
 * and return-value text comes from trace/fsig.h under fsig_lock().
 *
 * Where we differ from Linux, and why: Linux marks interrupts by the
 * address of its irq-entry functions; we have no such section, so the
 * "==========>" / "<==========" lines follow the events' HARDIRQ flag:
 * the first graph line of an interrupt is preceded by the arrow in, the
 * last one (the next event on its CPU is in task context) followed by the
 * arrow out.  Without BTF, arguments and return values print as raw words
 * and the header says so (Linux prints "()" then).  An entry and its exit
 * with lost events between them are not collapsed into a leaf (the loss
 * would be hidden); Linux does not check.
 */
#include <stdarg.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "trace/fsig.h"
#include "trace/graph.h"
#include "trace/options.h"

#define GRAPH_INDENT      2        /* spaces per depth level */
#define GRAPH_PROC_WIDTH  14       /* "comm-pid" centred in this many columns */
#define GRAPH_COMM_MAX    7        /* Linux cuts comm to 7 characters here */
#define GRAPH_MAX_ARGS    FSIG_MAX_WORDS
#define GRAPH_LINE_MAX    1024     /* longer lines are cut */
#define GRAPH_CHUNK       480      /* below kprintf's own buffer */

/* ---- A line being built: one kprintf per line, so CPUs don't interleave */

struct gline {
	size_t len;                /* bytes in buf, < GRAPH_LINE_MAX */
	char buf[GRAPH_LINE_MAX];
};

static void gl_put(struct gline *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void gl_put(struct gline *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	l->len += n < 0 ? 0 : (size_t)n;
	if (l->len >= sizeof(l->buf))
		l->len = sizeof(l->buf) - 1;
}

static void gl_spaces(struct gline *l, unsigned n)
{
	while (n-- && l->len + 1 < sizeof(l->buf))
		l->buf[l->len++] = ' ';
	l->buf[l->len] = '\0';
}

/* Write what was built and start over.  A line longer than kprintf's
 * buffer goes out in pieces (only then can another CPU's output land in
 * the middle of it). */
static void gl_flush(struct gline *l)
{
	for (size_t off = 0; off < l->len; off += GRAPH_CHUNK) {
		size_t n = l->len - off < GRAPH_CHUNK ? l->len - off : GRAPH_CHUNK;
		kprintf("%.*s", (int)n, l->buf + off);
	}
	l->len = 0;
	l->buf[0] = '\0';
}

/* ---- Columns ------------------------------------------------------------ */

static void put_func(struct gline *l, uint64_t func)
{
	const char *name = ksym_lookup((uintptr_t)func, NULL, NULL);
	if (name)
		gl_put(l, "%s", name);
	else
		gl_put(l, "0x%lx", (unsigned long)func);
}

/* Digits of the highest CPU number: the CPU column's width. */
static int cpu_width(void)
{
	unsigned top = ncpus ? ncpus - 1 : 0;
	int w = 1;
	while (top >= 10) {
		top /= 10;
		w++;
	}
	return w;
}

static void put_cpu(struct gline *l, unsigned cpu)
{
	gl_put(l, " %*u) ", cpu_width(), cpu);
}

/* "comm-pid" centred in GRAPH_PROC_WIDTH columns, the extra space right. */
static void put_proc(struct gline *l, int pid)
{
	char buf[24];
	const char *comm = trace_comm(pid, buf, sizeof(buf));
	char pidstr[16];
	int clen = (int)strnlen(comm, GRAPH_COMM_MAX);
	int len = clen + 1 + ksnprintf(pidstr, sizeof(pidstr), "%d", pid);
	int spaces = len < GRAPH_PROC_WIDTH ? GRAPH_PROC_WIDTH - len : 0;
	gl_spaces(l, (unsigned)(spaces / 2));
	gl_put(l, "%.*s-%s", clen, comm, pidstr);
	gl_spaces(l, (unsigned)(spaces - spaces / 2));
}

/* Absolute time, CPU, task: the columns before the duration. */
static void put_context(struct gline *l, const struct trace_iter *ti)
{
	if (trace_opt(TRACE_OPT_FUNCGRAPH_ABSTIME)) {
		uint64_t ns = clock_cycles_to_ns(ti->ev.ts);
		gl_put(l, "%5lu.%06lu |  ", (unsigned long)(ns / 1000000000u),
		       (unsigned long)(ns % 1000000000u / 1000));
	}
	if (trace_opt(TRACE_OPT_FUNCGRAPH_CPU))
		put_cpu(l, ti->ev.cpu);
	if (trace_opt(TRACE_OPT_FUNCGRAPH_PROC)) {
		put_proc(l, ti->ent->pid);
		gl_put(l, " | ");
	}
}

/* Linux's overhead marks: the first threshold (ns) the duration exceeds. */
static char overhead_mark(uint64_t ns)
{
	static const struct { uint64_t over; char mark; } marks[] = {
		{ 1000000000u, '$' }, { 100000000u, '@' }, { 10000000u, '*' },
		{ 1000000u, '#' },    { 100000u, '!' },    { 10000u, '+' },
	};
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].over)
			return marks[i].mark;
	return ' ';
}

/* Microseconds with at most 7 digits in all (fraction digits dropped to
 * make room), " us ", padded so the column is as wide as "1.234 us    ". */
static void put_usecs(struct gline *l, uint64_t ns)
{
	char us[24], frac[8];
	int len = ksnprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
	gl_put(l, "%s", us);
	if (len < 7) {
		int digits = 7 - len < 3 ? 7 - len : 3;
		ksnprintf(frac, sizeof(frac), "%03u", (unsigned)(ns % 1000));
		gl_put(l, ".%.*s", digits, frac);
		len += digits + 1;
	}
	gl_put(l, " us ");
	gl_spaces(l, len < 8 ? (unsigned)(8 - len) : 0);
}

static void put_duration(struct gline *l, uint64_t ns)
{
	if (!trace_opt(TRACE_OPT_FUNCGRAPH_DURATION))
		return;
	if (trace_opt(TRACE_OPT_FUNCGRAPH_OVERHEAD))
		gl_put(l, "%c ", overhead_mark(ns));
	else
		gl_put(l, "  ");
	put_usecs(l, ns);
	gl_put(l, "|  ");
}

/* The duration column without a duration (an entry with children, the
 * arrows): `fill` stands for the column. */
static void put_fill(struct gline *l, const char *fill)
{
	if (trace_opt(TRACE_OPT_FUNCGRAPH_DURATION))
		gl_put(l, "%s", fill);
}

static void put_indent(struct gline *l, uint32_t depth)
{
	gl_spaces(l, depth * GRAPH_INDENT);
}

/* ---- Arguments and return values (trace/fsig.h) -------------------------- */

/* "(a=1, b=0x2)" from the words (and strings) recorded with the entry. */
static void put_args(struct gline *l, uint64_t func, const uint64_t *args, unsigned nargs,
		     const uint8_t *strs, size_t nstrs)
{
	char buf[GRAPH_LINE_MAX / 2];
	fsig_lock();
	fsig_format_args(buf, sizeof(buf), fsig_find((uintptr_t)func), args, nargs, strs, nstrs);
	fsig_unlock();
	buf[sizeof(buf) - 1] = '\0';
	gl_put(l, "(%s)", buf);
}

/* " ret=..." (with its leading space), or nothing for a void function. */
static void put_ret(struct gline *l, uint64_t func, uint64_t raw)
{
	char buf[64];
	fsig_lock();
	size_t n = fsig_format_ret(buf, sizeof(buf), fsig_find((uintptr_t)func), raw,
				   trace_opt(TRACE_OPT_FUNCGRAPH_RETVAL_HEX));
	fsig_unlock();
	if (n) {
		buf[sizeof(buf) - 1] = '\0';
		gl_put(l, " %s", buf);
	}
}

/* ---- Per-CPU context: task switches and interrupts ----------------------- */

/* Linux's task-switch banner when the CPU's task changed since its last
 * graph line (nothing before the first one). */
static void check_task(struct trace_iter *ti, struct gline *l)
{
	unsigned cpu = ti->ev.cpu;
	int prev = ti->last_pid[cpu], pid = ti->ent->pid;
	if (prev == pid)
		return;
	ti->last_pid[cpu] = pid;
	if (prev == -1)
		return;
	gl_put(l, " ------------------------------------------\n");
	put_cpu(l, cpu);
	put_proc(l, prev);
	gl_put(l, " => ");
	put_proc(l, pid);
	gl_put(l, "\n ------------------------------------------\n\n");
	gl_flush(l);
}

static void put_irq_arrow(struct trace_iter *ti, struct gline *l, const char *arrow)
{
	put_context(l, ti);
	put_fill(l, "  ");
	gl_put(l, "%s", arrow);
	put_fill(l, " |");
	gl_put(l, "\n");
	gl_flush(l);
}

static bool in_hardirq(const struct trace_entry *ent)
{
	return (ent->flags & TRACE_FLAG_HARDIRQ) != 0;
}

/* Before a line: the banner, and the arrow in (or a late arrow out, if the
 * interrupt's last line was printed by someone else). */
static void prologue(struct trace_iter *ti, struct gline *l)
{
	struct graph_print_cpu *pc = &ti->graph[ti->ev.cpu];
	check_task(ti, l);
	if (pc->in_irq != in_hardirq(ti->ent)) {
		pc->in_irq = !pc->in_irq;
		put_irq_arrow(ti, l, pc->in_irq ? "==========>" : "<==========");
	}
}

/* After a line in an interrupt: the arrow out if the CPU's next event is
 * in task context (none yet: the interrupt may still be running). */
static void epilogue(struct trace_iter *ti, struct gline *l)
{
	struct graph_print_cpu *pc = &ti->graph[ti->ev.cpu];
	struct rb_event next;
	struct trace_entry hdr;
	if (!pc->in_irq || trace_iter_peek(ti, ti->ev.cpu, &next) != 0 ||
	    next.len < sizeof(hdr))
		return;
	memcpy(&hdr, next.data, sizeof(hdr));
	if (!in_hardirq(&hdr)) {
		pc->in_irq = false;
		put_irq_arrow(ti, l, "<==========");
	}
}

/* ---- Entries and exits --------------------------------------------------- */

/* e last: a struct ending in a flexible array may end a struct, not sit
 * inside one (C11 6.7.2.1; clang's -Wgnu-variable-sized-type-not-at-end). */
struct graph_ent {
	uint64_t args[GRAPH_MAX_ARGS];
	uint8_t strs[FSIG_STRS_SIZE(FSIG_MAX_STRS)];
	struct fgraph_ent_entry e;
};

/* Copy the entry out of the buffer (looking ahead may move the reader) and
 * bound its argument count and string bytes by what the event really
 * holds (strings only after all the words the event says it has). */
static void load_entry(const struct trace_iter *ti, struct graph_ent *g)
{
	memcpy(&g->e, ti->ev.data, sizeof(g->e));
	size_t room = ti->ev.len - sizeof(g->e);
	unsigned n = g->e.nargs;
	size_t strs = g->e.strs;
	if (n > room / sizeof(uint64_t) || n > GRAPH_MAX_ARGS) {
		n = (unsigned)(room / sizeof(uint64_t));
		n = n > GRAPH_MAX_ARGS ? GRAPH_MAX_ARGS : n;
		strs = 0;
	}
	room -= n * sizeof(uint64_t);
	if (strs > room)
		strs = room;
	if (strs > sizeof(g->strs))
		strs = sizeof(g->strs);
	g->e.nargs = (uint16_t)n;
	g->e.strs = (uint16_t)strs;
	const char *at = (const char *)ti->ev.data + sizeof(g->e);
	memcpy(g->args, at, n * sizeof(uint64_t));
	memcpy(g->strs, at + n * sizeof(uint64_t), strs);
}

/* The exit event right after this entry on its CPU, same task and function
 * and no events lost between: a leaf.  Taken out of the stream if so. */
static bool take_leaf_exit(struct trace_iter *ti, const struct graph_ent *g,
			   struct fgraph_ret_entry *ret)
{
	struct rb_event next;
	if (trace_iter_peek(ti, ti->ev.cpu, &next) != 0 || next.lost ||
	    next.len < sizeof(*ret))
		return false;
	memcpy(ret, next.data, sizeof(*ret));
	if (ret->ent.type != TRACE_GRAPH_RET || ret->ent.pid != g->e.ent.pid ||
	    ret->func != g->e.func || (ret->overrun & FGRAPH_RET_MARKS))
		return false;           /* a marked exit keeps its own line */
	trace_iter_skip(ti, ti->ev.cpu);
	return true;
}

static void remember_entry(struct trace_iter *ti, uint32_t depth, uint64_t func)
{
	/* Linux's per-CPU depth, for comments: a leaf leaves the level above it
	 * current, an open call its own. */
	ti->graph[ti->ev.cpu].depth = func ? (int)depth : (int)depth - 1;
	if (depth < GRAPH_PRINT_DEPTH)
		ti->graph[ti->ev.cpu].enter_func[depth] = func;
}

/* The call at its depth: "func(args)" ("func()" without recorded args). */
static void put_call(struct gline *l, const struct graph_ent *g)
{
	put_indent(l, g->e.depth);
	put_func(l, g->e.func);
	if (g->e.nargs)
		put_args(l, g->e.func, g->args, g->e.nargs, g->strs, g->e.strs);
	else
		gl_put(l, "()");
}

/* "func();" with its duration; funcgraph-retval adds the value as a comment. */
static void print_leaf(struct trace_iter *ti, struct gline *l, const struct graph_ent *g,
		       const struct fgraph_ret_entry *ret)
{
	remember_entry(ti, g->e.depth, 0);
	put_duration(l, clock_cycles_to_ns(ret->rettime - ret->calltime));
	put_call(l, g);
	gl_put(l, ";");
	if (trace_opt(TRACE_OPT_FUNCGRAPH_RETVAL)) {
		size_t before = l->len;
		gl_put(l, " /*");
		size_t mark = l->len;
		put_ret(l, ret->func, ret->retval);
		if (l->len == mark)            /* void: no comment at all */
			l->len = before;
		else
			gl_put(l, " */");
	}
	gl_put(l, "\n");
}

static void print_nested(struct trace_iter *ti, struct gline *l, const struct graph_ent *g)
{
	remember_entry(ti, g->e.depth, g->e.func);
	put_fill(l, "              |  ");
	put_call(l, g);
	gl_put(l, " {\n");
}

static void print_entry(struct trace_iter *ti)
{
	struct gline l = { 0, "" };
	struct graph_ent g;
	struct fgraph_ret_entry ret;
	load_entry(ti, &g);
	prologue(ti, &l);
	put_context(&l, ti);
	if (take_leaf_exit(ti, &g, &ret))
		print_leaf(ti, &l, &g, &ret);
	else
		print_nested(ti, &l, &g);
	gl_flush(&l);
	epilogue(ti, &l);
}

/* Was this exit's entry printed as "func() {" on this CPU?  Forgets it. */
static bool entry_seen(struct trace_iter *ti, const struct fgraph_ret_entry *r)
{
	if (r->depth >= GRAPH_PRINT_DEPTH)
		return true;            /* too deep to remember: assume so, as Linux */
	uint64_t *slot = &ti->graph[ti->ev.cpu].enter_func[r->depth];
	bool seen = *slot == r->func;
	*slot = 0;
	return seen;
}

static void print_exit(struct trace_iter *ti)
{
	struct gline l = { 0, "" };
	struct fgraph_ret_entry r;
	memcpy(&r, ti->ev.data, sizeof(r));
	bool seen = entry_seen(ti, &r);
	prologue(ti, &l);
	put_context(&l, ti);
	put_duration(&l, clock_cycles_to_ns(r.rettime - r.calltime));
	put_indent(&l, r.depth);
	if (r.overrun & FGRAPH_RET_MARKS) {
		gl_put(&l, "} /* ");
		put_func(&l, r.func);
		gl_put(&l, " (%s) */", r.overrun & FGRAPH_RET_LATE ? "late" : "gone");
	} else if (trace_opt(TRACE_OPT_FUNCGRAPH_RETVAL)) {
		gl_put(&l, "} /* ");
		put_func(&l, r.func);
		put_ret(&l, r.func, r.retval);
		gl_put(&l, " */");
	} else if (seen && !trace_opt(TRACE_OPT_FUNCGRAPH_TAIL)) {
		gl_put(&l, "}");
	} else {
		gl_put(&l, "} /* ");
		put_func(&l, r.func);
		gl_put(&l, " */");
	}
	gl_put(&l, "\n");
	ti->graph[ti->ev.cpu].depth = (int)r.depth - 1;
	if (trace_opt(TRACE_OPT_FUNCGRAPH_OVERRUN))
		gl_put(&l, " (Overruns: %u)\n", (unsigned)(r.overrun & ~FGRAPH_RET_MARKS));
	gl_flush(&l);
	epilogue(ti, &l);
}

/* A trace_marker write as Linux prints it in a graph: a comment at the
 * CPU's current depth. */
static void print_comment(struct trace_iter *ti)
{
	const struct print_entry *e = (const void *)ti->ent;
	struct gline l = { 0, "" };
	int depth = ti->graph[ti->ev.cpu].depth;
	int n = (int)strnlen(e->buf, ti->ev.len - sizeof(*e));
	while (n && e->buf[n - 1] == '\n')
		n--;
	prologue(ti, &l);
	put_context(&l, ti);
	put_fill(&l, "              |  ");
	if (depth > 0)
		gl_spaces(&l, (unsigned)(depth + 1) * 2);
	gl_put(&l, "/* %.*s */\n", n, e->buf);
	gl_flush(&l);
	epilogue(ti, &l);
}

bool graph_print(struct trace_iter *ti)
{
	unsigned cpu = ti->ev.cpu;
	uint16_t type = ti->ent->type;
	if (cpu >= MAX_CPUS)
		return false;
	if (!(type == TRACE_GRAPH_ENT && ti->ev.len >= sizeof(struct fgraph_ent_entry)) &&
	    !(type == TRACE_GRAPH_RET && ti->ev.len >= sizeof(struct fgraph_ret_entry)) &&
	    !(type == TRACE_PRINT && ti->ev.len > sizeof(struct print_entry)))
		return false;
	if (ti->last_pid[cpu] == -1) {         /* this CPU's first graph line of the pass */
		memset(&ti->graph[cpu], 0, sizeof(ti->graph[cpu]));
		ti->graph[cpu].depth = -1;
	}
	if (type == TRACE_GRAPH_ENT)
		print_entry(ti);
	else if (type == TRACE_GRAPH_RET)
		print_exit(ti);
	else
		print_comment(ti);
	return true;
}
/* The graph's events print so under any tracer (the one current may have
 * changed since they were written). */
TRACE_EVENT_PRINTER(TRACE_GRAPH_ENT, graph_print);
TRACE_EVENT_PRINTER(TRACE_GRAPH_RET, graph_print);

/* ---- Header -------------------------------------------------------------- */

void graph_print_header(void)
{
	bool abstime = trace_opt(TRACE_OPT_FUNCGRAPH_ABSTIME);
	bool cpu = trace_opt(TRACE_OPT_FUNCGRAPH_CPU);
	bool proc = trace_opt(TRACE_OPT_FUNCGRAPH_PROC);
	bool duration = trace_opt(TRACE_OPT_FUNCGRAPH_DURATION);
	struct gline l = { 0, "" };
	if ((trace_opt(TRACE_OPT_FUNCGRAPH_ARGS) || trace_opt(TRACE_OPT_FUNCGRAPH_RETVAL)) &&
	    !fsig_loaded())
		gl_put(&l, "# no BTF loaded: arguments and return values are raw words\n");
	gl_put(&l, "#%s%s%s%s               FUNCTION CALLS\n",
	       abstime ? "     TIME       " : "", cpu ? " CPU" : "",
	       proc ? "  TASK/PID       " : "", duration ? "  DURATION   " : "");
	gl_put(&l, "#%s%s%s%s               |   |   |   |\n",
	       abstime ? "      |         " : "", cpu ? " |  " : "",
	       proc ? "   |    |        " : "", duration ? "   |   |      " : "");
	gl_flush(&l);
}
