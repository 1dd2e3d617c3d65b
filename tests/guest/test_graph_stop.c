/*
 * test_graph_stop.c — suite graph_stop: the function_graph tracer's site
 * callback once the tracer has stopped (issue 23).
 *
 * graph_ops_func (FGRAPH_DEFINE_ENTRY_NOFP, trace/tracers/function_graph.c)
 * tests no ops flag: the tracer's FILTER_OFF, a bit of the word its entry
 * tests anyway, set by graph_stop before the sites are moved away, makes
 * the entry refuse a call that reaches it then.  Here the callback is
 * called as a site would call it after the tracer stopped: no frame stays
 * pushed, no event is written, the return slot is as it was.
 */
#include <string.h>

#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/ftrace.h"
#include "trace/tracers/function_graph.h"
#include "trace/trace.h"

#define T __attribute__((noinline)) noclone

static volatile int gs_sink;
T void gs_leaf(int x) { gs_sink = x; }

#define GS_PARENT 0x5a5a5a5au

TEST_CASE(graph_stop, stopped_callback_refuses_the_call)
{
	ASSERT_EQ(tracer_set("function_graph"), 0);
	ASSERT_EQ(tracer_set("nop"), 0);
	struct fgraph_stack *st = current_thread()->ret_stack;
	ASSERT_TRUE(st != NULL);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	static struct ftrace_regs fr;
	memset(&fr, 0, sizeof fr);
	*ftrace_regs_return_slot(&fr) = GS_PARENT;
	preempt_disable();                /* a callback runs where it cannot migrate */
	unsigned top = st->top, depth = st->depth;
	graph_fgraph_ops.ops.func((uintptr_t)gs_leaf, GS_PARENT, &graph_fgraph_ops.ops, &fr);
	unsigned top_after = st->top, depth_after = st->depth;
	st->top = top;                    /* a failing run leaves no frame behind */
	st->depth = depth;
	preempt_enable();
	rb_record_off(trace_buffer);
	unsigned events = 0;
	struct rb_iter it;
	struct rb_event ev;
	ASSERT_EQ(rb_iter_start(&it, trace_buffer, RB_ALL_CPUS), 0);
	while (rb_iter_next(&it, &ev) == 0)
		events++;
	rb_iter_end(&it);
	rb_record_on(trace_buffer);
	EXPECT_EQ(*ftrace_regs_return_slot(&fr), GS_PARENT);
	EXPECT_EQ(top_after, top);
	EXPECT_EQ(depth_after, depth);
	EXPECT_EQ(events, 0);
}
