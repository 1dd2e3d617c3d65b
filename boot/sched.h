/*
 * sched.h — kernel threads and the preemptive scheduler.
 *
 * Each CPU has a FIFO run queue and an idle thread.  A running thread is
 * preempted from the timer interrupt (irq_exit) when its CPU has other
 * runnable threads, unless it disabled preemption.  Threads sleep on wait
 * queues and are woken from threads or interrupt handlers.  A thread may be
 * pinned to a CPU (thread_create's cpu, thread_migrate); unpinned threads are
 * moved by the load balancer from busy CPUs to idle ones.
 *
 * Rules: thread_join() exactly once per created thread; waitq_wait() and
 * thread_sleep_ns() only from thread context with preemption enabled;
 * waitq_wake_all() and thread_wake() from any context.
 */
#ifndef BOOT_SCHED_H
#define BOOT_SCHED_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/cpu.h"
#include "lib/spinlock.h"

struct fault_info;

enum thread_state {
	THREAD_RUNNING,      /* on a CPU */
	THREAD_RUNNABLE,     /* on a run queue (or about to be put on one) */
	THREAD_SLEEPING,     /* on a wait queue or the sleep list */
	THREAD_DEAD,         /* exited, waiting for thread_join */
};

struct waitq {
	spinlock_t lock;
	struct thread *head;             /* sleepers; lock */
};
#define WAITQ_INIT { SPINLOCK_INIT, 0 }

/* The common_type in every thread's entry_pid: TRACE_FN (trace/trace.h checks). */
#define THREAD_ENTRY_TYPE 1u
/* The common_type in every thread's ret_pid: TRACE_GRAPH_RET (trace/trace.h checks). */
#define THREAD_RET_TYPE 10u

struct thread {
	void *sp;                        /* saved stack pointer; owner CPU, in switch */
	unsigned tid;                    /* written once */
	/* tid << 32 | THREAD_ENTRY_TYPE: a trace event's header word with
	 * the pid where it sits and the most frequent event's type, the
	 * function tracer's (trace_entry_word_ctx), kept so that a tracer
	 * ORs it in as loaded and only other types flip the type's bits.
	 * Written once, with tid (the idle threads' tid is 0). */
	uint64_t entry_pid;
	/* tid << 32 | THREAD_RET_TYPE: the same with function_graph's exit
	 * event's type (trace_entry_word_ctx, for both graph types), whose type no single-instruction
	 * immediate of arm64's joins.  Written once, with tid. */
	uint64_t ret_pid;
	char name[24];                   /* written once */
	int state;                       /* enum thread_state; atomic */
	int on_cpu;                      /* 1 while its stack is in use by a CPU; atomic */
	unsigned cpu;                    /* CPU it runs on / last ran on */
	int pinned;                      /* CPU it must run on, -1 for any; atomic */
	unsigned preempt_count;          /* owner thread */
	struct thread *rq_next;          /* run queue link; rq lock */
	struct thread *wq_next;          /* wait queue link; wq lock */
	uint64_t wake_at;                /* sleep deadline (clock ns); sleep list lock */
	void *stack;                     /* lowest address, from stack_alloc (boot/stack.h);
					    NULL for the idle threads (their CPU's boot stack) */
	size_t stack_size;
	int (*fn)(void *);
	void *arg;
	int exit_code;
	struct waitq join_wq;
	uint32_t cpus_seen;              /* bit per CPU it has run on; owner */
	uint64_t switches_in;            /* times switched to */
	jmp_buf *fault_jmp;              /* armed by fault_catch(); owner */
	struct fault_info *fault_out;
	struct fgraph_stack *ret_stack;  /* shadow return stack (trace/core/fgraph.c); owner */
	/* The tracer recursion bits of the task context this thread holds
	 * for itself while it is not traced (ftrace_thread_notrace_begin,
	 * trace/core/ftrace.h), 0 otherwise.  Owner thread, interrupts off; a
	 * switch moves them into the CPU's trace_recursion (schedule()). */
	unsigned trace_held;
};

#define THREAD_STACK_SIZE (32 * 1024)   /* == STACK_SIZE: a slot of the stack area */

/* Create a runnable thread running fn(arg) on `cpu` (-1: any, starting on the
 * caller's CPU).  Its stack has an unmapped guard below it (boot/stack.h).
 * Returns NULL if memory runs out or no stack slot is free. */
struct thread *thread_create(const char *name, int (*fn)(void *), void *arg, int cpu);
/* Wait for t to exit; returns its exit code and frees it. */
int thread_join(struct thread *t);
__attribute__((noreturn)) void thread_exit(int code);
void thread_yield(void);
void thread_sleep_ns(uint64_t ns);
/* Pin t to `cpu` (-1 unpins) and move it there if it runs elsewhere.  When t
 * is the caller, returns once the caller runs on `cpu`. */
void thread_migrate(struct thread *t, int cpu);
/* Make a sleeping thread runnable; false if it was not sleeping. */
bool thread_wake(struct thread *t);

/* The running thread (NULL before sched_init_cpu): one instruction, so a
 * migration cannot split the read (arch_current). */
static inline __attribute__((always_inline)) struct thread *current_thread(void)
{
	return arch_current();
}

void preempt_disable(void);
void preempt_enable(void);
/* A preemption that became due while the count was up, taken now (thread
 * context, count 0, interrupts on, not inside a tracer callback; else
 * nothing).  For code that drops the count itself (the ring buffer's port),
 * as preempt_enable() does. */
void preempt_check_resched(void);

/* Sleep until cond(arg) is true; cond is evaluated under wq's lock. */
void waitq_wait(struct waitq *wq, bool (*cond)(void *), void *arg);
void waitq_wake_all(struct waitq *wq);

/* Name of the thread with id tid ("<idle>" for 0, "<...>" if forgotten):
 * a small cache filled at creation, as Linux's saved_cmdlines. */
const char *thread_comm(int tid, char *buf, size_t size);
/* Every remembered (tid, name), in the cache's order (tid mod its size). */
void thread_comm_each(void (*fn)(void *ctx, int tid, const char *name), void *ctx);

/* Sleeping lock for thread context (not recursive, not from interrupts). */
struct mutex {
	spinlock_t lock;
	struct thread *owner;            /* lock */
	struct waitq wq;
};
#define MUTEX_INIT { SPINLOCK_INIT, 0, WAITQ_INIT }
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_held(struct mutex *m);    /* by the caller */

/* Scheduler internals used by boot/irq.c and boot/smp.c. */
void sched_init_cpu(void);            /* turn the running boot context into idle */
__attribute__((noreturn)) void sched_idle_loop(void);
void sched_tick(void);                /* from timer_interrupt */
void schedule(void);                  /* interrupts off; switch if needed */
void sched_preempt_irq(void);         /* from irq_exit at the outermost level */

#endif
