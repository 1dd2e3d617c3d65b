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
	bool need_resched;              /* set by anyone (atomic), cleared by owner */
	struct thread *switch_prev;     /* owner: thread being switched out, for sched_finish */
	bool switch_requeue;            /* owner: put switch_prev on its pinned CPU's queue */
	unsigned irq_depth;             /* owner: interrupt nesting level */
	struct trap_frame *irq_frame;   /* owner: state the outermost interrupt interrupted */
	unsigned trace_recursion;       /* owner: tracer recursion bits, one per context */
	unsigned trace_ctx;             /* owner: this context's tracer recursion bit minus 1
					   ((1 << min(irq_depth, 2)) - 1: 0 is the task context,
					   so a zeroed entry is right; bit 0 is "in an
					   interrupt"); irq_enter/irq_exit */
	uint8_t ftrace_dead;            /* atomic: ftrace_kill() sets it on every CPU, the
					   tracer's callbacks read this CPU's (ftrace_is_dead_on) */
	struct rb_cpu *trace_rb;        /* written once (trace_init, before any tracer
					   runs): this CPU's buffer in trace_buffer */
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
