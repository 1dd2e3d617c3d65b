/*
 * irq.h — the generic side of interrupt handling.
 *
 * The arch interrupt entry calls irq_enter(), dispatches (timer_interrupt(),
 * ipi_interrupt(), console_rx()), then irq_exit().  irq_exit() at the
 * outermost level, with a reschedule pending and preemption allowed, switches
 * threads: the interrupted thread's registers stay in its trap frame on its
 * own stack until it is scheduled again.  A thread interrupted while its PC
 * is in trampoline code (patch/tramp.h) is not preempted: trampolines are
 * freed once every CPU has scheduled, which must imply no thread is left
 * inside one.
 */
#ifndef BOOT_IRQ_H
#define BOOT_IRQ_H

#include <stdint.h>

#define HZ 100    /* default timer rate per CPU */

struct trap_frame;
void irq_enter(struct trap_frame *tf);
void irq_exit(void);
void timer_interrupt(void);
void ipi_interrupt(void);

/* Hook run from every timer tick on every CPU (tests, the demo); NULL = none.
 * Set with timer_hook_set (RELEASE: what the hook reads, set up before, is
 * seen by a tick that calls it). */
extern void (*timer_hook)(void);
static inline void timer_hook_set(void (*fn)(void))
{
	__atomic_store_n(&timer_hook, fn, __ATOMIC_RELEASE);
}

#endif
