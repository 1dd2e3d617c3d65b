/*
 * timer.c — generic timer: the counter and each CPU's periodic tick.
 *
 * The tick uses the virtual timer's compare value: each interrupt moves
 * CNTV_CVAL_EL0 one period on from the previous deadline, so the rate does
 * not drift with interrupt latency.  If the CPU fell more than a period
 * behind (TCG can stall a vCPU), the next deadline is one period from now:
 * missed ticks are dropped, not replayed in a burst.
 *
 * period[] is owned by its CPU and changed only with IRQs off.
 */
#include "timer.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "sysreg.h"

#define CNTV_CTL_ENABLE (1u << 0)

static uint64_t period[MAX_CPUS];       /* counter ticks per timer tick; owner */

uint64_t arch_counter_hz(void)
{
	return read_sysreg(cntfrq_el0);
}

static uint64_t period_for(unsigned hz)
{
	uint64_t f = arch_counter_hz();
	if (hz == 0 || f == 0)
		panic("timer: bad rate %u Hz (counter %lu Hz)", hz, f);
	uint64_t p = f / hz;
	return p ? p : 1;
}

void timer_start(unsigned hz)
{
	period[cpu_id()] = period_for(hz);
	write_sysreg(cntv_cval_el0, arch_counter() + period[cpu_id()]);
	write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE);
	isb();
}

void arch_timer_set_hz(unsigned hz)
{
	unsigned long f = arch_irq_save();
	uint64_t p = period_for(hz);
	period[cpu_id()] = p;
	/* Take effect by the next tick: never leave the deadline further out. */
	uint64_t next = arch_counter() + p;
	if (read_sysreg(cntv_cval_el0) > next)
		write_sysreg(cntv_cval_el0, next);
	arch_irq_restore(f);
}

void timer_rearm(void)
{
	uint64_t p = period[cpu_id()];
	uint64_t next = read_sysreg(cntv_cval_el0) + p, now = arch_counter();
	if (next <= now)
		next = now + p;
	write_sysreg(cntv_cval_el0, next);
	isb();
}
