/*
 * test_ftrace_recl.c — trampolines freed and updates made while the
 * callers, and the updater, are preempted and moved (suite `ftrace`):
 * trampoline_reclamation (a freed trampoline is never run again, and a
 * reclaimed one is nothing but the arch's trap fill) and
 * updates_while_this_thread_migrates (a site batch runs on one CPU from
 * start to end though the thread that updates is moved between them).
 * Both need threads on other CPUs calling ft_recl, this file's traced
 * target (noinline and an empty asm keep every call a real call).  The ops
 * core's cases are test_ftrace.c's; struct counter: ftrace_harness.h.
 */
#include <stdbool.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "patch/tramp.h"
#include "tests/guest/ftrace_harness.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

#define T __attribute__((noinline))
#define KEEP() __asm__ volatile("" ::: "memory")

/*
 * Freed trampolines are never executed, and a reclaimed one holds nothing
 * but traps.  Two threads per CPU but this one's (CPU 0) call ft_recl
 * without pause, so the timer preempts them, and each hops to the next of
 * those CPUs every 256 calls;
 * meanwhile this CPU gives ft_recl an ops with its own trampoline, adds a
 * second (the list caller), removes the first (the site moves to the
 * second's trampoline, the first is retired), removes the second, and
 * passes a grace period: both slots must then be the arch's trap fill
 * (arch_tramp_poison), byte for byte.  A late entry into a freed slot
 * would run into those traps and end the run with a fatal exception (the
 * crash case crash_tramp shows that report).  A timer hook counts the
 * ticks that interrupted code in the pool, where the scheduler must not
 * preempt (boot/irq.c), and asks for a reschedule at each: the tick's own
 * exit is then the preemption the rule forbids, so a scheduler that broke
 * the rule would switch a thread out inside a trampoline at every such
 * tick (some of them on a slot about to be retired), not only when its
 * time slice happened to end there.  The case fails unless some ticks
 * landed in the pool: without them it says nothing of the rule.
 */
T int ft_recl(int x) { KEEP(); return x + 5; }

/* At least RECL_ROUNDS rounds, then more until the callers were preempted
 * and migrated RECL_MIN_* times, for at most RECL_MAX_NS of guest time.
 * 150 rounds reach them in the default configuration (4 vCPUs, TCG;
 * measured 770 to 1250 preemptions on arm64, 4100 to 4800 on x86-64, about
 * 19,500 migrations); with single-threaded TCG fewer ticks land in a round
 * (137 preemptions were seen), hence the extra rounds.  A scheduler that
 * stopped preempting or moving the callers fails it (0 of either). */
#define RECL_ROUNDS 150
#define RECL_MAX_NS 20000000000ull
#define RECL_THREADS_PER_CPU 2
#define RECL_MIN_PREEMPTED 300
#define RECL_MIN_MIGRATED 1000

struct recl_worker {
	bool free;                            /* hop over every CPU, unpinned between hops */
	unsigned long calls;                  /* atomic (main polls it) */
	unsigned long preempted, migrated;    /* atomic: owner writes, main polls */
	unsigned long hops, wrong;            /* owner; read after join */
};
static int recl_quit;                          /* atomic */
static unsigned long recl_pool_ticks;          /* atomic */

static void recl_tick(void)
{
	struct cpu *c = this_cpu();
	uintptr_t pc = arch_frame_pc(c->irq_frame);
	if (pc >= (uintptr_t)__tramp_pool_start && pc < (uintptr_t)__tramp_pool_end) {
		__atomic_fetch_add(&recl_pool_ticks, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
	}
}

/* Between two calls of ft_recl a change of CPU is a migration, and a new
 * switch-in without one of our own hops is a preemption. */
static int recl_thread(void *arg)
{
	struct recl_worker *w = arg;
	struct thread *me = current_thread();
	uint64_t sw = me->switches_in;
	unsigned cpu = cpu_id();
	for (unsigned long i = 0; !__atomic_load_n(&recl_quit, __ATOMIC_RELAXED); i++) {
		if (ft_recl((int)i) != (int)i + 5)
			w->wrong++;
		__atomic_fetch_add(&w->calls, 1, __ATOMIC_RELAXED);
		uint64_t sw_now = __atomic_load_n(&me->switches_in, __ATOMIC_RELAXED);
		unsigned cpu_now = cpu_id();
		if (sw_now != sw)
			__atomic_store_n(&w->preempted, w->preempted + 1, __ATOMIC_RELAXED);
		if (cpu_now != cpu)
			__atomic_store_n(&w->migrated, w->migrated + 1, __ATOMIC_RELAXED);
		sw = sw_now;
		cpu = cpu_now;
		if (i % 256 == 255) {
			/* Hop to the next callers' CPU (1 .. ncpus-1), or to the
			 * next CPU and then wherever the balancer puts us. */
			if (w->free) {
				thread_migrate(me, (int)((cpu + 1) % ncpus));
				thread_migrate(me, -1);
			} else {
				thread_migrate(me, (int)(cpu % (ncpus - 1) + 1));
			}
			w->hops++;
			sw = __atomic_load_n(&me->switches_in, __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static void recl_wait_calls(struct recl_worker *w, unsigned n, unsigned long more)
{
	unsigned long from = 0, now;
	for (unsigned i = 0; i < n; i++)
		from += __atomic_load_n(&w[i].calls, __ATOMIC_RELAXED);
	uint64_t end = clock_ns() + 1000000000ull;
	do {
		now = 0;
		for (unsigned i = 0; i < n; i++)
			now += __atomic_load_n(&w[i].calls, __ATOMIC_RELAXED);
		thread_yield();
	} while (now - from < more && clock_ns() < end);
}

/* Enough preemptions and migrations of the callers yet? */
static bool recl_enough(const struct recl_worker *w, unsigned n)
{
	unsigned long p = 0, m = 0;
	for (unsigned i = 0; i < n; i++) {
		p += __atomic_load_n(&w[i].preempted, __ATOMIC_RELAXED);
		m += __atomic_load_n(&w[i].migrated, __ATOMIC_RELAXED);
	}
	return p >= RECL_MIN_PREEMPTED && m >= RECL_MIN_MIGRATED;
}

static bool slot_is_poison(uintptr_t slot)
{
	static uint8_t traps[ARCH_TRAMP_SIZE];
	arch_tramp_poison(traps, sizeof(traps));
	return memcmp((const void *)slot, traps, sizeof(traps)) == 0;
}

TEST_CASE(ftrace, trampoline_reclamation)
{
	static struct counter a, b;
	static struct recl_worker w[RECL_THREADS_PER_CPU * MAX_CPUS];
	struct thread *t[RECL_THREADS_PER_CPU * MAX_CPUS];
	if (ncpus < 3)
		TEST_SKIP("needs three CPUs");
	/* This thread alone on CPU 0, the callers on the others. */
	unsigned n = RECL_THREADS_PER_CPU * (ncpus - 1);
	thread_migrate(current_thread(), 0);
	counter_init(&a, "ft_recl");
	counter_init(&b, "ft_recl");
	memset(w, 0, sizeof(w));
	__atomic_store_n(&recl_quit, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&recl_pool_ticks, 0, __ATOMIC_RELAXED);
	struct tramp_stats ts0, ts1;
	tramp_get_stats(&ts0);
	timer_hook_set(recl_tick);
	for (unsigned i = 0; i < n; i++)
		t[i] = thread_create("recl", recl_thread, &w[i], (int)(i % (ncpus - 1) + 1));
	unsigned unpoisoned = 0, no_tramp = 0, err = 0, rounds = 0;
	uint64_t end = clock_ns() + RECL_MAX_NS;
	for (; !err && (rounds < RECL_ROUNDS || (!recl_enough(w, n) && clock_ns() < end));
	     rounds++) {
		err |= register_ftrace_function(&a.ops) != 0;
		uintptr_t ta = a.ops.tramp;
		recl_wait_calls(w, n, 64);
		err |= register_ftrace_function(&b.ops) != 0;
		uintptr_t tb = b.ops.tramp;
		recl_wait_calls(w, n, 64);
		err |= unregister_ftrace_function(&a.ops) != 0;     /* ta retired */
		recl_wait_calls(w, n, 64);
		err |= unregister_ftrace_function(&b.ops) != 0;     /* tb retired */
		recl_wait_calls(w, n, 16);
		ftrace_reclaim_trampolines();                                 /* both reclaimed */
		no_tramp += !ta || !tb;
		unpoisoned += (ta && !slot_is_poison(ta)) + (tb && !slot_is_poison(tb));
	}
	__atomic_store_n(&recl_quit, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		thread_join(t[i]);
	timer_hook_set(NULL);
	thread_migrate(current_thread(), -1);
	tramp_get_stats(&ts1);
	unsigned long calls = 0, preempted = 0, migrated = 0, hops = 0, wrong = 0;
	for (unsigned i = 0; i < n; i++) {
		calls += w[i].calls;
		preempted += w[i].preempted;
		migrated += w[i].migrated;
		hops += w[i].hops;
		wrong += w[i].wrong;
	}
	kprintf("    # %u rounds, %lu calls by %u threads: %lu preempted, %lu migrated (%lu hops "
		"asked), %lu ticks in pool trampolines, %lu slots reclaimed\n", rounds, calls,
		n, preempted, migrated, hops, recl_pool_ticks, ts1.reclaimed - ts0.reclaimed);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(no_tramp, 0);
	EXPECT_EQ(unpoisoned, 0);
	EXPECT_EQ(wrong, 0);
	EXPECT_TRUE(ts1.reclaimed - ts0.reclaimed >= 2 * rounds);
	EXPECT_EQ(ts1.used, 0);
	EXPECT_TRUE(a.hits > 0 && b.hits > 0);
	EXPECT_EQ(a.bad + b.bad, 0);
	EXPECT_TRUE(preempted >= RECL_MIN_PREEMPTED);
	EXPECT_TRUE(migrated >= RECL_MIN_MIGRATED);
	EXPECT_TRUE(recl_pool_ticks > 0);
	EXPECT_EQ(rec_find((uintptr_t)ft_recl)->flags, 0);
}

/*
 * The thread that updates sites holds only the ftrace lock, a sleeping
 * mutex: it is preempted, and the balancer moves it, in the middle of an
 * update too.  Each site batch still runs on one CPU from start to end
 * (patch.c keeps preemption off across it: x86-64's batch keeps this CPU's
 * text alias mapped between its steps).  Here this thread is unpinned and
 * twice as many callers as CPUs, unpinned too, hop between all CPUs, while
 * this thread registers and unregisters an ops on ft_recl: every update
 * succeeds and the calls keep their result.  How often this thread changed
 * CPU between updates is printed, not asserted (a few times in 150 rounds;
 * the moves that matter happen inside updates, where nothing can count
 * them): without patch.c's preemption-off batch, x86-64 panicked
 * ("x86_poke_page: ... not in a batch") in each of three runs.
 */
TEST_CASE(ftrace, updates_while_this_thread_migrates)
{
	static struct counter a;
	static struct recl_worker w[2 * MAX_CPUS];
	struct thread *t[2 * MAX_CPUS];
	unsigned n = 2 * ncpus, err = 0, moved = 0, cpu = cpu_id();
	counter_init(&a, "ft_recl");
	memset(w, 0, sizeof(w));
	__atomic_store_n(&recl_quit, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++) {
		w[i].free = true;
		t[i] = thread_create("recl", recl_thread, &w[i], -1);
	}
	for (unsigned r = 0; r < 150 && !err; r++) {
		err |= register_ftrace_function(&a.ops) != 0;
		recl_wait_calls(w, n, 64);
		err |= unregister_ftrace_function(&a.ops) != 0;
		moved += cpu_id() != cpu;
		cpu = cpu_id();
	}
	__atomic_store_n(&recl_quit, 1, __ATOMIC_RELAXED);
	unsigned long wrong = 0;
	for (unsigned i = 0; i < n; i++) {
		thread_join(t[i]);
		wrong += w[i].wrong;
	}
	kprintf("    # this thread changed CPU %u times in 150 rounds of updates\n", moved);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(wrong, 0);
	EXPECT_TRUE(a.hits > 0);
	EXPECT_EQ(rec_find((uintptr_t)ft_recl)->flags, 0);
}
