/*
 * irq.c — generic interrupt entry/exit and the timer tick.
 */
#include "boot/cpu.h"
#include "boot/irq.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "patch/tramp.h"
#include "trace/boot.h"

void (*timer_hook)(void);                    /* atomic: timer_hook_set */

/* cpu.trace_ctx for irq depth d (boot/cpu.h): the tracer's recursion bit
 * (trace/core/recursion.h): task, interrupt, nested interrupt and deeper
 * share the last; the dead test's bit; the hardirq flag inside one. */
static uint32_t ctx_bit(unsigned d)
{
	return 1u << (d < 2 ? d : 2) | TRACE_CTX_DEAD | (d ? TRACE_CTX_HARDIRQ : 0);
}

void irq_enter(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	if (c->irq_depth++ == 0)
		c->irq_frame = tf;
	c->trace_ctx = ctx_bit(c->irq_depth);
}

void irq_exit(void)
{
	struct cpu *c = this_cpu();
	if (c->irq_depth == 0)
		panic("irq_exit without irq_enter");
	tstack_irq_exit();           /* the interrupt's trace-stack entries end with it */
	c->trace_ctx = ctx_bit(c->irq_depth - 1);
	if (--c->irq_depth == 0 && !panic_in_progress() &&
	    !text_is_trampoline(arch_frame_pc(c->irq_frame)))
		sched_preempt_irq();
}

void timer_interrupt(void)
{
	struct cpu *c = this_cpu();
	c->ticks++;
	void (*hook)(void) = __atomic_load_n(&timer_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook();
	sched_tick();
}
