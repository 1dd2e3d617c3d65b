/*
 * test_graph_exit.c — suite graph_exit: function_graph's exit event header,
 * exact (issue 23).
 *
 * The tracer's return path (trace/tracers/function_graph.c,
 * graph_return_inline) makes the TRACE_GRAPH_RET header word before its
 * ring-buffer reservation, from the guard pair its NOFP return path loaded
 * for the recursion and dead test (fgraph_ret_cx) and from the running
 * thread's preemption count less the core's raise (fgraph_ret_preempt).
 * Here each exit header written for ge_leaf is compared whole with what
 * Linux's format says for the state the call returned in: irqs-off,
 * need-resched, the preemption count (clamped to 15), the pid, hardirq from
 * the timer interrupt; once through the tracer's own return (one graph
 * user: its solo_return) and once through the several users' return (a
 * second graph user on ge_leaf: the core raises the count, and the header
 * loads the guard pair itself).
 */
#include <stdbool.h>

#include "boot/cpu.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/ftrace_harness.h"
#include "tests/guest/irq_probe.h"
#include "trace/core/fgraph.h"
#include "trace/global_ops.h"
#include "trace/options.h"
#include "trace/trace.h"

#define T __attribute__((noinline)) noclone

static volatile int ge_sink;
T void ge_leaf(int x) { ge_sink = x; }

#define MAXE 16

static bool ge_other_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;
}

static void ge_other_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data) { }

TEST_CASE(graph_exit, header_flags_exact)
{
	static struct fgraph_ops other = { .entryfunc = ge_other_entry, .retfunc = ge_other_exit,
					   .idx = -1 };
	thread_migrate(current_thread(), 0);
	/* EXPECT only: every path ends in the cleanup below. */
	EXPECT_EQ(trace_filter_set(false, "ge_leaf irq_probe_work irq_probe_spin", true), 0);
	EXPECT_EQ(trace_opt_set("funcgraph-irqs"), 0);
	EXPECT_EQ(tracer_set("function_graph"), 0);    /* clears the buffer */
	unsigned pc0 = current_thread()->preempt_count;
	header_state_calls(ge_leaf);                    /* the tracer's own return */
	EXPECT_EQ(ftrace_set_filter(&other.ops, "ge_leaf", true), 0);
	bool listed = register_fgraph(&other) == 0;
	EXPECT_TRUE(listed);
	header_state_calls(ge_leaf);                    /* the several users' return */
	if (listed)
		EXPECT_EQ(unregister_fgraph(&other), 0);
	EXPECT_EQ(irq_probe_run(current_thread()), 1);  /* irq_probe_work in the tick */

	struct trace_entry h[MAXE], q[MAXE];
	unsigned n = events_headers(TRACE_GRAPH_RET, (uintptr_t)ge_leaf, h, MAXE);
	unsigned m = events_headers(TRACE_GRAPH_RET, (uintptr_t)irq_probe_work, q, MAXE);
	tracer_set("nop");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);

	int pid = (int)current_thread()->tid;
	ASSERT_EQ(n, 2u * HEADER_STATES);
	for (unsigned i = 0; i < n; i++)
		header_state_check(&h[i], i % HEADER_STATES, pc0, pid);
	header_hardirq_check(q, m, pid);                /* from the timer interrupt */
}
