/*
 * test_fgraph_hook.c — what the return hook calls (trace/core/fgraph_hooks.h,
 * fgraph_hook_return): the one registered user's solo_return, for which the
 * hook saves no FP/SIMD register, or NULL (the hook saves them and calls
 * fgraph_return).  The pointer follows the users; a solo_return outside
 * FTRACE_HOT_NOFP text is refused; a frame the solo_return does not own
 * goes to fgraph_return through its FP-saving thunk with the return
 * registers intact (suite fgraph_hook).
 *
 * hk_fp and hk_outer are traced targets returning a double (v0 / xmm0);
 * hk_outer calls hk_during (not traced), which changes the users while
 * hk_outer's frame is on the stack.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/compiler.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_hooks.h"
#include "trace/core/ftrace.h"
#include "trace/global_ops.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"
#include "trace/tracers/function_graph.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

struct hook_user {
	struct fgraph_ops g;
	unsigned long entries, exits;
};

static struct thread *hk_thread;       /* whose calls count */
static struct hook_user u;

static bool hu_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	if (this_cpu()->current != hk_thread)
		return false;
	((struct hook_user *)g)->entries++;
	return true;
}

static void hu_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	if (this_cpu()->current == hk_thread)
		((struct hook_user *)g)->exits++;
}

static void hu_init(void)
{
	memset(&u, 0, sizeof(u));
	u.g.entryfunc = hu_entry;
	u.g.retfunc = hu_exit;
	u.g.idx = -1;
}

static void (*during)(void);           /* what hk_outer does inside */

T notrace void hk_during(void) { during(); }
T double hk_fp(double a, int k) { KEEP(); return a * 3.0 + k; }
T double hk_outer(double a) { hk_during(); KEEP(); return a / 4.0 + 1.0; }

/* Not FTRACE_HOT_NOFP text: register_fgraph must refuse it as a solo_return
 * (the exit sled's, with ftrace_sled_exit's arguments, under FGRAPH_TSTACK). */
#if FGRAPH_TSTACK
static uintptr_t hk_plain_return(uint64_t x0, uintptr_t at, uintptr_t sp)
#else
static uintptr_t hk_plain_return(uint64_t retval, uintptr_t sp)
#endif
{
	return 0;
}

static void stop_tracer(void)
{
	tracer_set("nop");
	trace_filter_set(false, "", true);
}

TEST_CASE(fgraph_hook, solo_return_outside_nofp_text_is_refused)
{
	hu_init();
	u.g.solo_return = hk_plain_return;
	EXPECT_EQ(register_fgraph(&u.g), -EINVAL);
	EXPECT_EQ(u.g.idx, -1);
	EXPECT_TRUE(fgraph_hook_return == NULL);
	EXPECT_EQ(unregister_fgraph(&u.g), -EINVAL);
}

/* The tracer alone: its solo_return.  With a second user (without one):
 * NULL, and back when it leaves.  A double returned through either stays
 * exact.  What the exit sled's handler calls (fgraph_ts_exit, fgraph.h)
 * follows the users alike: the tracer alone, its solo_return; a second
 * user, __fexit_fp under FGRAPH_TSTACK (neither the solo_return nor NULL);
 * none, NULL, or __fexit_fp where the handler learns that there is none
 * otherwise and calls through the pointer unread (site.h,
 * ARCH_FEXIT_NEVER_NULL and arch_fexit_set: never NULL there, whenever a
 * CPU reads it). */
TEST_CASE(fgraph_hook, pointer_follows_the_users)
{
	double want = hk_fp(1.25, 7);
	fgraph_solo_return_t none = fgraph_ts_exit;
	EXPECT_TRUE(fgraph_hook_return == NULL);
	EXPECT_TRUE(!FGRAPH_TSTACK || (ARCH_FEXIT_NEVER_NULL ? none != NULL : none == NULL));
	ASSERT_TRUE(graph_fgraph_ops.solo_return != NULL);
	ASSERT_EQ(trace_filter_set(false, "hk_fp", true), 0);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	EXPECT_TRUE(fgraph_hook_return == graph_fgraph_ops.solo_return);
	EXPECT_TRUE(fgraph_ts_exit == graph_fgraph_ops.solo_return);
	EXPECT_TRUE(hk_fp(1.25, 7) == want);
	hu_init();
	hk_thread = current_thread();
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "hk_fp", true), 0);
	ASSERT_EQ(register_fgraph(&u.g), 0);
	EXPECT_TRUE(fgraph_hook_return == NULL);
	fgraph_solo_return_t general = fgraph_ts_exit;
	EXPECT_TRUE(!FGRAPH_TSTACK || (general != NULL && general != graph_fgraph_ops.solo_return));
	EXPECT_TRUE(hk_fp(1.25, 7) == want);
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	EXPECT_EQ(u.entries, 1);
	EXPECT_EQ(u.exits, 1);
	EXPECT_TRUE(fgraph_hook_return == graph_fgraph_ops.solo_return);
	EXPECT_TRUE(fgraph_ts_exit == graph_fgraph_ops.solo_return);
	EXPECT_TRUE(hk_fp(1.25, 7) == want);
	stop_tracer();
	EXPECT_TRUE(fgraph_hook_return == NULL);
	EXPECT_TRUE(fgraph_ts_exit == none);
	EXPECT_TRUE(!FGRAPH_TSTACK || !ARCH_FEXIT_NEVER_NULL || fgraph_ts_exit == general);
	hk_thread = NULL;
}

/* u leaves and the tracer comes while u's call of hk_outer is open: the
 * frame reaches the tracer's solo_return, which does not own it (u's tag),
 * and hands it to fgraph_return through the FP-saving thunk: popped with
 * no exit (u is gone, the tracer did not take the call: no exit event for
 * hk_outer), the double returned exact, the stack empty after. */
static void u_gives_way_to_tracer(void)
{
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	EXPECT_EQ(trace_filter_set(false, "hk_fp", true), 0);
	EXPECT_EQ(tracer_set("function_graph"), 0);
	EXPECT_TRUE(fgraph_hook_return == graph_fgraph_ops.solo_return);
}

static unsigned exits_of(uintptr_t func)
{
	unsigned n = 0;
	struct rb_iter it;
	struct rb_event ev;
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS) != 0)
		return ~0u;
	while (rb_iter_next(&it, &ev) == 0) {
		const struct fgraph_ret_entry *x = ev.data;
		n += x->ent.type == TRACE_GRAPH_RET && x->func == func;
	}
	rb_iter_end(&it);
	return n;
}

static void nothing(void) { }

TEST_CASE(fgraph_hook, foreign_frame_goes_to_fgraph_return)
{
	during = nothing;
	double want = hk_outer(6.5);
	hu_init();
	hk_thread = current_thread();
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "hk_outer", true), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(register_fgraph(&u.g), 0);
	during = u_gives_way_to_tracer;
	double got = hk_outer(6.5);
	struct fgraph_stats s;
	fgraph_stats(&s);
	rb_record_off(trace_buffer);
	EXPECT_TRUE(got == want);
	EXPECT_EQ(u.entries, 1);
	EXPECT_EQ(u.exits, 0);
	EXPECT_EQ(s.depth, 0);
	EXPECT_EQ(exits_of((uintptr_t)hk_outer), 0);
	EXPECT_TRUE(!ftrace_is_dead());
	rb_record_on(trace_buffer);
	stop_tracer();
	hk_thread = NULL;
}

/* Two users on hk_fp: the tracer (a solo_return) and u (none); hk_outer
 * the tracer's alone.  While both are registered the hook calls
 * fgraph_return (pointer NULL): each hk_fp call reaches both exits (u's
 * count, the tracer's exit events), an hk_outer call the tracer's alone,
 * the doubles exact; when u leaves the pointer is the tracer's again and
 * its calls reach the tracer alone.  A pointer kept at the tracer's
 * solo_return while u is registered fails the NULL check only: the
 * solo_return's own tag and SP compare send the two-user frames on, and
 * the tracer's own frames it would run inline as fgraph_return does. */
TEST_CASE(fgraph_hook, two_users_reach_both_exits)
{
	double want[3] = { hk_fp(0.5, 1), hk_fp(-2.75, 4), hk_fp(1e-3, -9) };
	during = nothing;
	double want_outer = hk_outer(-3.5);
	hu_init();
	hk_thread = current_thread();
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "hk_fp", true), 0);
	ASSERT_EQ(trace_filter_set(false, "hk_fp hk_outer", true), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	ASSERT_EQ(register_fgraph(&u.g), 0);
	EXPECT_TRUE(fgraph_hook_return == NULL);
	double got[3] = { hk_fp(0.5, 1), hk_fp(-2.75, 4), hk_fp(1e-3, -9) };
	double got_outer = hk_outer(-3.5);
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	EXPECT_TRUE(fgraph_hook_return == graph_fgraph_ops.solo_return);
	double last = hk_fp(0.5, 1);
	rb_record_off(trace_buffer);
	unsigned both = exits_of((uintptr_t)hk_fp);
	unsigned outer = exits_of((uintptr_t)hk_outer);
	rb_record_on(trace_buffer);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(got[i] == want[i]);
	EXPECT_TRUE(last == want[0]);
	EXPECT_TRUE(got_outer == want_outer);
	EXPECT_EQ(u.entries, 3);
	EXPECT_EQ(u.exits, 3);
	EXPECT_EQ(both, 4);
	EXPECT_EQ(outer, 1);
	stop_tracer();
	EXPECT_TRUE(fgraph_hook_return == NULL);
	hk_thread = NULL;
}

/* What u's exit does with FP/SIMD below: a double computed and returned,
 * through the FP/SIMD return register (v0 / xmm0) as any C code may. */
static volatile double hk_junk_in = 0.75, hk_junk_out;
static __attribute__((noinline)) noclone double hk_junk(double x) { KEEP(); return x * -5.5 + 0.125; }

static void hu_exit_fp(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	hu_exit(r, g, data);
	hk_junk_out = hk_junk(hk_junk_in);
}

/* u alone on hk_fp, with an exit that overwrites the FP/SIMD return
 * register: u has no solo_return, so the pointer is NULL and the exit goes
 * the general way, which keeps the return registers for the callbacks (the
 * return hook's FP/SIMD saves; under INSTR=xray __fexit_fp's); the double
 * comes back exact, three calls, each with its exit. */
TEST_CASE(fgraph_hook, general_exit_keeps_the_fp_return)
{
	double want[3] = { hk_fp(0.5, 1), hk_fp(-2.75, 4), hk_fp(1e-3, -9) };
	hu_init();
	u.g.retfunc = hu_exit_fp;
	hk_thread = current_thread();
	ASSERT_EQ(ftrace_set_filter(&u.g.ops, "hk_fp", true), 0);
	ASSERT_EQ(register_fgraph(&u.g), 0);
	EXPECT_TRUE(fgraph_hook_return == NULL);
	double got[3] = { hk_fp(0.5, 1), hk_fp(-2.75, 4), hk_fp(1e-3, -9) };
	EXPECT_EQ(unregister_fgraph(&u.g), 0);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(got[i] == want[i]);
	EXPECT_EQ(u.entries, 3);
	EXPECT_EQ(u.exits, 3);
	EXPECT_TRUE(hk_junk_out == 0.75 * -5.5 + 0.125);
	hk_thread = NULL;
}
