/*
 * test_tstack.c — the trace stack (trace/core/tstack.h) on the real kernel,
 * before any compiler sled calls it: the tests make the calls the entry,
 * tail and exit sleds would make, from C, with the stack pointers of
 * frames below their own, in threads on four CPUs and in interrupts
 * (the timer hook, with a nested interrupt made by irq_enter/irq_exit
 * inside it).
 *
 * Suite `tstack` (in bt.test=all):
 *   graph_events: the function_graph tracer's own user, driven through the
 *     tail-call matrix once: the exact funcgraph_entry/exit events, depths,
 *     return values and marks in the ring buffer.
 *   four_cpus_and_interrupts: a counting user; a thread per CPU runs the
 *     matrix over and over while every timer tick runs an interrupt's
 *     sequence with a nested one: exact entries, exits, late and gone
 *     exits per CPU, every exit paired with its own entry, every stack
 *     empty at the end.
 *   sleds_switched: the same while the "sleds" of each function are turned
 *     on and off at random: every pushed entry gets exactly one exit, none
 *     paired with another's entry, every stack empty at the end.
 *   no_return_address_written: real calls entered through their ftrace
 *     sites (an ops whose callback is tstack_entry_held, as fgraph's site
 *     callbacks are to be under INSTR=xray), left by tstack_exit just
 *     before they return: each function finds __builtin_return_address(0)
 *     inside its caller at its start and at its end, and every call gets
 *     its own exit, none late or gone; the same functions under the return-hook backend find the
 *     hook there instead (the check can fail).
 * The functions named are never called: they only give the calls names.
 */
#include <errno.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/noipa.h"
#include "trace/core/fgraph.h"
#include "trace/core/fgraph_inline.h"
#include "trace/global_ops.h"
#include "trace/tracers/function_graph.h"
#include "trace/trace.h"
#include "trace/core/tstack.h"

#define T __attribute__((noinline)) noclone
#define KEEP() __asm__ volatile("" ::: "memory")

/* The names of the calls (never called) and the users' filter (never
 * called either: no site of the return-hook backend ever fires). */
T void tst_never(void) { KEEP(); }
T void tst_outer(void) { KEEP(); }
T void tst_a(void) { KEEP(); }
T void tst_b(void) { KEEP(); }
T void tst_c(void) { KEEP(); }
T void tst_rec(void) { KEEP(); }
T void tst_irq(void) { KEEP(); }
T void tst_irq_leaf(void) { KEEP(); }
T void tst_nested(void) { KEEP(); }

enum { F_OUTER, F_A, F_B, F_C, F_REC, F_IRQ, F_IRQ_LEAF, F_NESTED, NF };
static uintptr_t fn[NF];

static void names(void)
{
	void (*f[NF])(void) = { tst_outer, tst_a, tst_b, tst_c, tst_rec, tst_irq, tst_irq_leaf,
				tst_nested };
	for (int i = 0; i < NF; i++)
		fn[i] = (uintptr_t)f[i];
}

/* ---- the sleds, each maybe switched off ---- */

static unsigned sled_mask;               /* the users asked: tstack_entry's mask */
static unsigned sleds_on = ~0u;          /* bit per function; atomic */
static struct ftrace_regs no_args;       /* argument registers: all 0 */

static bool on(int f)
{
	return __atomic_load_n(&sleds_on, __ATOMIC_RELAXED) & (1u << f);
}

static void E(int f, uintptr_t sp)
{
	if (on(f))
		tstack_entry(fn[f], 0, sp, &no_args, sled_mask);
}

static void TL(int f, uintptr_t sp)
{
	if (on(f))
		tstack_tail(fn[f], sp, 0);         /* an indirect jump */
}

static void X(int f, uintptr_t sp, uint64_t ret)
{
	if (on(f))
		tstack_exit(fn[f], sp, ret);
}

/*
 * The tail-call matrix under one call of tst_outer at sp b (b1, b2: the
 * frames of its callee and of that one's callee).  With every sled on:
 * 14 entries, 11 exits, 2 gone, 1 late.
 */
#define SEQ_ENTRIES 14
#define SEQ_EXITS   11
#define SEQ_GONE    2
#define SEQ_LATE    1
static void matrix(uintptr_t b)
{
	uintptr_t b1 = b - 64, b2 = b - 128;
	E(F_OUTER, b);
	E(F_A, b1); TL(F_A, b1); E(F_B, b1); X(F_B, b1, 1);          /* traced -> traced */
	E(F_B, b1); X(F_B, b1, 2);                                   /* notrace -> traced */
	E(F_A, b1); TL(F_A, b1); E(F_B, b1); TL(F_B, b1);            /* a chain of three */
	E(F_C, b1); X(F_C, b1, 3);
	E(F_REC, b1); TL(F_REC, b1); E(F_REC, b1); TL(F_REC, b1);    /* recursion by tail calls */
	E(F_REC, b1); X(F_REC, b1, 4);
	X(F_A, b1, 5);                                               /* unpaired */
	E(F_A, b1); E(F_B, b2);                                      /* longjmp out of both, */
	E(F_C, b1); X(F_C, b1, 6);                                   /* then a call: 2 gone */
	E(F_A, b1); TL(F_A, b1);                                     /* traced -> notrace */
	X(F_OUTER, b, 7);                                            /* tst_a late */
}

/*
 * An interrupt's sequence at sp i, with a nested interrupt that leaves an
 * entry behind (popped gone when it ends): 4 entries, 3 exits, 1 gone.
 */
#define IRQ_ENTRIES 4
#define IRQ_EXITS   3
#define IRQ_GONE    1
static void irq_seq(uintptr_t i)
{
	E(F_IRQ, i);
	E(F_IRQ_LEAF, i - 64); X(F_IRQ_LEAF, i - 64, 1);
	irq_enter(NULL);                          /* a nested interrupt */
	E(F_NESTED, i - 128); X(F_NESTED, i - 128, 2);
	E(F_IRQ_LEAF, i - 128);                   /* left: gone at irq_exit */
	irq_exit();
	X(F_IRQ, i, 3);
}

/* ---- graph_events: the function_graph tracer's events ---- */

/* The events of the tst_* functions on CPU 0: "E:name:depth" and
 * "X:name:depth:retval" or "X:name:depth:late" / ":gone". */
static void events_string(char *out, size_t size)
{
	struct rb_iter it;
	struct rb_event ev;
	size_t n = 0;
	out[0] = '\0';
	if (rb_iter_start(&it, trace_buffer, 0))
		return;
	while (rb_iter_next(&it, &ev) == 0 && n + 64 < size) {
		const struct trace_entry *te = ev.data;
		const struct fgraph_ent_entry *e = ev.data;
		const struct fgraph_ret_entry *x = ev.data;
		uintptr_t func = te->type == TRACE_GRAPH_ENT ? e->func :
				 te->type == TRACE_GRAPH_RET ? x->func : 0;
		const char *name = func ? ksym_lookup(func, NULL, NULL) : NULL;
		if (!name || strncmp(name, "tst_", 4))
			continue;
		if (te->type == TRACE_GRAPH_ENT) {
			n += ksnprintf(out + n, size - n, "%sE:%s:%u", n ? " " : "", name + 4, e->depth);
			continue;
		}
		n += ksnprintf(out + n, size - n, "%sX:%s:%u:", n ? " " : "", name + 4, x->depth);
		if (x->overrun & FGRAPH_RET_MARKS)
			n += ksnprintf(out + n, size - n, "%s",
				       x->overrun & FGRAPH_RET_LATE ? "late" : "gone");
		else
			n += ksnprintf(out + n, size - n, "%lu", (unsigned long)x->retval);
	}
	rb_iter_end(&it);
}

TEST_CASE(tstack, graph_events)
{
	names();
	thread_migrate(current_thread(), 0);
	tracer_set("nop");
	ASSERT_EQ(trace_filter_set(false, "tst_never", true), 0);
	rb_record_off(trace_buffer);
	ASSERT_EQ(rb_reset(trace_buffer, RB_ALL_CPUS), 0);
	rb_record_on(trace_buffer);
	ASSERT_EQ(tracer_set("function_graph"), 0);
	sled_mask = 1u << graph_fgraph_ops.idx;
	sleds_on = ~0u;
	uintptr_t b = (uintptr_t)__builtin_frame_address(0) - 256;
	matrix(b);
	struct fgraph_stack *st = current_thread()->ret_stack;
	unsigned depth = st->depth;
	rb_record_off(trace_buffer);
	char got[1024];
	events_string(got, sizeof(got));
	rb_record_on(trace_buffer);
	tracer_set("nop");
	trace_filter_set(false, "", true);
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(depth, 0);
	const char *want =
		"E:outer:0 "
		"E:a:1 E:b:2 X:b:2:1 X:a:1:1 "
		"E:b:1 X:b:1:2 "
		"E:a:1 E:b:2 E:c:3 X:c:3:3 X:b:2:3 X:a:1:3 "
		"E:rec:1 E:rec:2 E:rec:3 X:rec:3:4 X:rec:2:4 X:rec:1:4 "
		"E:a:1 E:b:2 X:b:2:gone X:a:1:gone E:c:1 X:c:1:6 "
		"E:a:1 X:a:1:late X:outer:0:7";
	if (strcmp(got, want))
		test_fail(__FILE__, __LINE__, "events\n#   got:  %s\n#   want: %s", got, want);
}

/* ---- the counting user ---- */

#define MAGIC 0x5eedf00dull

struct per_cpu_counts {
	uint64_t entries, exits, late, gone, bad;
	uint64_t iterations, irqs;
} __attribute__((aligned(64)));
static struct per_cpu_counts counts[MAX_CPUS];

static void add(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);   /* a thread and its CPU's interrupts */
}

static bool cnt_entry(const struct fgraph_ent *e, struct fgraph_ops *g, uint64_t *data)
{
	data[0] = e->func ^ MAGIC;
	data[1] = e->depth;
	add(&counts[e->cpu->id].entries);
	return true;
}

/* An exit is its own entry's: the data words it wrote are handed back
 * with the same function and depth; a marked exit has no value. */
static void cnt_exit(const struct fgraph_ret *r, struct fgraph_ops *g, uint64_t *data)
{
	struct per_cpu_counts *c = &counts[r->cpu->id];
	if (data[0] != (r->func ^ MAGIC) || data[1] != r->depth || (r->mark && r->retval))
		add(&c->bad);
	add(r->mark == FGRAPH_RET_LATE ? &c->late : r->mark == FGRAPH_RET_GONE ? &c->gone : &c->exits);
}

static struct fgraph_ops cnt = { .entryfunc = cnt_entry, .retfunc = cnt_exit, .idx = -1 };

static volatile int running, stop;

/* The timer hook: an interrupt's sequence, at a sp below its own frame. */
static void tick(void)
{
	if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		return;
	irq_seq((uintptr_t)__builtin_frame_address(0) - 256);
	add(&counts[this_cpu()->id].irqs);
}

/* A worker on one CPU: the matrix, until told to stop (at least 200
 * times and until its CPU took 3 interrupts, in the first case).  Returns
 * the entries left on its stack (0). */
static int worker(void *arg)
{
	struct per_cpu_counts *c = &counts[cpu_id()];
	uintptr_t b = (uintptr_t)__builtin_frame_address(0) - 256;
	uint64_t end = clock_ns() + 5000000000ull;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) && clock_ns() < end) {
		matrix(b);
		c->iterations++;
		if (!arg && c->iterations >= 200 && __atomic_load_n(&c->irqs, __ATOMIC_RELAXED) >= 3)
			break;
	}
	/* All sleds on again (sleds_switched): one more pass pops what the
	 * switching left, at its sp or below. */
	while (__atomic_load_n(&sleds_on, __ATOMIC_ACQUIRE) != ~0u)
		thread_yield();
	matrix(b);
	c->iterations++;
	return (int)current_thread()->ret_stack->depth;
}

/* Count the trace stack's events per CPU; ticks: the timer interrupt runs
 * passes too (tick), else no interrupt adds to the counts. */
static bool cnt_start(bool ticks)
{
	names();
	memset(counts, 0, sizeof(counts));
	stop = 0;
	sleds_on = ~0u;
	if (ftrace_set_filter(&cnt.ops, "tst_never", true) || register_fgraph(&cnt))
		return false;
	sled_mask = 1u << cnt.idx;
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);
	if (ticks)
		timer_hook_set(tick);
	return true;
}

static void cnt_stop(void)
{
	timer_hook_set(NULL);
	__atomic_store_n(&running, 0, __ATOMIC_RELEASE);
	smp_sync_all();                 /* no CPU is left in tick() */
	unregister_fgraph(&cnt);
}

/* Every CPU's interrupt stack is empty (each interrupt's entries ended
 * with it). */
static void expect_irq_stacks_empty(const char *file, int line)
{
	for (unsigned i = 0; i < ncpus; i++) {
		struct fgraph_stack *st = fgraph_irq_stack(&cpus[i]);
		if (st->depth || st->top)
			test_fail(file, line, "CPU %u's interrupt stack holds %u entries", i, st->depth);
	}
}

/* CPU i's counts, as a KTAP diagnostic. */
static void print_counts(unsigned i)
{
	const struct per_cpu_counts *c = &counts[i];
	kprintf("    # CPU %u: %lu passes, %lu interrupts: %lu entries, %lu exits, "
		"%lu gone, %lu late\n", i, (unsigned long)c->iterations,
		(unsigned long)c->irqs, (unsigned long)c->entries, (unsigned long)c->exits,
		(unsigned long)c->gone, (unsigned long)c->late);
}

static void run_workers(bool switching, int left[MAX_CPUS])
{
	struct thread *t[MAX_CPUS];
	for (unsigned i = 0; i < ncpus; i++)
		t[i] = thread_create("tstack", worker, switching ? (void *)1 : NULL, (int)i);
	if (switching) {
		/* Each function's sleds on and off together, at random, for
		 * 300 ms, while the workers run through them. */
		uint64_t x = 0x9e3779b97f4a7c15ull, end = clock_ns() + 300000000ull;
		while (clock_ns() < end) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			__atomic_store_n(&sleds_on, (unsigned)x | ~((1u << NF) - 1), __ATOMIC_RELEASE);
			for (int k = 0; k < 50; k++)
				KEEP();
			thread_yield();
		}
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&sleds_on, ~0u, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < ncpus; i++)
		left[i] = t[i] ? thread_join(t[i]) : -1;
}

TEST_CASE(tstack, four_cpus_and_interrupts)
{
	ASSERT_TRUE(ncpus >= 4);
	ASSERT_TRUE(cnt_start(true));
	int left[MAX_CPUS];
	run_workers(false, left);
	cnt_stop();
	expect_irq_stacks_empty(__FILE__, __LINE__);
	for (unsigned i = 0; i < ncpus; i++) {
		struct per_cpu_counts *c = &counts[i];
		print_counts(i);
		EXPECT_EQ(left[i], 0);
		EXPECT_TRUE(c->iterations >= 201);
		EXPECT_TRUE(c->irqs >= 3);
		EXPECT_EQ(c->entries, SEQ_ENTRIES * c->iterations + IRQ_ENTRIES * c->irqs);
		EXPECT_EQ(c->exits, SEQ_EXITS * c->iterations + IRQ_EXITS * c->irqs);
		EXPECT_EQ(c->gone, SEQ_GONE * c->iterations + IRQ_GONE * c->irqs);
		EXPECT_EQ(c->late, SEQ_LATE * c->iterations);
		EXPECT_EQ(c->bad, 0);
	}
}

TEST_CASE(tstack, sleds_switched)
{
	ASSERT_TRUE(cnt_start(true));
	int left[MAX_CPUS];
	run_workers(true, left);
	cnt_stop();
	expect_irq_stacks_empty(__FILE__, __LINE__);
	uint64_t switched_gone = 0;
	for (unsigned i = 0; i < ncpus; i++) {
		struct per_cpu_counts *c = &counts[i];
		print_counts(i);
		EXPECT_EQ(left[i], 0);
		EXPECT_TRUE(c->iterations > 1);
		EXPECT_TRUE(c->entries > 0);
		EXPECT_EQ(c->entries, c->exits + c->late + c->gone);
		EXPECT_EQ(c->bad, 0);
		switched_gone += c->gone;
	}
	EXPECT_TRUE(switched_gone > 0);
}

/* ---- no_return_address_written ---- */

static struct thread *ra_thread;
static uintptr_t ra_sp[16];             /* entry sps of the open tsr_ calls */
static unsigned ra_n;
static unsigned long ra_bad, ra_checked;

/* Whether ra lies inside the function `caller`. */
static void ra_check(uintptr_t ra, void *caller)
{
	uintptr_t off, size, start = (uintptr_t)caller;
	ra_checked++;
	if (!ksym_lookup(start, &off, &size) || ra <= start || ra >= start + size)
		ra_bad++;
}

/* The entry sled's part: the site's callback, in the ops' recursion and
 * preemption guard, with the site's own fregs and sp. */
static void ra_site(uintptr_t ip, uintptr_t parent, struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct cpu *c = this_cpu();
	if (c->current != ra_thread || ra_n >= 16)
		return;
	uintptr_t sp = ftrace_regs_get_stack_pointer(fregs);
	ra_sp[ra_n++] = sp;
	tstack_entry_held(c, ip, parent, sp, fregs, sled_mask);
}

static struct ftrace_ops ra_ops = { .func = ra_site };

/* The exit sled's part, just before the function returns. */
static void ra_leave(void *func, long ret)
{
	if (ra_thread && ra_n)
		tstack_exit((uintptr_t)func, ra_sp[--ra_n], (uint64_t)ret);
}

#define RA_CHECKED(self, caller, body) do {                                     \
	ra_check((uintptr_t)__builtin_return_address(0), caller);                 \
	body;                                                                     \
	ra_check((uintptr_t)__builtin_return_address(0), caller);                 \
	ra_leave(self, r);                                                        \
} while (0)

T long tsr_leaf(long x, void *caller);
T long tsr_mid(long x);
T long tsr_top(long x);
T long tsr_run(long x);
T long tsr_leaf(long x, void *caller)
{
	long r;
	RA_CHECKED(tsr_leaf, caller, r = x + 1; KEEP());
	return r;
}
T long tsr_mid(long x)
{
	long r;
	RA_CHECKED(tsr_mid, tsr_top, r = tsr_leaf(x, tsr_mid) * 2; KEEP());
	return r;
}
T long tsr_top(long x)
{
	long r;
	RA_CHECKED(tsr_top, tsr_run, r = tsr_mid(x) + tsr_leaf(x, tsr_top); KEEP());
	return r;
}
T long tsr_run(long x) { long r = tsr_top(x); KEEP(); return r; }

TEST_CASE(tstack, no_return_address_written)
{
	/* The trace stack: tsr_* entered through their sites. */
	ASSERT_TRUE(cnt_start(false));   /* exact counts: no interrupt's pass */
	ra_thread = current_thread();
	ra_n = 0;
	ra_bad = ra_checked = 0;
	ASSERT_EQ(ftrace_set_filter(&ra_ops, "tsr_leaf tsr_mid tsr_top", true), 0);
	ASSERT_EQ(register_ftrace_function(&ra_ops), 0);
	thread_migrate(current_thread(), 0);             /* counts[0] */
	struct per_cpu_counts *c = &counts[0];
	long r = tsr_run(5);
	unsigned depth = current_thread()->ret_stack->depth;
	unregister_ftrace_function(&ra_ops);
	ra_thread = NULL;
	cnt_stop();
	EXPECT_EQ(r, 18);
	EXPECT_EQ(depth, 0);
	EXPECT_EQ(ra_n, 0);
	EXPECT_EQ(ra_checked, 8);
	EXPECT_EQ(ra_bad, 0);
	EXPECT_EQ(c->entries, 4);
	EXPECT_EQ(c->exits, 4);
	EXPECT_EQ(c->gone + c->late + c->bad, 0);
	/* A graph user on the same calls, through the backend's own sites.
	 * INSTR=xray: the real entry, exit and tail sleds, the same counts,
	 * and no return address written.  The return-hook backend fails the
	 * same check, as it must: every hooked call's return address is the
	 * hook (asserted, so that the check is seen to catch it). */
	ra_checked = ra_bad = 0;
	memset(counts, 0, sizeof(counts));
	ASSERT_EQ(ftrace_set_filter(&cnt.ops, "tsr_leaf tsr_mid tsr_top", true), 0);
	ASSERT_EQ(register_fgraph(&cnt), 0);
	r = tsr_run(5);
	unregister_fgraph(&cnt);
	thread_migrate(current_thread(), -1);
	EXPECT_EQ(r, 18);
	EXPECT_EQ(ra_checked, 8);
	EXPECT_EQ(ra_bad, FGRAPH_TSTACK ? 0 : 8);
	EXPECT_EQ(counts[0].entries, 4);
	EXPECT_EQ(counts[0].exits, 4);
	EXPECT_EQ(counts[0].gone + counts[0].late + counts[0].bad, 0);
	EXPECT_EQ(current_thread()->ret_stack->depth, 0);
}
