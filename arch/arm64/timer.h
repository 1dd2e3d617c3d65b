/*
 * timer.h — the EL1 virtual timer (CNTV_*), one periodic tick per CPU.
 */
#ifndef ARM64_TIMER_H
#define ARM64_TIMER_H

#define TIMER_INTID 27      /* virtual timer: PPI 11 */

/* Start this CPU's tick at `hz` (IRQs off; the GIC side is irq.c's). */
void timer_start(unsigned hz);

/* From the timer interrupt: program the next tick (drops the level). */
void timer_rearm(void);

#endif
