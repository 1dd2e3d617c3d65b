/*
 * thread.c — the initial stack of a new thread (arch_stack_init).
 *
 * Mirrors the frame arch_switch (switch.S) pops: FP control state, r15, r14,
 * r13, r12, rbx, rbp, return address.  The return address is `entry`, and
 * above it a zero "return address of entry": entry starts with rsp % 16 == 8
 * as after a call, rbp == 0, and a backtrace from it ends there.
 */
#include <stddef.h>

#include "arch/hooks.h"
#include "boot/cpu.h"

#define MXCSR_DEFAULT 0x1F80u        /* all exceptions masked, round to nearest */
#define FCW_DEFAULT   0x037Fu        /* fninit's control word */

enum { SW_FP, SW_R15, SW_R14, SW_R13, SW_R12, SW_RBX, SW_RBP, SW_RET, SW_ENTRY_RET, SW_WORDS };

void *arch_stack_init(void *top, void (*entry)(void))
{
	uint64_t *sp = (uint64_t *)((uintptr_t)top & ~(uintptr_t)15) - SW_WORDS;
	_Static_assert(SW_ENTRY_RET == SW_WORDS - 1, "entry's return slot is the top word (8 mod 16)");
	for (unsigned i = 0; i < SW_WORDS; i++)
		sp[i] = 0;
	sp[SW_FP] = MXCSR_DEFAULT | (uint64_t)FCW_DEFAULT << 32;
	sp[SW_RET] = (uint64_t)(uintptr_t)entry;
	return sp;
}

_Static_assert(offsetof(struct cpu, current) == X86_CPU_CURRENT, "arch_current's offset");

void arch_set_current(struct cpu *c, struct thread *t)
{
	c->current = t;        /* arch_current reads this very field */
}
