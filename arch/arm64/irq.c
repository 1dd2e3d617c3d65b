/*
 * irq.c — interrupt dispatch and per-CPU interrupt set-up.
 *
 * arm64_irq_handler() runs from vectors.S with IRQs masked, on the
 * interrupted stack, with the full trap frame saved.  For each acknowledged
 * INTID: timer -> re-arm + timer_interrupt(); IPI SGI -> ipi_interrupt();
 * UART (CPU 0 only) -> console_rx() per byte.  Each is EOI'd before
 * irq_exit(), which may switch threads for a long time.
 *
 * Interrupts used:  SGI 1 (IPI_SGI), PPI 27 (virtual timer), the UART's SPI.
 */
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/irq.h"
#include "gic.h"
#include "platform.h"
#include "timer.h"
#include "uart.h"

#define IPI_SGI         1
/* Acknowledge at most this many interrupts per entry, so one storm cannot
 * keep irq_exit() (and preemption) from running. */
#define IRQ_BATCH       8

void arm64_irq_handler(struct trap_frame *tf);

static void dispatch(unsigned intid)
{
	if (intid == TIMER_INTID) {
		timer_rearm();
		timer_interrupt();
	} else if (intid == IPI_SGI) {
		ipi_interrupt();
	} else if (intid == platform.uart_intid) {
		uart_rx_drain();
	} else {
		kprintf("arm64: CPU %u: unexpected interrupt %u\n", cpu_id(), intid);
	}
}

void arm64_irq_handler(struct trap_frame *tf)
{
	irq_enter(tf);
	for (unsigned n = 0; n < IRQ_BATCH; n++) {
		uint32_t iar = gic_ack();
		unsigned intid = iar & 0xffffff;
		if (intid >= GIC_SPURIOUS_FIRST && intid < 1024)
			break;
		dispatch(intid);
		gic_eoi(iar);
	}
	irq_exit();
}

void arch_cpu_irq_init(unsigned hz)
{
	gic_cpu_init();
	gic_enable_private(IPI_SGI);
	gic_enable_private(TIMER_INTID);
	timer_start(hz);
	if (cpu_id() == 0) {
		gic_route_spi(platform.uart_intid, this_cpu()->hwid);
		uart_rx_irq_enable();
	}
}

void arch_send_ipi(unsigned cpu)
{
	gic_send_sgi(IPI_SGI, cpus[cpu].hwid);
}

void arch_idle_wait(void)
{
	/* wfi wakes on a pending interrupt even while PSTATE.I masks it, so an
	 * interrupt that arrived after the caller's last check is not lost; it
	 * is taken right after the unmask (isb: before we return). */
	__asm__ volatile("dsb sy\n\twfi\n\tmsr daifclr, #2\n\tisb" ::: "memory");
}
