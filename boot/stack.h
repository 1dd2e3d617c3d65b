/*
 * stack.h — kernel stacks with guard pages: the stack area.
 *
 * Every stack the kernel runs on comes from one area in .bss (stack_area,
 * STACK_SLOTS slots of STACK_SLOT_SIZE, aligned to it): each CPU's boot
 * stack (which becomes its idle thread's), each thread's stack, and each
 * CPU's exception stack (arm64: where an exception that finds its stack
 * full is taken; x86-64: the double-fault IST stack).  A slot is
 *   [slot, slot + STACK_SIZE)                     guard: unmapped
 *   [slot + STACK_SIZE, slot + STACK_SLOT_SIZE)   the stack (grows down)
 * The arch MMU code leaves every guard out of the kernel's page tables, so
 * the first access below a stack faults (a frame larger than the guard can
 * jump it: none is that large).  Because the stack half of a slot is the
 * half with bit STACK_SHIFT set, an address tells by itself whether it is in
 * a stack (bit set) or a guard (clear): arm64's exception entry tests that
 * bit of SP before it stores a trap frame (arch/arm64/vectors.S).
 *
 * Slot 0 is CPU 0's boot stack and slot 1 CPU 0's exception stack, both
 * taken from the first instruction on; the rest are handed out by
 * stack_alloc() and never unmapped (no TLB shootdown is ever needed).
 *
 * Constants are usable from assembly (__ASSEMBLY__).
 */
#ifndef BOOT_STACK_H
#define BOOT_STACK_H

#define STACK_SHIFT      15
#define STACK_SIZE       (1 << STACK_SHIFT)       /* 32 KiB usable per stack */
#define STACK_SLOT_SIZE  (2 * STACK_SIZE)         /* guard + stack */
#define STACK_SLOTS      128                      /* 8 MiB of .bss, half of it guards */
#define STACK_SLOT_BOOT0 0                        /* CPU 0's boot / idle stack */
#define STACK_SLOT_EXC0  1                        /* CPU 0's exception stack */

#ifndef __ASSEMBLY__

#include <stdbool.h>
#include <stdint.h>

extern char stack_area[STACK_SLOTS][STACK_SLOT_SIZE];

/*
 * A free slot's stack, marked as used for `use` (a static string: "thread",
 * "boot/idle", ...; the overflow report prints it).  Returns the stack's
 * lowest address (its top is that + STACK_SIZE), or NULL when every slot is
 * taken.  Lock-free: callable from any context, before the heap exists.
 */
void *stack_alloc(const char *use);
/* Give back a stack from stack_alloc (its lowest address); no CPU may be
 * running on it any more. */
void stack_free(void *stack);
/* CPU cpu's exception stack (lowest address), allocated the first time;
 * NULL if no slot is left.  CPU 0's is STACK_SLOT_EXC0. */
void *stack_exception(unsigned cpu);

/* Where an address falls in the stack area. */
struct stack_span {
	uintptr_t lo, hi;          /* the stack: [lo, hi) */
	uintptr_t guard_lo;        /* its guard: [guard_lo, lo) */
	bool in_guard;             /* the address is in the guard */
	const char *use;           /* what stack_alloc was told; NULL: free slot */
};
/* True if addr lies in the stack area (a stack or a guard); fills *s. */
bool stack_find(uintptr_t addr, struct stack_span *s);
/* True if addr lies in a guard: an access there is a kernel stack overflow. */
bool stack_guard_hit(uintptr_t addr);

#endif /* __ASSEMBLY__ */
#endif
