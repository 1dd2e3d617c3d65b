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
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/trace.h"

#define T __attribute__((noinline)) noclone

static volatile int ge_sink;
T void ge_leaf(int x) { ge_sink = x; }

TEST_CASE(graph_exit, header_flags_exact)
{
	graph_headers_exact(TRACE_GRAPH_RET, ge_leaf, "ge_leaf");
}
