/*
 * gic.h — GICv3 driver: distributor, per-CPU redistributor, CPU interface
 * through the ICC_* system registers.
 *
 * All interrupts are non-secure Group 1, one priority, EOImode 0 (the EOI
 * write both drops priority and deactivates).  Order of use:
 *   gic_init()            boot CPU, once, after the MMU is on
 *   gic_cpu_init()        every CPU, on itself, IRQs off (arch_cpu_irq_init)
 *   gic_enable_private()  SGIs/PPIs, on the CPU concerned
 *   gic_route_spi()       any CPU, once per SPI
 */
#ifndef ARM64_GIC_H
#define ARM64_GIC_H

#include <stdint.h>

#define GIC_SPURIOUS_FIRST 1020   /* INTIDs 1020..1023: nothing to handle */

void gic_init(void);
void gic_cpu_init(void);

/* Enable SGI/PPI `intid` (< 32) on the calling CPU. */
void gic_enable_private(unsigned intid);

/* Route SPI `intid` to the CPU with MPIDR affinity `hwid` (level-triggered) and enable it. */
void gic_route_spi(unsigned intid, uint64_t hwid);

/* Acknowledge the highest-priority pending interrupt: the raw IAR value. */
uint32_t gic_ack(void);

/* End of interrupt for a value returned by gic_ack(). */
void gic_eoi(uint32_t iar);

/* Send SGI `sgi` (< 16) to the CPU with MPIDR affinity `hwid`.  Memory
 * writes before the call are visible to the target's handler. */
void gic_send_sgi(unsigned sgi, uint64_t hwid);

#endif
