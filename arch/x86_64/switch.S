/*
 * switch.S — arch_switch(save_sp, new_sp): the thread switch (arch/hooks.h).
 *
 * Saved on the outgoing stack, lowest address first (thread.c builds the
 * same layout for a new thread; SW_* in thread.c pin it):
 *   [sp+0]  MXCSR (low 4 bytes), x87 control word (bytes 4-5)
 *   [sp+8]  r15, r14, r13, r12, rbx
 *   [sp+48] rbp        } a frame record: a switched-out thread's stack
 *   [sp+56] return     } walks like any other
 * Only callee-saved state is kept: the caller (schedule()) is an ordinary C
 * function, so everything else is dead across the call.  Interrupts are off.
 */
	.text
	.globl arch_switch
	.type arch_switch, @function
arch_switch:
	pushq %rbp
	movq %rsp, %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $8, %rsp
	stmxcsr (%rsp)
	fnstcw 4(%rsp)
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	ldmxcsr (%rsp)
	fldcw 4(%rsp)
	addq $8, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size arch_switch, . - arch_switch

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
