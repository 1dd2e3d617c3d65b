/*
 * switch.S — thread switch (arch_switch) and the first entry of a new thread.
 *
 * Switch frame (frame.h, SW_*), pushed on the outgoing thread's stack:
 *   {x29, x30} frame record, x19-x28, d8-d15, FPCR: everything AAPCS64 says
 *   a callee preserves.  x29 is pointed at the record before SP is saved, so
 *   a sleeping thread's stack walks from its saved SP.
 * Called with interrupts disabled (the caller's contract).
 */
#include "frame.h"

/* void arch_switch(void **save_sp, void *new_sp) */
	.text
	.globl arch_switch
	.type arch_switch, %function
arch_switch:
	sub	sp, sp, #SW_SIZE
	stp	x29, x30, [sp, #SW_X29]
	mov	x29, sp
	stp	x19, x20, [sp, #SW_X19 + 0 * 8]
	stp	x21, x22, [sp, #SW_X19 + 2 * 8]
	stp	x23, x24, [sp, #SW_X19 + 4 * 8]
	stp	x25, x26, [sp, #SW_X19 + 6 * 8]
	stp	x27, x28, [sp, #SW_X19 + 8 * 8]
	stp	d8, d9, [sp, #SW_D8 + 0 * 8]
	stp	d10, d11, [sp, #SW_D8 + 2 * 8]
	stp	d12, d13, [sp, #SW_D8 + 4 * 8]
	stp	d14, d15, [sp, #SW_D8 + 6 * 8]
	mrs	x9, fpcr
	str	x9, [sp, #SW_FPCR]
	mov	x9, sp
	/* Release: a CPU that reads *save_sp with acquire (to run this thread
	 * elsewhere) also sees the registers stored above. */
	stlr	x9, [x0]

	mov	sp, x1
	ldr	x9, [sp, #SW_FPCR]
	msr	fpcr, x9
	ldp	d8, d9, [sp, #SW_D8 + 0 * 8]
	ldp	d10, d11, [sp, #SW_D8 + 2 * 8]
	ldp	d12, d13, [sp, #SW_D8 + 4 * 8]
	ldp	d14, d15, [sp, #SW_D8 + 6 * 8]
	ldp	x19, x20, [sp, #SW_X19 + 0 * 8]
	ldp	x21, x22, [sp, #SW_X19 + 2 * 8]
	ldp	x23, x24, [sp, #SW_X19 + 4 * 8]
	ldp	x25, x26, [sp, #SW_X19 + 6 * 8]
	ldp	x27, x28, [sp, #SW_X19 + 8 * 8]
	ldp	x29, x30, [sp, #SW_X29]
	add	sp, sp, #SW_SIZE
	ret
	.size arch_switch, . - arch_switch

/*
 * First "return" of a thread built by arch_stack_init(): x19 = entry.
 * x29 = x30 = 0 make entry's frame record the outermost one.
 */
	.globl arm64_thread_start
	.type arm64_thread_start, %function
arm64_thread_start:
	mov	x29, xzr
	mov	x30, xzr
	br	x19
	.size arm64_thread_start, . - arm64_thread_start

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
