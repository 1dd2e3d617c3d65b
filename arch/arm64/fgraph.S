/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (x30 was replaced at entry by the
 * trampoline reloading it from fregs' parent slot), with SP as the function
 * was entered and the return value live in x0-x7 (integers, aggregates up to
 * 64 bytes in registers) and v0-v3 (floating point, HFAs).  x8 (indirect
 * result) and x9-x18 are dead after a return under AAPCS64; x19-x29 are kept
 * by fgraph_return (C).  The original return address comes back in x0 and
 * goes to x30, which the caller does not expect preserved.
 *
 * The saved area starts with a frame record {x29, hook} so a backtrace
 * taken in an exit callback walks on into the caller's frames.
 *
 * In .text.tramp: a thread interrupted in here is never preempted
 * (boot/irq.c), and fgraph_return is there too (FTRACE_HOT).
 */
#define FGR_X0    0
#define FGR_SP    64
#define FGR_FP    72
#define FGR_Q0    80
#define FGR_SIZE  144
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
	sub	sp, sp, #FRAME
	stp	x29, x30, [sp]
	stp	x0, x1, [sp, #16 + FGR_X0]
	stp	x2, x3, [sp, #16 + FGR_X0 + 16]
	stp	x4, x5, [sp, #16 + FGR_X0 + 32]
	stp	x6, x7, [sp, #16 + FGR_X0 + 48]
	add	x9, sp, #FRAME
	stp	x9, x29, [sp, #16 + FGR_SP]     // entry SP, caller's x29
	stp	q0, q1, [sp, #16 + FGR_Q0]
	stp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	mov	x29, sp
	add	x0, sp, #16
	bl	fgraph_return
	mov	x30, x0
	ldp	q0, q1, [sp, #16 + FGR_Q0]
	ldp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	ldp	x0, x1, [sp, #16 + FGR_X0]
	ldp	x2, x3, [sp, #16 + FGR_X0 + 16]
	ldp	x4, x5, [sp, #16 + FGR_X0 + 32]
	ldp	x6, x7, [sp, #16 + FGR_X0 + 48]
	ldr	x29, [sp]
	add	sp, sp, #FRAME
	ret
	.size return_to_handler, . - return_to_handler
