/*
 * tramp.h — the trampoline allocator.
 *
 * The pool is the image's executable region [__tramp_pool_start,
 * __tramp_pool_end), cut into ARCH_TRAMP_SIZE slots and written only through
 * arch_text_poke().  A freed slot is not reused at once: it waits until every
 * CPU has passed a quiescent state after the free (a context switch or an
 * idle loop), which implies no CPU is still executing in it — threads are
 * never preempted inside trampoline code (boot/irq.c) and callbacks never
 * sleep.  Then it is filled with trap instructions and becomes free.
 *
 * Thread context, under the ftrace lock, except text_is_trampoline() and
 * tramp_quiescent() (any context, lock-free) and tramp_grace_period()
 * (thread context, no lock).
 */
#ifndef PATCH_TRAMP_H
#define PATCH_TRAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/cpu.h"

extern char __tramp_pool_start[], __tramp_pool_end[];
extern char __tramp_text_start[], __tramp_text_end[];

/* Is pc in a trampoline (the pool or the static trampoline text)? */
static inline __attribute__((always_inline)) bool text_is_trampoline(uintptr_t pc)
{
	return (pc >= (uintptr_t)__tramp_pool_start && pc < (uintptr_t)__tramp_pool_end) ||
	       (pc >= (uintptr_t)__tramp_text_start && pc < (uintptr_t)__tramp_text_end);
}

extern char __nofp_text_start[], __nofp_text_end[];

/* Is pc in the FP/SIMD-free callbacks (FTRACE_HOT_NOFP, trace/core/ftrace.h)? */
static inline bool text_is_nofp(uintptr_t pc)
{
	return pc >= (uintptr_t)__nofp_text_start && pc < (uintptr_t)__nofp_text_end;
}

/* This CPU passed a quiescent state (called by the scheduler). */
static inline __attribute__((always_inline)) void tramp_quiescent(struct cpu *c)
{
	/* RELEASE: everything before (leaving any trampoline) happens before a
	 * waiter sees the new count. */
	__atomic_store_n(&c->qs_count, c->qs_count + 1, __ATOMIC_RELEASE);
}

/* A slot's executable address, or 0 when the pool is exhausted. */
uintptr_t tramp_alloc(void);
/* Copy code into a slot (through the writable alias) and sync all CPUs. */
void tramp_write(uintptr_t slot, const void *code, size_t len);
/* Retire a slot no site calls any more (the caller patched them first).
 * Cannot fail: it allocates nothing (unregister paths rely on it). */
void tramp_free(uintptr_t slot);
/* Wait until every CPU passed a quiescent state: a grace period.  Any
 * thread context, no lock needed (for readers of anything a callback reads
 * with preemption disabled: tables, hashes, users). */
void tramp_grace_period(void);
/* A grace period, then reclaim the slots retired before it (under the
 * ftrace lock like the rest: reclaim writes slot states and pool text). */
void tramp_synchronize(void);

struct tramp_stats {
	unsigned slots, used, retired;
	unsigned long reclaimed;
};
void tramp_get_stats(struct tramp_stats *out);

#endif
