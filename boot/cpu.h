/*
 * cpu.h — the per-CPU area.
 *
 * cpus[i] belongs to CPU i.  Fields marked "owner" are touched only by that
 * CPU with interrupts off (or from its own interrupt handlers); the others say
 * what protects them.  arch_this_cpu() returns the running CPU's entry; a
 * thread that may be preempted must not keep that pointer across a point where
 * it can migrate (see preempt_disable()).
 */
#ifndef BOOT_CPU_H
#define BOOT_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "boot_info.h"
#include "lib/spinlock.h"

struct thread;
struct rb_cpu;

/* cpu.trace_ctx besides the context's bit (bits 0..2): the dead byte's bit
 * of trace_guard, so that one AND tests both; and, in an interrupt, Linux's
 * TRACE_FLAG_HARDIRQ (0x08) where trace_entry_fill_on puts the flags (bit
 * 16), so that an AND takes it as it goes into the event.  A callback's
 * test (trace_guard & trace_ctx) is not disturbed by bit 19: the guard's
 * third byte holds only need_resched's bit 18 (CPU_NEED_RESCHED), its
 * fourth is 0. */
#define TRACE_CTX_BITS    0x7u
#define TRACE_CTX_DEAD    0x100u
#define TRACE_CTX_HARDIRQ (0x08u << 16)
#define TRACE_CTX_TASK    (1u | TRACE_CTX_DEAD)

/* cpu.need_resched when set: Linux's TRACE_FLAG_NEED_RESCHED (0x04), so
 * that the guard's third byte, where it lives, ORs into an event's flags
 * as loaded (trace_entry_word_ctx); clear it is 0.  Every writer stores
 * 0 or this, atomically; readers test it for nonzero. */
#define CPU_NEED_RESCHED  0x04u

struct runqueue {
	spinlock_t lock;
	struct thread *head, *tail;     /* runnable threads, FIFO; lock */
	unsigned nr;                    /* length of the list; lock (read racy) */
};

struct cpu {
	struct cpu *self;               /* must stay first: x86-64 reads %gs:0 */
	unsigned id;                    /* index into cpus[]; written once */
	uint64_t hwid;                  /* APIC id / MPIDR; written once */
	bool online;                    /* set by the CPU itself, then read-only */

	struct thread *current;         /* owner; set only through arch_set_current()
					   (arm64 mirrors it in TPIDRRO_EL0) */
	struct thread *idle;            /* written once */
	struct runqueue rq;
	struct thread *switch_prev;     /* owner: thread being switched out, for sched_finish */
	bool switch_requeue;            /* owner: put switch_prev on its pinned CPU's queue */
	unsigned irq_depth;             /* owner: interrupt nesting level */
	struct trap_frame *irq_frame;   /* owner: state the outermost interrupt interrupted */
	/* The tracers' guard: trace_recursion, ftrace_dead and
	 * need_resched, read by a callback as one word with trace_ctx
	 * (trace/core/recursion.h, ftrace_callback_free_on): the word and
	 * trace_ctx share no bit while this context's callbacks may run, and
	 * the OR of the two has an event's hardirq and need-resched flags
	 * where its header wants them (trace/trace.h). */
	union {
		uint32_t trace_guard;   /* as loaded; written only by its bytes */
		struct {
			uint8_t trace_recursion; /* owner: tracer recursion bits, one per
						    context (bits 0..5) */
			uint8_t ftrace_dead;     /* atomic: ftrace_kill() sets it on every CPU */
			uint8_t need_resched;    /* 0 or CPU_NEED_RESCHED; set by anyone
						    (atomic), cleared by owner */
			uint8_t trace_guard_zero; /* always 0 */
		};
	};
	uint32_t trace_ctx;             /* owner: this context's tracer recursion bit
					   (1 << min(irq_depth, 2): bit 0 is the task
					   context) | TRACE_CTX_DEAD | TRACE_CTX_HARDIRQ in
					   an interrupt; irq_enter/irq_exit, and
					   TRACE_CTX_TASK before (smp.c's initializer) */
	struct rb_cpu *trace_rb;        /* written once (trace_init, before any tracer
					   runs): this CPU's buffer in trace_buffer */
	struct fgraph_stack *ret_stack; /* owner: current->ret_stack (NULL while current
					   is NULL or has none, as on a CPU coming up),
					   written with current (sched.c, set_current):
					   the trace stack's sleds reach it in one load
					   (trace/core/fgraph_inline.h, FGRAPH_TSTACK) */
	uint64_t qs_count;              /* owner (atomic): quiescent states passed (patch/tramp.c) */

	uint32_t ipi_pending;           /* atomic bit set of IPI_* */
	uint64_t ticks;                 /* owner: timer interrupts taken */
	uint64_t ipis;                  /* owner: IPIs taken */
	uint64_t switches;              /* owner: context switches */

	void *arch;                     /* arch-private per-CPU data */
};

extern struct cpu cpus[MAX_CPUS];
extern unsigned ncpus;              /* CPUs started; written during boot only */

#include "arch/hooks.h"

static inline struct cpu *this_cpu(void) { return arch_this_cpu(); }
static inline unsigned cpu_id(void) { return arch_this_cpu()->id; }
static inline bool in_interrupt(void) { return arch_this_cpu()->irq_depth != 0; }

#endif
