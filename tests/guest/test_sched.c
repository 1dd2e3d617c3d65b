/*
 * test_sched.c — threads on every CPU, preemption, sleep/wakeup, join,
 * migration, and FP/SIMD state across preemption.
 */
#include "arch/tests.h"
#include "boot/clock.h"
#include "boot/irq.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"

static int record_cpu(void *arg)
{
	*(unsigned *)arg = cpu_id();
	return 40 + (int)cpu_id();
}

TEST_CASE(sched, thread_runs_on_every_cpu)
{
	unsigned where[MAX_CPUS];
	struct thread *t[MAX_CPUS];
	for (unsigned i = 0; i < ncpus; i++) {
		where[i] = ~0u;
		t[i] = thread_create("on-cpu", record_cpu, &where[i], (int)i);
		ASSERT_TRUE(t[i] != NULL);
	}
	for (unsigned i = 0; i < ncpus; i++) {
		EXPECT_EQ(thread_join(t[i]), 40 + (int)i);
		EXPECT_EQ(where[i], i);
	}
}

/* Two CPU-bound threads pinned to one CPU both progress: only preemption
 * can switch between them, since neither yields. */
struct spinner {
	volatile unsigned long count;
	volatile bool *stop;
};

static int spin_until_stopped(void *arg)
{
	struct spinner *s = arg;
	while (!*s->stop)
		s->count++;
	return 0;
}

TEST_CASE(sched, preemption_shares_a_cpu)
{
	volatile bool stop = false;
	struct spinner a = { 0, &stop }, b = { 0, &stop };
	unsigned cpu = ncpus - 1;
	struct thread *ta = thread_create("spin-a", spin_until_stopped, &a, (int)cpu);
	struct thread *tb = thread_create("spin-b", spin_until_stopped, &b, (int)cpu);
	ASSERT_TRUE(ta && tb);
	thread_sleep_ns(300000000);
	unsigned long ca = a.count, cb = b.count;
	stop = true;
	thread_join(ta);
	thread_join(tb);
	EXPECT_TRUE(ca > 0);
	EXPECT_TRUE(cb > 0);
}

/* Whether this CPU's copy of the running thread's stack is its own, read
 * with interrupts off (no switch between the two reads). */
static bool cpu_stack_is_current(void)
{
	unsigned long f = arch_irq_save();
	struct cpu *c = this_cpu();
	bool same = c->ret_stack == c->current->ret_stack && c->ret_stack != NULL;
	arch_irq_restore(f);
	return same;
}

struct stack_checker {
	unsigned checks, wrong;
};

static int check_cpu_stack(void *arg)
{
	struct stack_checker *k = arg;
	for (unsigned i = 0; i < 200; i++) {
		thread_yield();
		k->wrong += !cpu_stack_is_current();
		k->checks++;
	}
	return 0;
}

/* struct cpu's ret_stack (the trace stack's sleds read the running
 * thread's stack there) follows every switch: three threads on one CPU
 * that yield to each other each find their own after every switch. */
TEST_CASE(sched, cpu_ret_stack_follows_current)
{
	struct stack_checker k[3] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
	struct thread *t[3];
	unsigned cpu = ncpus - 1;
	for (unsigned i = 0; i < 3; i++) {
		t[i] = thread_create("stack-check", check_cpu_stack, &k[i], (int)cpu);
		ASSERT_TRUE(t[i] != NULL);
	}
	for (unsigned i = 0; i < 3; i++) {
		EXPECT_EQ(thread_join(t[i]), 0);
		EXPECT_EQ(k[i].checks, 200u);
		EXPECT_EQ(k[i].wrong, 0u);
	}
	EXPECT_TRUE(cpu_stack_is_current());
}

static struct waitq wq = WAITQ_INIT;
static volatile int flag;

static bool flag_set(void *arg) { return flag == *(int *)arg; }

static int waiter(void *arg)
{
	int want = 1;
	waitq_wait(&wq, flag_set, &want);
	return 7;
}

TEST_CASE(sched, sleep_and_wakeup)
{
	flag = 0;
	struct thread *t = thread_create("waiter", waiter, NULL, (int)(ncpus - 1));
	ASSERT_TRUE(t != NULL);
	thread_sleep_ns(50000000);
	EXPECT_EQ(__atomic_load_n(&t->state, __ATOMIC_RELAXED), THREAD_SLEEPING);
	flag = 1;
	waitq_wake_all(&wq);
	EXPECT_EQ(thread_join(t), 7);
	uint64_t t0 = clock_ns();
	thread_sleep_ns(30000000);
	EXPECT_TRUE(clock_ns() - t0 >= 30000000);
}

static volatile unsigned irq_wakes;
static struct waitq irq_wq = WAITQ_INIT;
static void wake_from_irq(void)
{
	irq_wakes++;
	waitq_wake_all(&irq_wq);
}

static bool wakes_enough(void *arg) { return irq_wakes >= 10; }

TEST_CASE(sched, wakeup_from_interrupt)
{
	irq_wakes = 0;
	timer_hook_set(wake_from_irq);
	waitq_wait(&irq_wq, wakes_enough, NULL);
	timer_hook_set(NULL);
	EXPECT_TRUE(irq_wakes >= 10);
}

static int migrating(void *arg)
{
	for (unsigned i = 0; i < ncpus; i++) {
		thread_migrate(current_thread(), (int)i);
		if (cpu_id() != i)
			return -1;
	}
	thread_migrate(current_thread(), -1);
	return 0;
}

TEST_CASE(sched, explicit_migration)
{
	struct thread *t = thread_create("migrate", migrating, NULL, 0);
	ASSERT_TRUE(t != NULL);
	/* Peek before join frees it: join returns the exit code only. */
	EXPECT_EQ(thread_join(t), 0);
}

/* Load balancing: unpinned CPU-bound threads all created on one CPU end up
 * running on more than one. */
static volatile bool lb_stop;
static int lb_spin(void *arg)
{
	uint32_t *seen = arg;
	while (!lb_stop) {
		*seen |= 1u << cpu_id();
		for (volatile int i = 0; i < 1000; i++)
			;
	}
	return 0;
}

TEST_CASE(sched, load_balance_spreads_threads)
{
	uint32_t seen[4] = { 0 };
	struct thread *t[4];
	lb_stop = false;
	for (int i = 0; i < 4; i++) {
		t[i] = thread_create("lb", lb_spin, &seen[i], -1);
		ASSERT_TRUE(t[i] != NULL);
	}
	thread_sleep_ns(500000000);
	lb_stop = true;
	uint32_t all = 0;
	bool moved = false;
	for (int i = 0; i < 4; i++) {
		thread_join(t[i]);
		all |= seen[i];
		moved |= __builtin_popcount(seen[i]) >= 2 || seen[i] != seen[0];
	}
	EXPECT_TRUE(__builtin_popcount(all) >= 2);
	EXPECT_TRUE(moved);
}

struct fpu_job {
	uint64_t seed;
	unsigned mismatches;
	uint64_t switches_in;
};

static int fpu_worker(void *arg)
{
	struct fpu_job *j = arg;
	j->mismatches = arch_test_fpu_churn(j->seed, 30000000);
	j->switches_in = current_thread()->switches_in;
	return 0;
}

static void set_hz(void *arg)
{
	arch_timer_set_hz((unsigned)(uintptr_t)arg);
}

TEST_CASE(sched, fpu_survives_preemption)
{
	/* Three threads per CPU at a 1 kHz tick: each is preempted mid-churn. */
	struct thread *t[MAX_CPUS * 3];
	struct fpu_job job[MAX_CPUS * 3];
	unsigned n = ncpus * 3;
	smp_call_all(set_hz, (void *)1000);
	for (unsigned i = 0; i < n; i++) {
		job[i] = (struct fpu_job){ .seed = 0x1234567ull * (i + 1) };
		t[i] = thread_create("fpu", fpu_worker, &job[i], (int)(i % ncpus));
		ASSERT_TRUE(t[i] != NULL);
	}
	unsigned preempted = 0;
	for (unsigned i = 0; i < n; i++) {
		thread_join(t[i]);
		EXPECT_EQ(job[i].mismatches, 0);
		preempted += job[i].switches_in >= 2;
	}
	smp_call_all(set_hz, (void *)HZ);
	/* The check means something only if threads really were switched out. */
	EXPECT_TRUE(preempted >= n / 2);
}
