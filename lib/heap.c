/*
 * heap.c — the break for newlib's malloc.  _sbrk is only called with
 * newlib's malloc lock held, which already serialises it; heap_lock guards
 * against any other caller.
 */
#include <errno.h>

#include "lib/heap.h"
#include "lib/spinlock.h"

static uintptr_t heap_start, heap_brk, heap_end;   /* heap_lock */
static spinlock_t heap_lock = SPINLOCK_INIT;

void heap_init(uintptr_t start, uintptr_t end)
{
	heap_start = heap_brk = (start + 15) & ~(uintptr_t)15;
	heap_end = end;
}

size_t heap_size(void) { return heap_end - heap_start; }

void *_sbrk(ptrdiff_t incr)
{
	unsigned long f = spin_lock_irqsave(&heap_lock);
	uintptr_t old = heap_brk;
	if (incr < 0 ? old - heap_start < (uintptr_t)-incr
		     : heap_end - old < (uintptr_t)incr) {
		spin_unlock_irqrestore(&heap_lock, f);
		errno = ENOMEM;
		return (void *)-1;
	}
	heap_brk = old + incr;
	spin_unlock_irqrestore(&heap_lock, f);
	return (void *)old;
}

void *sbrk(ptrdiff_t incr) __attribute__((alias("_sbrk")));
