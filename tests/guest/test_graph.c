/*
 * test_graph.c — the function_graph tracer end to end, on a workload of
 * known shape (the gw_* functions: typed parameters and return values, a
 * tail call, recursion).
 *
 * Suite `graph` (in bt.test=all):
 *   differential: the function tracer and the graph tracer record the same
 *   run; the call tree rebuilt from the function tracer's entry events
 *   alone (each call's parent address tells which open call it belongs to)
 *   must equal the graph — same calls, same order, same depths — and every
 *   graph exit must pair with its entry.
 *   filters: set_graph_function / set_graph_notrace / max_graph_depth cut
 *   the recorded graph exactly.
 * Suite `graph_golden` (manual; tests/run.py): prints the workload's graph
 * with funcgraph-args, funcgraph-retval and strings (captured at the call:
 * gw_strings) between two marker
 * lines; the host compares it, durations masked, with tests/golden/graph.txt
 * — the same file for both arches.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "arch/tests.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/irq_probe.h"
#include "trace/core/fgraph.h"
#include "trace/tracers/function_graph.h"
#include "trace/options.h"
#include "trace/tracers/function.h"
#include "trace/global_ops.h"
#include "trace/trace.h"
#include "trace/core/ftrace.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

enum gw_color { GW_RED, GW_GREEN = 5, GW_BLUE };

static volatile long gw_sink;

T int gw_leaf(int a, unsigned long flags) { gw_sink = (long)flags; return a * 2; }
T long gw_err(int code) { gw_sink = code; return -(long)code; }
T void gw_void(bool b) { gw_sink = b; }
T unsigned char gw_small(unsigned short x) { gw_sink = x; return (unsigned char)(x + 1); }
T signed char gw_neg(int x) { gw_sink = x; return (signed char)-x; }
T int gw_str(const char *s, enum gw_color c) { gw_sink = c; return (int)strlen(s); }
T int gw_rec(int n) { int r = n ? gw_rec(n - 1) + 1 : 0; KEEP(); return r; }
T int gw_tail(int x) { return gw_leaf(x, 0x30); }
T int gw_mid(int x)
{
	int r = gw_leaf(x, 0x10) + gw_str("mid", GW_GREEN);
	KEEP();
	return r;
}

/* Strings as they were at the call (funcgraph-args-string): gw_name's
 * buffer is overwritten once it returns, and the trace must still show
 * "version"; then a string longer than the bound (cut, marked), NULL, a
 * pointer outside RAM and an empty string.  noipa: the compiler must not
 * drop the first copy because gw_name does not read it. */
__attribute__((noinline)) noipa int gw_name(const char *name) { gw_sink = (long)name; return 0; }
__attribute__((noinline)) noipa int gw_names(const char *a, const char *b, const char *c,
					      const char *d)
{
	gw_sink = (long)a ^ (long)b ^ (long)c ^ (long)d;
	return 0;
}
__attribute__((noinline)) noipa void gw_strings(void)
{
	char buf[16];
	strcpy(buf, "version");
	gw_name(buf);
	strcpy(buf, "@&<");
	gw_sink = buf[0];
	gw_names("0123456789abcdef0123456789abcdef-and-more", NULL, (const char *)0xdead0000, "");
}

/* Arguments passed on the stack, read at entry by the ABI's rules and
 * printed the same on both arches: eleven arguments (x86-64 passes the
 * seventh on, arm64 the ninth on, in memory; the last a char *), a
 * 40-byte struct by value (x86-64: in memory on the stack; arm64: by
 * reference) and a 96-byte one (shown cut at 8 words), and a 16-byte
 * struct after five ints (x86-64: one register left, so it goes on the
 * stack and z takes that register; arm64: x5, x6). */
struct gw_pair { long a, b; };
struct gw_big { long w[5]; };
struct gw_huge { long w[12]; };
__attribute__((noinline)) noipa int gw_many(int a, int b, int c, int d, int e, int f, int g,
					     int h, int i, int j, const char *k)
{
	gw_sink = (long)k;
	return a + b + c + d + e + f + g + h + i + j;
}
__attribute__((noinline)) noipa long gw_big(struct gw_big b, int after)
{
	return b.w[0] + b.w[4] + after;
}
__attribute__((noinline)) noipa long gw_huge(int before, struct gw_huge h)
{
	return h.w[0] + h.w[11] + before;
}
__attribute__((noinline)) noipa long gw_mixed(int a, int b, int c, int d, int e, struct gw_pair p,
					       int z)
{
	return a + b + c + d + e + p.a + p.b + z;
}
/* The results are kept: clang drops a call to a function without side
 * effects whose result is unused (noipa is GCC's alone, lib/noipa.h). */
static void golden_extra(void)               /* not gw_*: not traced */
{
	gw_strings();
	gw_sink += gw_many(1, 2, 3, 4, 5, 6, 7, 8, 9, -10, "eleven");
	gw_sink += gw_big((struct gw_big){ { 1, 2, 3, 4, 5 } }, 6);
	struct gw_huge h;
	for (int i = 0; i < 12; i++)
		h.w[i] = 0x100 + i;
	gw_sink += gw_huge(-1, h);
	gw_sink += gw_mixed(1, 2, 3, 4, 5, (struct gw_pair){ 0x11, 0x22 }, 7);
}

/* The workload: with_tail adds a tail call (the differential leaves it
 * out: entry events alone cannot see that gw_leaf ran inside gw_tail). */
T int gw_root(int n, bool with_tail)
{
	int r = gw_mid(n);
	r += (int)gw_err(22);
	gw_void(true);
	r += gw_small(255) + gw_neg(3);
	r += gw_rec(2);
	if (with_tail)
		r += gw_tail(7);
	KEEP();
	return r;
}

/* Run the workload with the graph tracer on gw_* and the given options,
 * on one CPU; the tracer stays current (switching tracers clears the
 * buffer, as in Linux): read the buffer, then traced_stop().  Returns
 * gw_root's value. */
static void (*traced_extra)(void);       /* run after gw_root, traced too */

static int traced_run(bool with_tail, bool also_function)
{
	thread_migrate(current_thread(), 0);
	tracer_set("nop");
	if (trace_filter_set(false, "gw_*", true) || trace_filter_set(true, "", true))
		return -1;
	rb_record_off(trace_buffer);
	int err = rb_reset(trace_buffer, RB_ALL_CPUS);
	rb_record_on(trace_buffer);
	if (err || tracer_set("function_graph"))
		return -1;
	if (also_function && register_ftrace_function(&function_ops))
		return -1;
	int r = gw_root(3, with_tail);
	if (traced_extra)
		traced_extra();
	if (also_function)
		unregister_ftrace_function(&function_ops);
	thread_migrate(current_thread(), -1);
	return r;
}

static void restore_filters(void);

static void traced_stop(void)
{
	tracer_set("nop");
	restore_filters();
}

static void restore_filters(void)
{
	trace_filter_set(false, "", true);
	graph_set_hash(false, "", true);
	graph_set_hash(true, "", true);
	graph_set_max_depth(0);
}

/* ---- differential ---- */

#define MAXC 64
struct call { uintptr_t func; unsigned depth; };

/* Rebuild the tree from the function events: a call's depth is the number
 * of open calls that contain its parent address, innermost first. */
static unsigned rebuild(struct call *out, unsigned max, unsigned *bad)
{
	uintptr_t open[MAXC];
	unsigned nopen = 0, n = 0;
	struct rb_iter it;
	struct rb_event ev;
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return 0;
	while (rb_iter_next(&it, &ev) == 0 && n < max) {
		const struct ftrace_entry *e = ev.data;
		if (e->ent.type != TRACE_FN)
			continue;
		uintptr_t off, size;
		while (nopen) {
			const char *nm = ksym_lookup(e->parent_ip, &off, &size);
			if (nm && e->parent_ip - off == open[nopen - 1])
				break;
			nopen--;
		}
		out[n++] = (struct call){ e->ip, nopen };
		if (nopen < MAXC)
			open[nopen++] = e->ip;
		else
			(*bad)++;
	}
	rb_iter_end(&it);
	return n;
}

/* The graph's entries, with each exit checked against its entry. */
static unsigned graph_calls(struct call *out, unsigned max, unsigned *bad)
{
	struct call stack[MAXC];
	unsigned depth = 0, n = 0;
	struct rb_iter it;
	struct rb_event ev;
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return 0;
	while (rb_iter_next(&it, &ev) == 0 && n < max) {
		const struct trace_entry *te = ev.data;
		if (te->type == TRACE_GRAPH_ENT) {
			const struct fgraph_ent_entry *e = ev.data;
			if (e->depth != depth || depth >= MAXC)
				(*bad)++;
			out[n++] = (struct call){ e->func, e->depth };
			stack[depth++ % MAXC] = out[n - 1];
		} else if (te->type == TRACE_GRAPH_RET) {
			const struct fgraph_ret_entry *x = ev.data;
			if (!depth || x->func != stack[depth - 1].func || x->depth != depth - 1 ||
			    x->rettime < x->calltime)
				(*bad)++;
			depth -= depth > 0;
		}
	}
	rb_iter_end(&it);
	*bad += depth != 0;
	return n;
}

TEST_CASE(graph, differential)
{
	int r = traced_run(false, true);
	struct call a[MAXC], b[MAXC];
	unsigned bad_a = 0, bad_b = 0;
	unsigned na = rebuild(a, MAXC, &bad_a), nb = graph_calls(b, MAXC, &bad_b);
	traced_stop();
	EXPECT_EQ(r, gw_root(3, false));
	EXPECT_EQ(bad_a, 0);
	EXPECT_EQ(bad_b, 0);
	/* gw_root, gw_mid, gw_leaf, gw_str, gw_err, gw_void, gw_small,
	 * gw_neg, gw_rec x3 */
	EXPECT_EQ(nb, 11);
	ASSERT_EQ(na, nb);
	for (unsigned i = 0; i < na; i++) {
		if (a[i].func != b[i].func || a[i].depth != b[i].depth)
			test_fail(__FILE__, __LINE__, "call %u: function tracer %s at %u, graph %s at %u",
				  i, ksym_lookup(a[i].func, NULL, NULL), a[i].depth,
				  ksym_lookup(b[i].func, NULL, NULL), b[i].depth);
	}
}

/* ---- filters ---- */

/* The graph's entries as "name:depth ..." */
static void graph_string(char *buf, size_t size)
{
	struct call c[MAXC];
	unsigned bad = 0, n = graph_calls(c, MAXC, &bad);
	size_t len = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && len < size; i++)
		len += ksnprintf(buf + len, size - len, "%s%s:%u%s", i ? " " : "",
				 ksym_lookup(c[i].func, NULL, NULL), c[i].depth, bad ? "!" : "");
}

TEST_CASE(graph, graph_function_and_notrace)
{
	char got[512];
	/* Only gw_mid's graph. */
	ASSERT_EQ(graph_set_hash(false, "gw_mid", true), 0);
	traced_run(true, false);
	graph_string(got, sizeof(got));
	/* Calls outside it are not hooked, so do not count in depths. */
	EXPECT_STREQ(got, "gw_mid:0 gw_leaf:1 gw_str:1");
	/* Everything but gw_mid's graph and gw_rec's. */
	ASSERT_EQ(graph_set_hash(false, "", true), 0);
	ASSERT_EQ(graph_set_hash(true, "gw_mid gw_rec", true), 0);
	traced_run(true, false);
	graph_string(got, sizeof(got));
	EXPECT_STREQ(got, "gw_root:0 gw_err:1 gw_void:1 gw_small:1 gw_neg:1 gw_tail:1 gw_leaf:2");
	/* A glob matching nothing changes nothing. */
	EXPECT_EQ(graph_set_hash(true, "nosuch_fn_*", true), -EINVAL);
	traced_run(true, false);
	graph_string(got, sizeof(got));
	EXPECT_STREQ(got, "gw_root:0 gw_err:1 gw_void:1 gw_small:1 gw_neg:1 gw_tail:1 gw_leaf:2");
	traced_stop();
}

TEST_CASE(graph, max_depth)
{
	char got[512];
	graph_set_max_depth(2);
	traced_run(true, false);
	graph_string(got, sizeof(got));
	traced_stop();
	EXPECT_STREQ(got, "gw_root:0 gw_mid:1 gw_err:1 gw_void:1 gw_small:1 gw_neg:1 gw_rec:1 "
			  "gw_tail:1");
}

/* A thread inside a set_graph_notrace call while the tracer goes away: the
 * call's exit never reaches the tracer, so the thread's "inside notrace"
 * count is never taken back.  The next user of the slot must start clean
 * (fgraph resets a stack's state word for a new generation). */
static volatile int blk_in, blk_go, blk_go2;
T void gw_block(void)
{
	__atomic_store_n(&blk_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&blk_go, __ATOMIC_ACQUIRE))
		thread_yield();
}

static int blocker(void *arg)
{
	gw_block();
	while (!__atomic_load_n(&blk_go2, __ATOMIC_ACQUIRE))
		thread_yield();
	return gw_mid(1);
}

static void wait_for(volatile int *f)
{
	for (int i = 0; i < 100000 && !__atomic_load_n(f, __ATOMIC_ACQUIRE); i++)
		thread_yield();
}

TEST_CASE(graph, state_does_not_outlive_its_user)
{
	char got[512];
	blk_in = blk_go = blk_go2 = 0;
	ASSERT_EQ(trace_filter_set(false, "gw_*", true), 0);
	ASSERT_EQ(graph_set_hash(true, "gw_block", true), 0);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	struct thread *t = thread_create("blocker", blocker, NULL, -1);
	ASSERT_TRUE(t != NULL);
	wait_for(&blk_in);
	tracer_set("nop");                     /* gw_block's frame is still open */
	__atomic_store_n(&blk_go, 1, __ATOMIC_RELEASE);
	graph_set_hash(true, "", true);
	ASSERT_EQ(tracer_set("function_graph"), 0);     /* clears the buffer */
	__atomic_store_n(&blk_go2, 1, __ATOMIC_RELEASE);
	EXPECT_EQ(thread_join(t), 5);
	graph_string(got, sizeof(got));
	traced_stop();
	EXPECT_STREQ(got, "gw_mid:0 gw_leaf:1 gw_str:1");
}

/* A call entered while recording is off and returning once it is on: with
 * no entry event it is not hooked, so no '}' without its '{' appears (an
 * exit alone would make graph_calls count it bad: the "!" suffix). */
TEST_CASE(graph, call_begun_while_off_leaves_no_exit)
{
	char got[512];
	blk_in = blk_go = blk_go2 = 0;
	ASSERT_EQ(trace_filter_set(false, "gw_*", true), 0);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	tracing_off();
	struct thread *t = thread_create("blocker", blocker, NULL, -1);
	ASSERT_TRUE(t != NULL);
	wait_for(&blk_in);                     /* inside gw_block, entered while off */
	tracing_on();
	__atomic_store_n(&blk_go, 1, __ATOMIC_RELEASE);     /* gw_block returns now */
	__atomic_store_n(&blk_go2, 1, __ATOMIC_RELEASE);
	EXPECT_EQ(thread_join(t), 5);
	graph_string(got, sizeof(got));
	traced_stop();
	EXPECT_STREQ(got, "gw_mid:0 gw_leaf:1 gw_str:1");
}

/* ---- funcgraph-irqs, and the preemption count in the events' headers ---- */

struct seen {
	unsigned entries, exits, depth;     /* depth: of the first entry */
	unsigned pcs;                       /* the entries' header preemption counts,
					       one decimal digit each, in order */
	unsigned xpcs;                      /* the same of the exits */
	unsigned other_pid;                 /* entries whose header pid is not `pid` */
};

static struct seen graph_seen(uintptr_t func, int pid)
{
	struct seen s = { 0 };
	struct rb_iter it;
	struct rb_event ev;
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return s;
	while (rb_iter_next(&it, &ev) == 0) {
		const struct fgraph_ent_entry *e = ev.data;
		if (e->ent.type == TRACE_GRAPH_ENT && e->func == func) {
			if (!s.entries++)
				s.depth = e->depth;
			s.pcs = s.pcs * 10 + e->ent.preempt_count;
			s.other_pid += e->ent.pid != pid;
		}
		if (e->ent.type == TRACE_GRAPH_RET && e->func == func) {
			s.exits++;
			s.xpcs = s.xpcs * 10 + e->ent.preempt_count;
		}
	}
	rb_iter_end(&it);
	return s;
}

static bool gi_empty_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;
}

/*
 * With funcgraph-irqs on, the interrupt's call is recorded one level below
 * the call it interrupted; off, it is not recorded at all.  Each event's
 * header carries the traced code's preemption count (as Linux's does),
 * whether the tracer's own entry ran (one graph user on gw_leaf) or the
 * list function's (a second user there), at the entry and at the exit
 * (the tracer's own return, or the several users' one): 0, then 1 inside
 * preempt_disable(); and the pid of the thread that made the call.
 */
TEST_CASE(graph, irqs_option_and_preempt_count)
{
	static struct fgraph_ops other = { .entryfunc = gi_empty_entry, .idx = -1 };
	thread_migrate(current_thread(), 0);
	/* EXPECT only: every path ends in the cleanup below. */
	EXPECT_EQ(trace_filter_set(false, "irq_probe_spin irq_probe_work gw_leaf", true), 0);
	for (int on = 1; on >= 0; on--) {
		EXPECT_EQ(trace_opt_set(on ? "funcgraph-irqs" : "nofuncgraph-irqs"), 0);
		EXPECT_EQ(tracer_set("function_graph"), 0);      /* clears the buffer */
		EXPECT_EQ(irq_probe_run(current_thread()), 1);
		gw_leaf(1, 0);
		preempt_disable();
		gw_leaf(2, 0);
		preempt_enable();
		if (on) {                      /* gw_leaf through the list function */
			EXPECT_EQ(ftrace_set_filter(&other.ops, "gw_leaf", true), 0);
			bool listed = register_fgraph(&other) == 0;
			EXPECT_TRUE(listed);
			preempt_disable();
			gw_leaf(3, 0);
			preempt_enable();
			gw_leaf(4, 0);
			if (listed)
				EXPECT_EQ(unregister_fgraph(&other), 0);
		}
		int pid = (int)current_thread()->tid;
		struct seen s = graph_seen((uintptr_t)irq_probe_work, pid);
		EXPECT_EQ(s.entries, on ? 1u : 0u);
		EXPECT_EQ(s.exits, on ? 1u : 0u);
		if (on)
			EXPECT_EQ(s.depth, 1u);
		s = graph_seen((uintptr_t)irq_probe_spin, pid);
		EXPECT_EQ(s.entries, 1u);
		EXPECT_EQ(s.depth, 0u);
		EXPECT_EQ(s.pcs, 0u);
		s = graph_seen((uintptr_t)gw_leaf, pid);
		EXPECT_EQ(s.entries, on ? 4u : 2u);
		EXPECT_TRUE(pid > 0);                   /* not an idle thread's 0 */
		EXPECT_EQ(s.other_pid, 0u);
		EXPECT_EQ(s.pcs, on ? 110u : 1u);        /* in call order: 0 1 (1 0) */
		EXPECT_EQ(s.exits, on ? 4u : 2u);
		EXPECT_EQ(s.xpcs, on ? 110u : 1u);
		EXPECT_EQ(tracer_set("nop"), 0);
	}
	tracer_set("nop");
	trace_opt_set("funcgraph-irqs");
	restore_filters();
	thread_migrate(current_thread(), -1);
}

/* ---- golden text (host-checked) ---- */

TEST_FIXTURE(graph_golden, print)
{
	static const char *opts[] = { "funcgraph-args", "funcgraph-retval", "funcgraph-args-string" };
	/* The golden's tail call is one: gw_tail jumps to gw_leaf (else the
	 * golden would show an ordinary call and prove nothing). */
	uintptr_t off, size;
	ASSERT_TRUE(ksym_lookup((uintptr_t)gw_tail, &off, &size) != NULL);
	EXPECT_TRUE(arch_test_find_jump((uintptr_t)gw_tail, size, (uintptr_t)gw_leaf) != 0);
	unsigned long saved = trace_opts;
	for (unsigned i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		ASSERT_EQ(trace_opt_set(opts[i]), 0);
	traced_extra = golden_extra;
	int r = traced_run(true, false);
	traced_extra = NULL;
	kprintf("--- graph golden begin ---\n");
	trace_print_all();
	kprintf("--- graph golden end ---\n");
	traced_stop();
	trace_opts_restore(saved);
	EXPECT_EQ(r, gw_root(3, true));
}

/* ---- the tracer's own trampoline (FTRACE_OPS_FL_ARGS_ONLY) ---- */

T long gw_args8(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7)
{
	KEEP();
	return a0 + 2 * a1 + 3 * a2 + 4 * a3 + 5 * a4 + 6 * a5 + 7 * a6 + 8 * a7;
}
T double gw_fp(double a, double b, int k) { KEEP(); return a * b + k; }

#define GW_ARG(i) (0x2000l + 0x123l * (i))

/*
 * A site whose only ops is the tracer's calls a trampoline built from the
 * ARGS_ONLY template (not the NOFP one; under INSTR=xray too:
 * function_graph.c): the function still gets all its
 * integer and FP arguments and returns its value through the hook, and
 * with funcgraph-args the entry event has the argument registers, each
 * exact; the exits pair with the entries.
 */
TEST_CASE(graph, args_only_trampoline)
{
	long want8 = 0;
	for (int i = 0; i < 8; i++)
		want8 += (i + 1) * GW_ARG(i);
	double want_fp = gw_fp(2.5, 4.0, 3);
	thread_migrate(current_thread(), 0);
	tracer_set("nop");
	ASSERT_EQ(trace_filter_set(false, "gw_args8 gw_fp", true), 0);
	ASSERT_EQ(trace_opt_set("funcgraph-args"), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	struct ftrace_ops *op = &graph_fgraph_ops.ops;
	EXPECT_TRUE((op->flags & (FTRACE_OPS_FL_NOFP | FTRACE_OPS_FL_ARGS_ONLY)) ==
		    (FTRACE_OPS_FL_NOFP | FTRACE_OPS_FL_ARGS_ONLY));
	EXPECT_TRUE(op->tramp != 0);
	static uint8_t args_only[ARCH_TRAMP_SIZE], nofp[ARCH_TRAMP_SIZE];
	int alen = arch_tramp_build(args_only, op->tramp, op, (void *)op->call,
				    ARCH_TRAMP_ARGS_ONLY);
	int nlen = arch_tramp_build(nofp, op->tramp, op, (void *)op->call, ARCH_TRAMP_NOFP);
	ASSERT_TRUE(alen > 0 && nlen > 0);
	EXPECT_TRUE(alen != nlen || memcmp(args_only, nofp, (size_t)alen) != 0);
	EXPECT_EQ(memcmp((const void *)op->tramp, args_only, (size_t)alen), 0);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(gw_args8(GW_ARG(0), GW_ARG(1), GW_ARG(2), GW_ARG(3), GW_ARG(4), GW_ARG(5),
				   GW_ARG(6), GW_ARG(7)), want8);
		EXPECT_TRUE(gw_fp(2.5, 4.0, 3) == want_fp);
	}
	rb_record_off(trace_buffer);
	unsigned ents = 0, rets = 0, fps = 0, bad = 0;
	struct rb_iter it;
	struct rb_event ev;
	ASSERT_EQ(rb_iter_start(&it, trace_buffer, RB_ALL_CPUS), 0);
	while (rb_iter_next(&it, &ev) == 0) {
		const struct trace_entry *te = ev.data;
		if (te->type == TRACE_GRAPH_ENT) {
			const struct fgraph_ent_entry *e = ev.data;
			if (e->func == (uintptr_t)gw_fp) {
				fps++;
				continue;
			}
			ents++;
			bad += e->func != (uintptr_t)gw_args8 || e->nargs < ARCH_FTRACE_NARGS;
			for (unsigned i = 0; i < ARCH_FTRACE_NARGS && i < e->nargs; i++)
				bad += e->args[i] != (uint64_t)GW_ARG(i);
		} else if (te->type == TRACE_GRAPH_RET) {
			const struct fgraph_ret_entry *x = ev.data;
			if (x->func == (uintptr_t)gw_args8)
				bad += x->retval != (uint64_t)want8 || ++rets > ents;
		}
	}
	rb_iter_end(&it);
	rb_record_on(trace_buffer);
	EXPECT_EQ(ents, 3);
	EXPECT_EQ(rets, 3);
	EXPECT_EQ(fps, 3);
	EXPECT_EQ(bad, 0);
	tracer_set("nop");
	trace_opt_set("nofuncgraph-args");
	restore_filters();
	thread_migrate(current_thread(), -1);

	/* Refused without NOFP, and with NOARGS or SAVE_REGS. */
	static struct ftrace_ops no_nofp = { .flags = FTRACE_OPS_FL_RECURSION |
						      FTRACE_OPS_FL_ARGS_ONLY };
	static struct ftrace_ops with_noargs = { .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP |
							  FTRACE_OPS_FL_ARGS_ONLY | FTRACE_OPS_FL_NOARGS };
	static struct ftrace_ops with_regs = { .flags = FTRACE_OPS_FL_RECURSION | FTRACE_OPS_FL_NOFP |
							FTRACE_OPS_FL_ARGS_ONLY | FTRACE_OPS_FL_SAVE_REGS };
	no_nofp.func = with_noargs.func = with_regs.func = op->func;   /* FTRACE_HOT_NOFP */
	EXPECT_EQ(register_ftrace_function(&no_nofp), -EINVAL);
	EXPECT_EQ(register_ftrace_function(&with_noargs), -EINVAL);
	EXPECT_EQ(register_ftrace_function(&with_regs), -EINVAL);
	EXPECT_TRUE(!((no_nofp.flags | with_noargs.flags | with_regs.flags) & FTRACE_OPS_FL_ENABLED));
}
