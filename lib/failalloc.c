/*
 * failalloc.c — the allocation wrappers behind lib/failalloc.h.
 *
 * The link wraps the allocators and free (--wrap=malloc ...): every call
 * the kernel makes lands in __wrap_X, which passes straight to __real_X
 * unless a thread has armed injection.  `armed` is the one word the fast path reads;
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
	fa.st = (struct failalloc_stats){ 0, 0, 0, 0 };
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

/* Armed: a block p the owner got (dir 1) or gave back (dir -1) in thread
 * context goes into the balance; NULL is no block.  Interrupts off as in
 * should_fail. */
static __attribute__((noinline)) void balance(void *p, int dir)
{
	unsigned long f = arch_irq_save();
	if (p && __atomic_load_n(&armed, __ATOMIC_ACQUIRE) && arch_current() == fa.owner &&
	    arch_this_cpu()->irq_depth == 0) {
		fa.st.blocks += dir;
		fa.st.addr += dir > 0 ? (uintptr_t)p : -(uintptr_t)p;
	}
	arch_irq_restore(f);
}

/* The fast path: one load, one branch, off. */
static inline __attribute__((always_inline)) bool is_armed(void)
{
	return __builtin_expect(__atomic_load_n(&armed, __ATOMIC_RELAXED), 0);
}

/* Armed: the block an allocation returned, into the balance. */
static void *got(void *p)
{
	balance(p, 1);
	return p;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_memalign(size_t align, size_t n);
void __real_free(void *p);

void *__wrap_malloc(size_t n)
{
	if (!is_armed())
		return __real_malloc(n);
	return should_fail() ? NULL : got(__real_malloc(n));
}

void *__wrap_calloc(size_t k, size_t n)
{
	if (!is_armed())
		return __real_calloc(k, n);
	return should_fail() ? NULL : got(__real_calloc(k, n));
}

/* A realloc that moves the block gives p back and gets another; size 0
 * frees p (nano-malloc's realloc returns NULL then). */
void *__wrap_realloc(void *p, size_t n)
{
	if (!is_armed())
		return __real_realloc(p, n);
	if (should_fail())
		return NULL;
	void *q = __real_realloc(p, n);
	if (q != p && (q || n == 0)) {
		balance(p, -1);
		balance(q, 1);
	}
	return q;
}

void *__wrap_memalign(size_t align, size_t n)
{
	if (!is_armed())
		return __real_memalign(align, n);
	return should_fail() ? NULL : got(__real_memalign(align, n));
}

void __wrap_free(void *p)
{
	if (is_armed())
		balance(p, -1);
	__real_free(p);
}
