/*
 * ftrace_harness.c — the helpers the ftrace suite's files share
 * (ftrace_harness.h): the traced target ft_leaf, a counting callback ops,
 * the function tracers' events counted in the trace buffer, and the
 * event-header states' calls and checks.  Test
 * context only (thread, no lock held); count_cb runs in any context its
 * functions are called in and only adds with atomics (last_ip and
 * last_parent: plain stores, read once the calls are over).
 */
#include <stdlib.h>
#include <string.h>

#include "boot/cpu.h"
#include "boot/sched.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "patch/tramp.h"

#include "tests/guest/ftrace_harness.h"
#include "tests/guest/irq_probe.h"
#include "trace/core/fgraph.h"
#include "trace/global_ops.h"
#include "trace/options.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"

/* Traced (built with patchable entries like all test code); noinline and an
 * empty asm keep every call a real call. */
#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

T int ft_leaf(int x) { KEEP(); return x * 2; }

/* A static sharing its name with test_ftrace.c's (another prototype), and
 * the way in: filter_by_index tells the two apart by index. */
static T noipa long ft_twin(long a, long b) { KEEP(); return a * b; }
T long ft_twin_harness(long a, long b) { return ft_twin(a, b) + 1; }

void count_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct counter *c = (struct counter *)op;
	if (ip == (uintptr_t)ft_leaf) {
		__atomic_fetch_add(&c->leaf_hits, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&c->hits, 1, __ATOMIC_RELAXED);
	c->last_ip = ip;
	c->last_parent = parent;
	if (ftrace_get_regs(fregs))
		__atomic_fetch_add(&c->frames, 1, __ATOMIC_RELAXED);
	if (ftrace_regs_get_instruction_pointer(fregs) != ip ||
	    ftrace_regs_get_return_address(fregs) != parent)
		__atomic_fetch_add(&c->bad, 1, __ATOMIC_RELAXED);
}

void counter_init(struct counter *c, const char *filter)
{
	memset(c, 0, sizeof(*c));
	c->ops.func = count_cb;
	if (filter)
		ftrace_set_filter(&c->ops, filter, true);
}

unsigned events_headers(uint16_t type, uintptr_t func, struct trace_entry *out, unsigned max)
{
	struct rb_iter it;
	struct rb_event ev;
	unsigned n = 0;
	if (rb_iter_start(&it, trace_buffer, RB_ALL_CPUS))
		return 0;
	while (rb_iter_next(&it, &ev) == 0) {
		const struct trace_entry *ent = ev.data;
		const uint64_t *words = ev.data;          /* ip / func: the word after the header */
		if (ent->type == type && words[1] == func && n++ < max)
			out[n - 1] = *ent;
	}
	rb_iter_end(&it);
	return n;
}

unsigned events_of(uint16_t type, uintptr_t func)
{
	return events_headers(type, func, NULL, 0);
}

unsigned fn_events(uintptr_t func)
{
	return events_of(TRACE_FN, func);
}

void call_irqs_off(void (*fn)(int), bool nr)
{
	unsigned long f = arch_irq_save();
	struct cpu *c = this_cpu();
	bool was = __atomic_exchange_n(&c->need_resched, nr ? CPU_NEED_RESCHED : 0, __ATOMIC_RELAXED);
	fn(1);
	if (was)
		__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
	else if (nr)
		__atomic_store_n(&c->need_resched, 0, __ATOMIC_RELAXED);
	arch_irq_restore(f);
}

void header_state_calls(void (*fn)(int))
{
	call_irqs_off(fn, false);                       /* 0: irqs off */
	call_irqs_off(fn, true);                        /* 1: and need-resched */
	preempt_disable();
	preempt_disable();
	preempt_disable();
	call_irqs_off(fn, false);                       /* 2: count + 3 */
	for (int i = 0; i < 14; i++)
		preempt_disable();
	call_irqs_off(fn, false);                       /* 3: count + 17, shown 15 */
	for (int i = 0; i < 17; i++)
		preempt_enable();
	fn(1);                                          /* 4: irqs on */
}

void header_state_check(const struct trace_entry *h, unsigned k, unsigned pc0, int pid)
{
	const uint8_t off = TRACE_FLAG_IRQS_OFF, nr = TRACE_FLAG_NEED_RESCHED;
	const struct { uint8_t flags, pc; } want[HEADER_STATES] = {
		{ off, pc0 }, { off | nr, pc0 }, { off, pc0 + 3 },
		{ off, pc0 + 17 > 15 ? 15 : pc0 + 17 }, { 0, pc0 },
	};
	ASSERT_TRUE(k < HEADER_STATES);
	EXPECT_EQ(k == 4 ? h->flags & ~nr : h->flags, want[k].flags);
	EXPECT_EQ(h->preempt_count, want[k].pc);
	EXPECT_EQ(h->pid, pid);
}

void header_hardirq_check(const struct trace_entry *q, unsigned m, int pid)
{
	ASSERT_EQ(m, 1u);
	EXPECT_EQ(q[0].flags & ~TRACE_FLAG_NEED_RESCHED, TRACE_FLAG_HARDIRQ | TRACE_FLAG_IRQS_OFF);
	EXPECT_EQ(q[0].pid, pid);
}

static void fill_cb(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op,
		    struct ftrace_regs *fregs) { }

void pool_fill(const char *filter, struct ftrace_ops **fill_out, unsigned *n_out)
{
	*fill_out = NULL;
	*n_out = 0;
	struct tramp_stats ts;
	tramp_get_stats(&ts);
	struct ftrace_ops *fill = calloc(ts.slots + 1, sizeof(*fill));
	ASSERT_TRUE(fill != NULL);
	unsigned n = 0;
	for (; n <= ts.slots; n++) {
		fill[n].func = fill_cb;
		ASSERT_EQ(ftrace_set_filter(&fill[n], filter, true), 0);
		ASSERT_EQ(register_ftrace_function(&fill[n]), 0);
		if (!fill[n].tramp) {
			EXPECT_EQ(unregister_ftrace_function(&fill[n]), 0);
			break;
		}
	}
	EXPECT_TRUE(n <= ts.slots);            /* the pool did run out */
	*fill_out = fill;
	*n_out = n;
}

void pool_release(struct ftrace_ops *fill, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		EXPECT_EQ(unregister_ftrace_function(&fill[i]), 0);
	free(fill);
}

static bool graph_other_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	return true;
}

static void graph_other_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data) { }

#define GRAPH_HEADERS_MAX 16

unsigned headers_collect(uint16_t type, uintptr_t leaf, struct trace_entry *h,
			 struct trace_entry *q, unsigned max, unsigned *m)
{
	unsigned n = events_headers(type, leaf, h, max);
	*m = events_headers(type, (uintptr_t)irq_probe_work, q, max);
	tracer_set("nop");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
	return n;
}

void graph_headers_exact(uint16_t type, void (*leaf)(int), const char *name)
{
	static struct fgraph_ops other = { .entryfunc = graph_other_entry,
					   .retfunc = graph_other_exit, .idx = -1 };
	char filter[96];
	size_t len = strlen(name);
	ASSERT_TRUE(len < 48);
	memcpy(filter, name, len);
	strcpy(filter + len, " irq_probe_work irq_probe_spin");
	thread_migrate(current_thread(), 0);
	/* EXPECT only: every path ends in the cleanup below. */
	EXPECT_EQ(trace_filter_set(false, filter, true), 0);
	EXPECT_EQ(trace_opt_set("funcgraph-irqs"), 0);
	EXPECT_EQ(tracer_set("function_graph"), 0);    /* clears the buffer */
	unsigned pc0 = current_thread()->preempt_count;
	header_state_calls(leaf);                       /* the tracer's own paths */
	EXPECT_EQ(ftrace_set_filter(&other.ops, name, true), 0);
	bool listed = register_fgraph(&other) == 0;
	EXPECT_TRUE(listed);
	header_state_calls(leaf);                       /* the several users' paths */
	if (listed)
		EXPECT_EQ(unregister_fgraph(&other), 0);
	EXPECT_EQ(irq_probe_run(current_thread()), 1);  /* irq_probe_work in the tick */

	struct trace_entry h[GRAPH_HEADERS_MAX], q[GRAPH_HEADERS_MAX];
	unsigned m, n = headers_collect(type, (uintptr_t)leaf, h, q, GRAPH_HEADERS_MAX, &m);

	int pid = (int)current_thread()->tid;
	ASSERT_EQ(n, 2u * HEADER_STATES);
	for (unsigned i = 0; i < n; i++)
		header_state_check(&h[i], i % HEADER_STATES, pc0, pid);
	header_hardirq_check(q, m, pid);                /* from the timer interrupt */
}
