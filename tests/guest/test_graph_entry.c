/*
 * test_graph_entry.c — suite graph_entry: function_graph's entry event
 * header, exact (issue 23).
 *
 * The tracer's site callback (trace/tracers/function_graph.c,
 * graph_entry_site inlined into graph_ops_func) makes the TRACE_GRAPH_ENT
 * header word before its ring-buffer reservation; where the arch has
 * registers to spare (ARCH_SPARE_REGS) from the guard pair its _NOFP entry
 * loaded for the recursion and dead test (fgraph_ent.cx), else from the
 * pair loaded again.  Here each entry header written for gn_leaf is
 * compared whole with what Linux's format says for the state of the call:
 * irqs-off, need-resched, the preemption count (clamped to 15), the pid,
 * hardirq from the timer interrupt; once through the tracer's own site
 * callback (one graph user) and once through the several users' entry (a
 * second graph user on the function: fgraph.c's callback calls the
 * tracer's entryfunc, whose header loads the guard pair itself).  The
 * same states as suite graph_exit (tests/guest/ftrace_harness.h).
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

static volatile int gn_sink;
T void gn_leaf(int x) { gn_sink = x; }

#define MAXE 16

static bool gn_other_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;
}

static void gn_other_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data) { }

TEST_CASE(graph_entry, header_flags_exact)
{
	static struct fgraph_ops other = { .entryfunc = gn_other_entry, .retfunc = gn_other_exit,
					   .idx = -1 };
	thread_migrate(current_thread(), 0);
	/* EXPECT only: every path ends in the cleanup below. */
	EXPECT_EQ(trace_filter_set(false, "gn_leaf irq_probe_work irq_probe_spin", true), 0);
	EXPECT_EQ(trace_opt_set("funcgraph-irqs"), 0);
	EXPECT_EQ(tracer_set("function_graph"), 0);    /* clears the buffer */
	unsigned pc0 = current_thread()->preempt_count;
	header_state_calls(gn_leaf);                    /* the tracer's own site callback */
	EXPECT_EQ(ftrace_set_filter(&other.ops, "gn_leaf", true), 0);
	bool listed = register_fgraph(&other) == 0;
	EXPECT_TRUE(listed);
	header_state_calls(gn_leaf);                    /* the several users' entry */
	if (listed)
		EXPECT_EQ(unregister_fgraph(&other), 0);
	EXPECT_EQ(irq_probe_run(current_thread()), 1);  /* irq_probe_work in the tick */

	struct trace_entry h[MAXE], q[MAXE];
	unsigned n = events_headers(TRACE_GRAPH_ENT, (uintptr_t)gn_leaf, h, MAXE);
	unsigned m = events_headers(TRACE_GRAPH_ENT, (uintptr_t)irq_probe_work, q, MAXE);
	tracer_set("nop");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);

	int pid = (int)current_thread()->tid;
	ASSERT_EQ(n, 2u * HEADER_STATES);
	for (unsigned i = 0; i < n; i++)
		header_state_check(&h[i], i % HEADER_STATES, pc0, pid);
	header_hardirq_check(q, m, pid);                /* from the timer interrupt */
}
