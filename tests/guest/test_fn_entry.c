/*
 * test_fn_entry.c — suite fn_entry: the function tracer's per-event context,
 * exact (issue 23).
 *
 * The callback's fast path tests recursion and the dead flag in one AND
 * (trace/core/recursion.h, ftrace_callback_free_on) and takes the hardirq
 * flag from cpu.trace_ctx where the header word wants it (boot/cpu.h,
 * trace_entry_fill_on).  Here each TRACE_FN header written for fe_leaf is
 * compared whole with what Linux's format says for the state it was
 * called in: irqs-off, need-resched, the preemption count (clamped to 15),
 * hardirq from the timer interrupt, the pid; and no event while this CPU's
 * dead byte is set or the context's callbacks' bit is held.
 */
#include <stdbool.h>

#include "boot/cpu.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "tests/guest/ftrace_harness.h"
#include "tests/guest/irq_probe.h"
#include "trace/global_ops.h"
#include "trace/core/recursion.h"
#include "trace/trace.h"
#include "trace/tracers/function.h"

#define T __attribute__((noinline)) noclone

static volatile int fe_sink;
T void fe_leaf(int x) { fe_sink = x; }

#define MAXE 16

TEST_CASE(fn_entry, header_flags_exact)
{
	thread_migrate(current_thread(), 0);
	EXPECT_EQ(trace_filter_set(false, "fe_leaf irq_probe_work", true), 0);
	EXPECT_EQ(tracer_set("function"), 0);          /* clears the buffer */
	unsigned pc0 = current_thread()->preempt_count;

	header_state_calls(fe_leaf);                    /* 0-4 (ftrace_harness.h) */

	/* No event while this CPU's dead byte is set (the guard word's
	 * second byte) nor while the callbacks' bit of this context is
	 * held; then one again. */
	unsigned long f = arch_irq_save();
	struct cpu *c = this_cpu();
	__atomic_store_n(&c->ftrace_dead, 1, __ATOMIC_RELAXED);
	fe_leaf(2);
	__atomic_store_n(&c->ftrace_dead, 0, __ATOMIC_RELAXED);
	unsigned bit = ftrace_recursion_take_on(c, 0);
	fe_leaf(3);
	ftrace_recursion_exit_on(c, bit);
	fe_leaf(4);                                     /* 5: irqs off again */
	arch_irq_restore(f);
	EXPECT_EQ(bit, 1u);                             /* the task context's */

	EXPECT_EQ(irq_probe_run(current_thread()), 1);  /* irq_probe_work in the tick */

	struct trace_entry h[MAXE], q[MAXE];
	unsigned m, n = headers_collect(TRACE_FN, (uintptr_t)fe_leaf, h, q, MAXE, &m);

	int pid = (int)current_thread()->tid;
	ASSERT_EQ(n, HEADER_STATES + 1u);
	for (unsigned i = 0; i < HEADER_STATES; i++)
		header_state_check(&h[i], i, pc0, pid);
	header_state_check(&h[5], 0, pc0, pid);         /* 5: irqs off, as 0 */
	header_hardirq_check(q, m, pid);                /* from the timer interrupt */
}
