/*
 * smp.h — bringing up secondary CPUs and talking between CPUs.
 *
 * IPIs carry a bit set in the target's cpu->ipi_pending (IPI_*); the single
 * arch IPI makes ipi_interrupt() handle every pending bit.
 *
 * smp_call_all(fn, arg): run fn(arg) on every online CPU, in interrupt context
 * with interrupts off, and return once all have finished.  Thread context
 * only, interrupts enabled; callers are serialised.
 */
#ifndef BOOT_SMP_H
#define BOOT_SMP_H

#include "boot/boot_info.h"

enum {
	IPI_CALL    = 1u << 0,
	IPI_RESCHED = 1u << 1,
	IPI_STOP    = 1u << 2,
};

void smp_boot(const struct boot_info *bi);
void smp_send(unsigned cpu, unsigned ipi_bits);
void smp_call_all(void (*fn)(void *), void *arg);
/* Every other CPU takes an IPI and returns from it: each has left any
 * interrupt handler it was in (they run with interrupts off) and passed a
 * context synchronisation (exception return); this CPU synchronises by the
 * call.  Thread context, interrupts on. */
void smp_sync_all(void);
/* Stop every other CPU (panic): best effort, does not wait long. */
void smp_stop_others(void);

#endif
