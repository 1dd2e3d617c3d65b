/*
 * test_graph_entry.c — suite graph_entry: function_graph's entry event
 * header, exact (issue 23).
 *
 * The tracer's site callback (trace/tracers/function_graph.c,
 * graph_entry_site inlined into graph_ops_func) makes the TRACE_GRAPH_ENT
 * header word before its ring-buffer reservation, from the guard pair its
 * _NOFP entry loaded for the recursion and dead test (fgraph_ent.cx).  Here each entry header written for gn_leaf is
 * compared whole with what Linux's format says for the state of the call:
 * irqs-off, need-resched, the preemption count (clamped to 15), the pid,
 * hardirq from the timer interrupt; once through the tracer's own site
 * callback (one graph user) and once through the several users' entry (a
 * second graph user on the function: fgraph.c's callback calls the
 * tracer's entryfunc, whose header loads the guard pair itself).  The
 * same states as suite graph_exit (tests/guest/ftrace_harness.h).
 */
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/trace.h"

#define T __attribute__((noinline)) noclone

static volatile int gn_sink;
T void gn_leaf(int x) { gn_sink = x; }

TEST_CASE(graph_entry, header_flags_exact)
{
	graph_headers_exact(TRACE_GRAPH_ENT, gn_leaf, "gn_leaf");
}
