/*
 * test_graph_edges.c — suite `graph_edges`: function_graph where it meets
 * the rest, written once for both backends (the return hooks and, under
 * INSTR=xray, the trace stack): the same exact outcome is asserted in
 * either build, so the group that boots each (guest, xray) compares them.
 *
 *   traceoff_trigger_cuts_the_graph   set_ftrace_filter's `traceoff`
 *        command on a function the graph tracer traces: the graph stops
 *        at that call, exactly (the command runs first: nothing of it,
 *        nothing after), and resumes at depth 0 once tracing is on again;
 *   traceon_trigger_resumes_the_graph  `traceon` with tracing off: the
 *        graph starts at that call (its entry in); a call entered while
 *        off was not hooked: no depth, no exit;
 *   last_user_leaves_no_entry         a thread inside a traced function
 *        while the last graph user unregisters: once the function has
 *        returned, no entry is left on its stack (the trace stack drops
 *        them at the last unregister, trace/core/fgraph.c ts_drop_left;
 *        the return hook pops its frame); a user registered meanwhile
 *        gets no exit of a call it never entered.
 *
 * The gc_* and gl_* functions are the targets (this file is traced).
 */
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_frame.h"
#include "trace/boot.h"
#include "trace/core/ftrace.h"
#include "trace/global_ops.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"
#include "trace/tracers/function_graph.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

static volatile int ge_sink;

T int gc_a(int x) { ge_sink = x; return x + 1; }
T int gc_b(int x) { ge_sink = x; return x + 2; }
T int gc_off(int x) { ge_sink = x; return x + 3; }
T int gc_on(int x) { ge_sink = x; return x + 4; }
T int gc_root(int x, int (*mid)(int))
{
	int r = gc_a(x) + mid(x) + gc_b(x);
	KEEP();
	return r;
}

static int echo(const char *args)
{
	char line[128];
	bool handled;
	ksnprintf(line, sizeof(line), "%s", args);
	return tracefs_command("echo", line, &handled);
}

/* The graph tracer on gc_* alone, the buffer emptied, tracing on. */
static int graph_on(void)
{
	tracer_set("nop");
	if (trace_filter_set(false, "gc_*", true))
		return -1;
	rb_record_off(trace_buffer);
	int err = rb_reset(trace_buffer, RB_ALL_CPUS);
	rb_record_on(trace_buffer);
	tracing_on();
	return err ? err : tracer_set("function_graph");
}

static void graph_off(void)
{
	tracer_set("nop");
	trace_filter_set(false, "", true);
	tracing_on();
}

/* The buffer's graph events in order, "E:func:depth" and "X:func:depth"
 * (a marked exit with its mark: ":late", ":gone"). */
static const char *events(void)
{
	static char buf[512];
	size_t n = 0;
	struct rb_iter it;
	struct rb_event ev;
	buf[0] = '\0';
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return "(no iterator)";
	while (rb_iter_next(&it, &ev) == 0 && n < sizeof(buf) - 64) {
		const struct trace_entry *te = ev.data;
		if (te->type == TRACE_GRAPH_ENT) {
			const struct fgraph_ent_entry *e = ev.data;
			n += ksnprintf(buf + n, sizeof(buf) - n, "%sE:%s:%u", n ? " " : "",
				       ksym_lookup(e->func, NULL, NULL), e->depth);
		} else if (te->type == TRACE_GRAPH_RET) {
			const struct fgraph_ret_entry *x = ev.data;
			n += ksnprintf(buf + n, sizeof(buf) - n, "%sX:%s:%u%s", n ? " " : "",
				       ksym_lookup(x->func, NULL, NULL), x->depth,
				       x->overrun >> 31 ? ":late" : (x->overrun >> 30) & 1 ? ":gone" : "");
		}
	}
	rb_iter_end(&it);
	return buf;
}

TEST_CASE(graph_edges, traceoff_trigger_cuts_the_graph)
{
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(graph_on(), 0);
	ASSERT_EQ(echo("gc_off:traceoff:1 > set_ftrace_filter"), 0);
	int r = gc_root(1, gc_off);
	bool on = tracing_is_on();
	tracing_on();
	r += gc_a(10);
	const char *got = events();
	echo("'!gc_off:traceoff' >> set_ftrace_filter");
	graph_off();
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(r, 2 + 4 + 3 + 11);
	EXPECT_TRUE(!on);
	/* The command runs before the graph's entry: gc_off's is not in. */
	EXPECT_STREQ(got, "E:gc_root:0 E:gc_a:1 X:gc_a:1 E:gc_a:0 X:gc_a:0");
}

TEST_CASE(graph_edges, traceon_trigger_resumes_the_graph)
{
	thread_migrate(current_thread(), 0);
	ASSERT_EQ(graph_on(), 0);
	ASSERT_EQ(echo("gc_on:traceon > set_ftrace_filter"), 0);
	tracing_off();
	int r = gc_root(1, gc_on);
	bool on = tracing_is_on();
	const char *got = events();
	echo("'!gc_on:traceon' >> set_ftrace_filter");
	graph_off();
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(r, 2 + 5 + 3);
	EXPECT_TRUE(on);
	/* The command runs before the graph's entry: gc_on's is in.  gc_root
	 * was entered while off: not hooked, so it holds no depth and its end
	 * is not in. */
	EXPECT_STREQ(got, "E:gc_on:0 X:gc_on:0 E:gc_b:0 X:gc_b:0");
}

/* ---- the last user leaves while a thread is inside ---- */

struct counted {
	struct fgraph_ops ops;
	unsigned long entries, exits;      /* atomic */
};

static bool gl_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	__atomic_fetch_add(&((struct counted *)g)->entries, 1, __ATOMIC_RELAXED);
	return true;
}

static void gl_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	__atomic_fetch_add(&((struct counted *)g)->exits, 1, __ATOMIC_RELAXED);
}

static struct counted gl_a = { .ops = { .entryfunc = gl_entry, .retfunc = gl_exit, .idx = -1 } };
static struct counted gl_b = { .ops = { .entryfunc = gl_entry, .retfunc = gl_exit, .idx = -1 } };

static volatile int gl_in, gl_go;

T int gl_block(int x)
{
	__atomic_store_n(&gl_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&gl_go, __ATOMIC_ACQUIRE))
		thread_yield();
	KEEP();
	return x + 1;
}

/* Calls gl_block, then gives the entries left on its own stack (+ 100 if
 * gl_block's value was wrong). */
static int gl_caller(void *arg)
{
	int wrong = gl_block(7) != 8;
	return (int)current_thread()->ret_stack->depth + 100 * wrong;
}

static void gl_wait_in(void)
{
	for (int i = 0; i < 100000 && !__atomic_load_n(&gl_in, __ATOMIC_ACQUIRE); i++)
		thread_yield();
}

/* A thread inside gl_block while user a (the only one) unregisters;
 * with_b: user b registers before gl_block returns.  The thread's result
 * (gl_caller). */
static int leave_inside(bool with_b)
{
	gl_in = gl_go = 0;
	gl_a.entries = gl_a.exits = gl_b.entries = gl_b.exits = 0;
	if (ftrace_set_filter(&gl_a.ops.ops, "gl_block", true) ||
	    ftrace_set_filter(&gl_b.ops.ops, "gl_block", true) || register_fgraph(&gl_a.ops))
		return -1;
	struct thread *t = thread_create("gl_caller", gl_caller, NULL, -1);
	if (!t) {
		unregister_fgraph(&gl_a.ops);
		return -1;
	}
	gl_wait_in();
	unregister_fgraph(&gl_a.ops);
	bool b = with_b && register_fgraph(&gl_b.ops) == 0;
	__atomic_store_n(&gl_go, 1, __ATOMIC_RELEASE);
	int left = thread_join(t);
	if (b)
		unregister_fgraph(&gl_b.ops);
	return with_b && !b ? -1 : left;
}

TEST_CASE(graph_edges, last_user_leaves_no_entry)
{
	/* No user comes back: gl_block's exit reaches no one, and nothing
	 * stays on the thread's stack once it has returned. */
	EXPECT_EQ(leave_inside(false), 0);
	EXPECT_EQ(gl_a.entries, 1);
	EXPECT_EQ(gl_a.exits, 0);
	/* A user comes back before gl_block returns: it is handed no exit of
	 * a call it never entered, and again nothing stays. */
	EXPECT_EQ(leave_inside(true), 0);
	EXPECT_EQ(gl_a.entries, 1);
	EXPECT_EQ(gl_a.exits, 0);
	EXPECT_EQ(gl_b.entries, 0);
	EXPECT_EQ(gl_b.exits, 0);
	EXPECT_EQ(current_thread()->ret_stack->depth, 0);
}
