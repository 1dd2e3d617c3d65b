/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (x30 was replaced at entry by the
 * trampoline reloading it from fregs' parent slot, so x30 = this hook),
 * with SP as the function was entered and the return value live in x0-x1
 * (integers, composites up to 16 bytes: a larger one is returned through
 * x8's memory) and v0-v3 (floating point, HFAs).  Everything else the
 * caller may not expect kept: x2-x18 are dead after a return under AAPCS64,
 * x19-x29 are kept by fgraph_return (C) and the callbacks, and so are the
 * low halves of v8-v15.  The original return address comes back in x0 and
 * goes to x30, which the caller does not expect preserved either.
 *
 * Frame, from the SP on arrival (= the function's entry SP) down:
 *     [sp + 16, entry SP)   struct fgraph_ret_regs: its end is the entry SP
 *     [sp, sp + 16)         frame record {x29, hook}, so a backtrace taken
 *                           in an exit callback walks on into the caller
 *
 * In .text.tramp: a thread interrupted in here is never preempted
 * (boot/irq.c), and fgraph_return is there too (FTRACE_HOT).
 */
#define FGR_X0    0
#define FGR_Q0    16
#define FGR_SIZE  80
#define FRAME     (16 + FGR_SIZE)          /* frame record + struct fgraph_ret_regs */

	.section .text.tramp, "ax"
	.balign 16
	/* Debuggers name a frame by its return address minus one: this
	 * never-executed word puts that inside a function of its own
	 * (return_to_handler, Linux's name), not in whatever precedes it. */
	.globl return_to_handler, arch_fgraph_return_hook
	.type return_to_handler, %function
return_to_handler:
	nop
arch_fgraph_return_hook:
	stp	x29, x30, [sp, #-FRAME]!
	stp	x0, x1, [sp, #16 + FGR_X0]
	stp	q0, q1, [sp, #16 + FGR_Q0]
	stp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	mov	x29, sp
	add	x0, sp, #16
	bl	fgraph_return
	mov	x30, x0
	ldp	q0, q1, [sp, #16 + FGR_Q0]
	ldp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	ldp	x0, x1, [sp, #16 + FGR_X0]
	ldr	x29, [sp], #FRAME
	ret
	.size return_to_handler, . - return_to_handler

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
