/*
 * thread.c — forging the first switch frame of a new thread.
 *
 * arch_stack_init() lays out a switch frame (frame.h, SW_*) that
 * arch_switch() pops like any other: x30 = arm64_thread_start (switch.S),
 * x19 = entry, FPCR = 0 (round to nearest, no traps), everything else 0.
 * arm64_thread_start clears x29/x30 and branches to entry, so the thread
 * runs on an empty, 16-aligned stack with an outermost frame record.
 */
#include "arch/hooks.h"
#include "boot/cpu.h"

extern char arm64_thread_start[];

_Static_assert(SW_SIZE % 16 == 0, "switch frame keeps SP 16-aligned");
_Static_assert(SW_X19 == 16 && SW_D8 == SW_X19 + 80 && SW_FPCR == SW_D8 + 64,
	       "switch frame layout matches switch.S");

void *arch_stack_init(void *top, void (*entry)(void))
{
	uint64_t *f = (uint64_t *)(((uintptr_t)top & ~(uintptr_t)15) - SW_SIZE);

	for (unsigned i = 0; i < SW_SIZE / 8; i++)
		f[i] = 0;
	f[SW_X30 / 8] = (uintptr_t)arm64_thread_start;
	f[SW_X19 / 8] = (uintptr_t)entry;
	return f;
}

void arch_set_current(struct cpu *c, struct thread *t)
{
	c->current = t;
	__asm__ volatile("msr tpidrro_el0, %0" :: "r"(t) : "memory");
}
