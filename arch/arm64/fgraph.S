/*
 * fgraph.S — the function-graph return hook (arch/hooks.h).
 *
 * Reached by the traced function's `ret` (x30 was replaced at entry by the
 * trampoline reloading it from fregs' parent slot, so x30 = this hook),
 * with SP as the function was entered and the return value live in x0-x1
 * (integers, composites up to 16 bytes: a larger one is returned through
 * x8's memory) and v0-v3 (floating point, HFAs).  Everything else the
 * caller may not expect kept: x2-x18 are dead after a return under AAPCS64,
 * x19-x29 are kept by the C half and the callbacks, and so are the low
 * halves of v8-v15.  The C half is fgraph_hook_return
 * (trace/core/fgraph_hooks.h), the one user's FTRACE_HOT_NOFP
 * solo_return, which touches no FP/SIMD register (anything but its own
 * frame it hands to fgraph_return_fpsaving, below): then x0-x1 are all the
 * hook saves, and it is called with the return value where it is (x0) and
 * the entry SP in x1 (fgraph_solo_return_t).  Without one (NULL) v0-v3
 * are saved too and fgraph_return is called.
 * The original return address comes back in x0 and goes to x30, which the
 * caller does not expect preserved either.
 *
 * Frame, from the SP on arrival (= the function's entry SP) down:
 *     [sp + 16, entry SP)   struct fgraph_ret_regs: its end is the entry SP
 *     [sp, sp + 16)         frame record {x29, hook}, so a backtrace taken
 *                           in an exit callback walks on into the caller
 *
 * In .text.tramp: a thread interrupted in here is never preempted
 * (boot/irq.c), and its C halves are there too (FTRACE_HOT); so is
 * unregister_fgraph's grace period's reach: a user whose solo_return the
 * hook loaded stays registered until the hook is done.
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
	adrp	x16, fgraph_hook_return
	ldr	x16, [x16, :lo12:fgraph_hook_return]
	stp	x0, x1, [sp, #16 + FGR_X0]
	mov	x29, sp
	cbz	x16, 2f
	add	x1, sp, #FRAME                  /* the entry SP */
	blr	x16                             /* the one user's solo_return(x0, sp) */
1:	mov	x30, x0
	ldp	x0, x1, [sp, #16 + FGR_X0]
	ldr	x29, [sp], #FRAME
	ret
2:	add	x0, sp, #16                     /* fgraph_return(rr) */
	stp	q0, q1, [sp, #16 + FGR_Q0]      /* any user's exit may read them */
	stp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	bl	fgraph_return
	ldp	q0, q1, [sp, #16 + FGR_Q0]
	ldp	q2, q3, [sp, #16 + FGR_Q0 + 32]
	b	1b
	.size return_to_handler, . - return_to_handler

/* An FP-saving thunk (trace/core/fgraph_inline.h) of `target`: called (or
 * tail-called) with x0 = a struct fgraph_ret_regs (the return hook's, or
 * the exit sled handler's: __fexit__, ftrace_tramp.S) and v0-v3 as the
 * function returned them, it stores those there (exit callbacks may read
 * them), calls target with x0 and whatever x1-x7 hold, which may reach
 * any user's code, and puts them back.  q4-q7 are dead after a return;
 * they are kept too, so that tools/check-nofp.py's one rule for FP-saving
 * thunks (every FP/SIMD argument register stored) holds here.  Returns
 * target's x0. */
.macro rr_fpsaving name, target
	.globl	\name
	.type	\name, %function
	.balign	16
\name:
	stp	x29, x30, [sp, #-96]!
	mov	x29, sp
	stp	q0, q1, [x0, #FGR_Q0]
	stp	q2, q3, [x0, #FGR_Q0 + 32]
	stp	q4, q5, [sp, #16]
	stp	q6, q7, [sp, #48]
	str	x0, [sp, #80]
	bl	\target
	ldr	x1, [sp, #80]
	ldp	q0, q1, [x1, #FGR_Q0]
	ldp	q2, q3, [x1, #FGR_Q0 + 32]
	ldp	q4, q5, [sp, #16]
	ldp	q6, q7, [sp, #48]
	ldp	x29, x30, [sp], #96
	ret
	.size	\name, . - \name
.endm

	/* fgraph_return's: the one way from a solo_return into the general
	 * return (fgraph_return_solo). */
	rr_fpsaving fgraph_return_fpsaving, fgraph_return
#ifdef BT_INSTR_XRAY
	/* ftrace_sled_exit's (x1 the sled, x2 the function's sp): the one way
	 * from the exit sled's solo_return into the trace stack's general
	 * exit (fgraph_sled_exit_solo). */
	rr_fpsaving ftrace_sled_exit_fpsaving, ftrace_sled_exit
#endif

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
