/*
 * failalloc.c — the allocation wrappers behind lib/failalloc.h.
 *
 * The link wraps the allocators (--wrap=malloc ...): every call the kernel
 * makes lands in __wrap_X, which passes straight to __real_X unless a
 * thread has armed injection.  `armed` is the one word the fast path reads;
 * the rest is only looked at when it is set.
 *
 * State: `fa` is written by the arming thread (start/stop) and, while
 * armed, only by that thread in thread context (the counting): nobody else
 * ever gets past the owner test, so it needs no lock.  `armed` is stored
 * RELEASE after `fa` is complete and cleared before `fa` is reused.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include "arch/hooks.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "lib/failalloc.h"

static bool armed;                      /* atomic; see the top */
static struct {
	struct thread *owner;           /* the armed thread */
	unsigned nth, count;            /* attempts [nth, nth + count) fail */
	struct failalloc_stats st;
} fa;

void failalloc_start(unsigned nth, unsigned count)
{
	struct thread *me = current_thread();
	if (in_interrupt())
		panic("failalloc: armed from an interrupt handler");
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && fa.owner != me)
		panic("failalloc: armed by another thread");
	__atomic_store_n(&armed, false, __ATOMIC_RELAXED);
	fa.owner = me;
	fa.nth = nth;
	fa.count = count;
	fa.st = (struct failalloc_stats){ 0, 0 };
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
}

void failalloc_stop(struct failalloc_stats *st)
{
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && fa.owner == current_thread())
		__atomic_store_n(&armed, false, __ATOMIC_RELEASE);
	if (st)
		*st = fa.st;
}

void failalloc_get(struct failalloc_stats *st)
{
	*st = fa.st;
}

bool failalloc_armed(void)
{
	return __atomic_load_n(&armed, __ATOMIC_RELAXED);
}

/*
 * Armed: is this attempt the owner's, in thread context, and one to fail?
 * Interrupts off meanwhile, so the thread cannot move between reading its
 * CPU's interrupt depth and its identity, nor be interrupted while counting.
 */
static __attribute__((noinline)) bool should_fail(void)
{
	unsigned long f = arch_irq_save();
	bool fail = false;
	/* ACQUIRE: pairs with start's RELEASE (fa complete). */
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && arch_current() == fa.owner &&
	    arch_this_cpu()->irq_depth == 0) {
		unsigned k = fa.st.attempts++;
		fail = k >= fa.nth && k - fa.nth < fa.count;
		fa.st.failed += fail;
	}
	arch_irq_restore(f);
	return fail;
}

/* The fast path: one load, one branch, off. */
static inline __attribute__((always_inline)) bool injected(void)
{
	return __builtin_expect(__atomic_load_n(&armed, __ATOMIC_RELAXED), 0) && should_fail();
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_memalign(size_t align, size_t n);

void *__wrap_malloc(size_t n)
{
	return injected() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	return injected() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return injected() ? NULL : __real_realloc(p, n);
}

void *__wrap_memalign(size_t align, size_t n)
{
	return injected() ? NULL : __real_memalign(align, n);
}
