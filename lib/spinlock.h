/*
 * spinlock.h — ticket spinlocks.
 *
 * spin_lock_irqsave() is the usual form: it disables interrupts first, so a
 * lock can be shared with interrupt handlers on the same CPU.  Plain
 * spin_lock() is for locks never taken from interrupt context and requires
 * that the holder cannot be preempted (interrupts off or preempt_disable()).
 * Not recursive.  All functions are inline and therefore never traced.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include <stdint.h>

typedef struct {
	uint16_t next;   /* ticket dispenser: fetch_add by each locker */
	uint16_t owner;  /* ticket now served: written by the holder on unlock */
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

/* The arch's relax hint lives in arch_defs.h; it has no dependency on us. */
#include "arch_defs.h"

static inline __attribute__((always_inline)) void spin_lock(spinlock_t *l)
{
	/* ACQUIRE on the load that sees our turn orders the critical section after it. */
	uint16_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		arch_cpu_relax();
}

static inline __attribute__((always_inline)) int spin_trylock(spinlock_t *l)
{
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint16_t expect = owner;
	/* Take a ticket only if it is served at once (next == owner). */
	return __atomic_compare_exchange_n(&l->next, &expect, (uint16_t)(owner + 1), 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) void spin_unlock(spinlock_t *l)
{
	/* RELEASE: the critical section's stores are visible before the next holder starts. */
	uint16_t o = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	__atomic_store_n(&l->owner, (uint16_t)(o + 1), __ATOMIC_RELEASE);
}

static inline __attribute__((always_inline)) unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long f = arch_irq_save();
	spin_lock(l);
	return f;
}

static inline __attribute__((always_inline)) void spin_unlock_irqrestore(spinlock_t *l,
									unsigned long f)
{
	spin_unlock(l);
	arch_irq_restore(f);
}

#endif
