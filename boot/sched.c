/*
 * sched.c — threads, run queues, preemption, sleep/wakeup, migration.
 *
 * Locking: each run queue has a spinlock taken with interrupts off.  A CPU
 * holds its own run-queue lock from the start of schedule() across
 * arch_switch(); the thread switched to releases it in sched_finish() (a new
 * thread does so first thing).  Only then is the previous thread's on_cpu
 * cleared: until that moment its stack is in use, so a CPU that picks a thread
 * waits for on_cpu == 0 before switching to it.
 *
 * State changes: RUNNING->RUNNABLE only by the thread's own CPU (schedule);
 * SLEEPING->RUNNABLE only by compare-and-swap (thread_wake), so exactly one
 * waker enqueues a sleeper.  A thread sets itself SLEEPING with interrupts off
 * and keeps them off until it has switched away, so no interrupt on its own
 * CPU can observe it half asleep.
 */
#include <malloc.h>

#include <stdlib.h>
#include <string.h>

#include "boot/clock.h"
#include "boot/console.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/stack.h"
#include "lib/compiler.h"
#include "patch/tramp.h"
#include "trace/boot.h"

_Static_assert(THREAD_STACK_SIZE == STACK_SIZE, "a thread stack is one stack slot");

#define SLICE_TICKS    2     /* a busy CPU switches threads every 2 ticks */
#define BALANCE_TICKS  4     /* an idle CPU looks for work this often */

static struct thread idle_threads[MAX_CPUS];
static unsigned next_tid = 1;                     /* atomic */

static spinlock_t sleep_lock = SPINLOCK_INIT;

#define COMM_SLOTS 256
static struct {
	int tid;                                  /* comm_lock */
	char name[16];
} comm_cache[COMM_SLOTS];
static spinlock_t comm_lock = SPINLOCK_INIT;
static struct thread *sleep_head;                 /* sorted by wake_at; sleep_lock */

/* ---- run queues (caller holds rq->lock) ---- */

static void rq_push(struct runqueue *rq, struct thread *t)
{
	t->rq_next = NULL;
	if (rq->tail)
		rq->tail->rq_next = t;
	else
		rq->head = t;
	rq->tail = t;
	rq->nr++;
}

/* Remove and return the first thread for which want(t) holds, or NULL. */
static struct thread *rq_take(struct runqueue *rq, bool (*want)(struct thread *))
{
	struct thread **pp = &rq->head, *prev = NULL;
	for (; *pp; prev = *pp, pp = &(*pp)->rq_next) {
		struct thread *t = *pp;
		if (want && !want(t))
			continue;
		*pp = t->rq_next;
		if (rq->tail == t)
			rq->tail = prev;
		rq->nr--;
		t->rq_next = NULL;
		return t;
	}
	return NULL;
}

static bool unpinned(struct thread *t)
{
	return __atomic_load_n(&t->pinned, __ATOMIC_RELAXED) < 0;
}

static unsigned home_cpu(struct thread *t)
{
	int p = __atomic_load_n(&t->pinned, __ATOMIC_RELAXED);
	return p >= 0 ? (unsigned)p : t->cpu;
}

/* Queue a RUNNABLE thread on `cpu` and make that CPU look at its queue. */
static void enqueue(struct thread *t, unsigned cpu)
{
	struct cpu *c = &cpus[cpu];
	unsigned long f = spin_lock_irqsave(&c->rq.lock);
	t->cpu = cpu;
	rq_push(&c->rq, t);
	spin_unlock_irqrestore(&c->rq.lock, f);
	f = arch_irq_save();
	if (cpu == cpu_id())
		__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
	else
		smp_send(cpu, IPI_RESCHED);
	arch_irq_restore(f);
}

/* ---- switching ---- */

/* Second half of a switch, run by the thread switched to, interrupts off. */
/* c->current and c->ret_stack (boot/cpu.h) to t's, on this CPU with
 * interrupts off; inlined, so no traced function runs between the two
 * stores but arch_set_current's own (ret_stack first: its entry and exit
 * find the same stack). */
static inline __attribute__((always_inline)) void set_current(struct cpu *c, struct thread *t)
{
	c->ret_stack = t->ret_stack;
	arch_set_current(c, t);
}

static void sched_finish(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->switch_prev;
	bool requeue = c->switch_requeue;
	spin_unlock(&c->rq.lock);
	/* RELEASE: everything prev's CPU did on prev's stack happens before
	 * another CPU that sees on_cpu == 0 starts using that stack. */
	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
	if (requeue)
		enqueue(prev, home_cpu(prev));
}

void schedule(void)
{
	struct cpu *c = this_cpu();
	struct thread *prev = c->current, *next;

	if (arch_irqs_enabled())
		panic("schedule() with interrupts enabled");
	/* A quiescent state for trampolines: schedule() is never entered from
	 * trampoline code (irq_exit checks the interrupted PC; voluntary calls
	 * come from C), even if it picks the same thread again. */
	tramp_quiescent(c);
	__atomic_store_n(&c->need_resched, 0, __ATOMIC_RELAXED);
	spin_lock(&c->rq.lock);
	bool requeue = false;
	int running = THREAD_RUNNING;
	if (prev != c->idle &&
	    __atomic_compare_exchange_n(&prev->state, &running, THREAD_RUNNABLE, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		if (home_cpu(prev) != c->id)
			requeue = true;       /* migrating: queue it after the switch */
		else
			rq_push(&c->rq, prev);
	}
	next = rq_take(&c->rq, NULL);
	if (!next)
		next = c->idle;
	if (next == prev) {
		prev->state = THREAD_RUNNING;
		spin_unlock(&c->rq.lock);
		return;
	}
	/* ACQUIRE pairs with sched_finish's RELEASE on the CPU that last ran next. */
	while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	next->on_cpu = 1;
	next->state = THREAD_RUNNING;
	next->cpu = c->id;
	next->cpus_seen |= 1u << c->id;
	next->switches_in++;
	set_current(c, next);
	/* The task context's recursion bits are the running thread's: held
	 * by a callback they never cross a switch (callbacks do not sleep),
	 * so here they are prev's own, and next brings its own. */
	c->trace_recursion = (c->trace_recursion & ~prev->trace_held) | next->trace_held;
	c->switches++;
	c->switch_prev = prev;
	c->switch_requeue = requeue;
	arch_switch(&prev->sp, next->sp);
	sched_finish();
}

void sched_preempt_irq(void)
{
	struct cpu *c = this_cpu();
	if (__atomic_load_n(&c->need_resched, __ATOMIC_RELAXED) &&
	    c->current->preempt_count == 0)
		schedule();
}

/* notrace: the patch engine calls these (through smp_call_all). */
notrace void preempt_disable(void)
{
	current_thread()->preempt_count++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

notrace void preempt_enable(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	struct thread *t = current_thread();
	if (t->preempt_count == 0)
		panic("preempt_enable() without preempt_disable() in %s", t->name);
	if (--t->preempt_count == 0)
		preempt_check_resched();
}

notrace void preempt_check_resched(void)
{
	/* Not from inside a tracer callback (it holds a recursion bit; an
	 * FTRACE_HOT_NOFP one, which does not, never gets here: what it can
	 * reach excludes this function, preempt_enable() and schedule(),
	 * checked at build time by tools/check-nofp.py): the thread may be
	 * running on a trampoline's frame, and schedule() is a quiescent
	 * point that would let that trampoline be freed.  The bits a thread
	 * holds for itself while not traced, trace_held, are no callback's.) */
	if (this_cpu()->trace_recursion == current_thread()->trace_held &&
	    current_thread()->preempt_count == 0 && !in_interrupt() &&
	    __atomic_load_n(&this_cpu()->need_resched, __ATOMIC_RELAXED) &&
	    arch_irqs_enabled()) {          /* else the caller cannot switch */
		arch_irq_disable();
		schedule();
		arch_irq_enable();
	}
}

/* ---- threads ---- */

static void thread_start(void)
{
	sched_finish();
	arch_irq_enable();
	struct thread *t = current_thread();
	thread_exit(t->fn(t->arg));
}

struct thread *thread_create(const char *name, int (*fn)(void *), void *arg, int cpu)
{
	struct thread *t = calloc(1, sizeof(*t));
	void *stack = stack_alloc("thread");
	struct fgraph_stack *ret_stack = fgraph_stack_alloc();
	if (!t || !stack || !ret_stack) {
		free(t);
		stack_free(stack);
		fgraph_stack_free(ret_stack);
		return NULL;
	}
	if (cpu >= (int)ncpus)
		panic("thread_create(%s): no CPU %d", name, cpu);
	t->tid = __atomic_fetch_add(&next_tid, 1, __ATOMIC_RELAXED);
	t->entry_pid = (uint64_t)t->tid << 32 | THREAD_ENTRY_TYPE;
	t->ret_pid = (uint64_t)t->tid << 32 | THREAD_RET_TYPE;
	strncpy(t->name, name, sizeof(t->name) - 1);
	t->state = THREAD_RUNNABLE;
	t->pinned = cpu;
	t->stack = stack;
	t->stack_size = THREAD_STACK_SIZE;
	t->ret_stack = ret_stack;
	t->fn = fn;
	t->arg = arg;
	t->join_wq = (struct waitq)WAITQ_INIT;
	t->sp = arch_stack_init((char *)stack + THREAD_STACK_SIZE, thread_start);
	unsigned long f = spin_lock_irqsave(&comm_lock);
	comm_cache[t->tid % COMM_SLOTS].tid = (int)t->tid;
	strncpy(comm_cache[t->tid % COMM_SLOTS].name, name, 15);
	spin_unlock_irqrestore(&comm_lock, f);
	preempt_disable();
	enqueue(t, cpu >= 0 ? (unsigned)cpu : cpu_id());
	preempt_enable();
	return t;
}

void thread_exit(int code)
{
	struct thread *t = current_thread();
	if (t->stack == NULL)
		panic("thread_exit from %s, which is not a created thread", t->name);
	t->exit_code = code;
	arch_irq_disable();
	/* RELEASE: exit_code is visible to the joiner that sees DEAD. */
	__atomic_store_n(&t->state, THREAD_DEAD, __ATOMIC_RELEASE);
	waitq_wake_all(&t->join_wq);
	schedule();
	panic("dead thread %s scheduled", t->name);
}

static bool is_dead(void *arg)
{
	return __atomic_load_n(&((struct thread *)arg)->state, __ATOMIC_ACQUIRE) == THREAD_DEAD;
}

int thread_join(struct thread *t)
{
	waitq_wait(&t->join_wq, is_dead, t);
	/* Its CPU may still be switching away on its stack. */
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	int code = t->exit_code;
	stack_free(t->stack);
	fgraph_stack_free(t->ret_stack);
	free(t);
	return code;
}

void thread_yield(void)
{
	unsigned long f = arch_irq_save();
	schedule();
	arch_irq_restore(f);
}

bool thread_wake(struct thread *t)
{
	int sleeping = THREAD_SLEEPING;
	if (!__atomic_compare_exchange_n(&t->state, &sleeping, THREAD_RUNNABLE, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	enqueue(t, home_cpu(t));
	return true;
}

void thread_migrate(struct thread *t, int cpu)
{
	if (cpu >= (int)ncpus)
		panic("thread_migrate(%s): no CPU %d", t->name, cpu);
	__atomic_store_n(&t->pinned, cpu, __ATOMIC_RELAXED);
	if (t != current_thread())
		return;                   /* it moves at its next switch */
	while (cpu >= 0 && cpu_id() != (unsigned)cpu) {
		__atomic_store_n(&this_cpu()->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
		thread_yield();
	}
}

/* ---- wait queues and sleeping ---- */

void waitq_wait(struct waitq *wq, bool (*cond)(void *), void *arg)
{
	struct thread *t = current_thread();
	for (;;) {
		unsigned long f = arch_irq_save();
		spin_lock(&wq->lock);
		if (cond(arg)) {
			spin_unlock(&wq->lock);
			arch_irq_restore(f);
			return;
		}
		__atomic_store_n(&t->state, THREAD_SLEEPING, __ATOMIC_RELAXED);
		t->wq_next = wq->head;
		wq->head = t;
		spin_unlock(&wq->lock);
		schedule();
		arch_irq_restore(f);
	}
}

void waitq_wake_all(struct waitq *wq)
{
	unsigned long f = spin_lock_irqsave(&wq->lock);
	struct thread *t = wq->head;
	wq->head = NULL;
	spin_unlock_irqrestore(&wq->lock, f);
	while (t) {
		struct thread *n = t->wq_next;
		thread_wake(t);
		t = n;
	}
}

void thread_sleep_ns(uint64_t ns)
{
	struct thread *t = current_thread();
	unsigned long f = arch_irq_save();
	spin_lock(&sleep_lock);
	t->wake_at = clock_ns() + ns;
	struct thread **pp = &sleep_head;
	while (*pp && (*pp)->wake_at <= t->wake_at)
		pp = &(*pp)->wq_next;
	t->wq_next = *pp;
	*pp = t;
	__atomic_store_n(&t->state, THREAD_SLEEPING, __ATOMIC_RELAXED);
	spin_unlock(&sleep_lock);
	schedule();
	arch_irq_restore(f);
}

static void wake_sleepers(void)
{
	uint64_t now = clock_ns();
	struct thread *due = NULL, **tail = &due;
	spin_lock(&sleep_lock);
	while (sleep_head && sleep_head->wake_at <= now) {
		*tail = sleep_head;
		tail = &sleep_head->wq_next;
		sleep_head = sleep_head->wq_next;
	}
	*tail = NULL;
	spin_unlock(&sleep_lock);
	while (due) {
		struct thread *n = due->wq_next;
		thread_wake(due);
		due = n;
	}
}

/* ---- tick, balancing, idle ---- */

/* Idle CPU: take one unpinned waiting thread from the busiest other queue. */
static void balance(struct cpu *c)
{
	struct cpu *busiest = NULL;
	for (unsigned i = 0; i < ncpus; i++)
		if (i != c->id && cpus[i].rq.nr > 0 &&
		    (!busiest || cpus[i].rq.nr > busiest->rq.nr))
			busiest = &cpus[i];
	if (!busiest)
		return;
	spin_lock(&busiest->rq.lock);
	struct thread *t = rq_take(&busiest->rq, unpinned);
	spin_unlock(&busiest->rq.lock);
	if (t)
		enqueue(t, c->id);
}

void sched_tick(void)
{
	struct cpu *c = this_cpu();
	struct thread *cur = c->current;
	if (c->id == 0)
		wake_sleepers();
	if (cur == c->idle) {
		if (c->rq.nr)
			__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
		else if (c->ticks % BALANCE_TICKS == 0)
			balance(c);
	} else if ((c->rq.nr && c->ticks % SLICE_TICKS == 0) || home_cpu(cur) != c->id) {
		__atomic_store_n(&c->need_resched, CPU_NEED_RESCHED, __ATOMIC_RELAXED);
	}
}

void sched_init_cpu(void)
{
	struct cpu *c = this_cpu();
	struct thread *idle = &idle_threads[c->id];
	ksnprintf(idle->name, sizeof(idle->name), "idle/%u", c->id);
	idle->state = THREAD_RUNNING;
	idle->on_cpu = 1;
	idle->cpu = c->id;
	idle->pinned = (int)c->id;
	idle->cpus_seen = 1u << c->id;
	idle->entry_pid = THREAD_ENTRY_TYPE;      /* tid 0 */
	idle->ret_pid = THREAD_RET_TYPE;
	c->idle = idle;
	set_current(c, idle);
	/* After current is set: the heap's lock uses it. */
	idle->ret_stack = fgraph_stack_alloc();
	c->ret_stack = idle->ret_stack;           /* set_current's, now there is one */
	fgraph_init_cpu(c->id);
	if (!idle->ret_stack)
		panic("no memory for CPU %u's idle shadow stack", c->id);
}

void sched_idle_loop(void)
{
	for (;;) {
		arch_irq_disable();
		struct cpu *c = this_cpu();
		tramp_quiescent(c);
		if (c->rq.nr || __atomic_load_n(&c->need_resched, __ATOMIC_RELAXED)) {
			schedule();
			arch_irq_enable();
			continue;
		}
		arch_idle_wait();
	}
}

const char *thread_comm(int tid, char *buf, size_t size)
{
	if (tid == 0)
		return "<idle>";
	if (tid < 0)
		return "<...>";                /* a damaged event: never an index */
	unsigned long f = spin_lock_irqsave(&comm_lock);
	bool known = comm_cache[tid % COMM_SLOTS].tid == tid;
	if (known)
		ksnprintf(buf, size, "%s", comm_cache[tid % COMM_SLOTS].name);
	spin_unlock_irqrestore(&comm_lock, f);
	return known ? buf : "<...>";
}

void thread_comm_each(void (*fn)(void *ctx, int tid, const char *name), void *ctx)
{
	for (unsigned i = 0; i < COMM_SLOTS; i++) {
		char name[16];
		unsigned long f = spin_lock_irqsave(&comm_lock);
		int tid = comm_cache[i].tid;
		memcpy(name, comm_cache[i].name, sizeof(name));
		spin_unlock_irqrestore(&comm_lock, f);
		if (tid > 0)
			fn(ctx, tid, name);
	}
}

/* ---- mutexes ---- */

static bool mutex_try(void *arg)
{
	/* Called under the mutex's waitq lock: take it if free. */
	struct mutex *m = arg;
	bool got = false;
	spin_lock(&m->lock);
	if (!m->owner) {
		m->owner = current_thread();
		got = true;
	}
	spin_unlock(&m->lock);
	return got;
}

void mutex_lock(struct mutex *m)
{
	if (in_interrupt())
		panic("mutex_lock from interrupt context");
	if (m->owner == current_thread())
		panic("mutex_lock: %s already holds it", current_thread()->name);
	waitq_wait(&m->wq, mutex_try, m);
}

void mutex_unlock(struct mutex *m)
{
	unsigned long f = spin_lock_irqsave(&m->lock);
	if (m->owner != current_thread())
		panic("mutex_unlock by %s, which does not hold it", current_thread()->name);
	m->owner = NULL;
	spin_unlock_irqrestore(&m->lock, f);
	waitq_wake_all(&m->wq);
}

bool mutex_held(struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == current_thread();
}
