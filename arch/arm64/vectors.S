/*
 * vectors.S — the EL1 exception vector table, trap-frame save and restore.
 *
 * Every exception builds a struct trap_frame (frame.h) on the current stack
 * (SP_EL1; no separate interrupt stack: irq_exit() may switch threads, and
 * the interrupted thread's registers must stay on its own stack):
 *   x0-x30, the interrupted SP, ELR, SPSR, ESR, FAR, FPCR, FPSR, q0-q31,
 *   and a frame record {x29, ELR} that x29 points to while the handler runs,
 *   so the frame-pointer chain continues into the interrupted code.
 * Then it calls the C handler with x0 = the frame, and returns through
 * restore_all, which reloads everything from the frame, including SP and
 * ELR, which a handler may have changed (arch_frame_redirect).
 *
 * Table (VBAR_EL1, 2 KiB aligned, 16 entries of 0x80 bytes):
 *   0-3   current EL, SP_EL0       never used: bad
 *   4     current EL, SP_ELx sync  -> arm64_sync_handler
 *   5     current EL, SP_ELx IRQ   -> arm64_irq_handler
 *   6-7   FIQ, SError              bad
 *   8-15  lower EL (A64 / A32)     bad (no EL0 here)
 * Bad vectors call arm64_bad_exception(frame, entry number).
 *
 * Stack overflow.  Every stack is the upper half of a slot of the stack
 * area (boot/stack.h), whose lower half, the guard, is unmapped: an address
 * in a stack has bit STACK_SHIFT set, one in a guard has it clear.  Before
 * storing anything, each entry checks that bit of the frame's address
 * (SP - TF_SIZE).  Clear, the frame would go into the guard: storing it
 * would fault again, each time lower, so instead the entry moves to this
 * CPU's exception stack (its top in TPIDR_EL0, unused otherwise: no EL0),
 * builds the frame there with the interrupted SP in it, and calls
 * arm64_overflow_handler(frame, entry number), which reports and never
 * returns.  SP_EL0 is the scratch register for x0 meanwhile (restore_all's
 * too, with exceptions masked: the two never overlap).  A frame larger
 * than the guard could jump it; the check cannot see that (nor can a guard).
 */
#include "frame.h"
#include "boot/stack.h"

/* Entry: room for the frame, the guard check, then x29/x30 first
 * (save_rest is reached by bl).  Its CFI lets a debugger unwind from the
 * handler into the interrupted code: once the frame is saved, the
 * interrupted SP is the frame's end, its x0..x30 and PC (ELR, DWARF
 * register 32) are in the frame; before, no caller is given (without CFI,
 * gdb's `bt` repeated this entry without end). */
.macro cfi_saved_x n               // xn at its place in the frame (.altmacro: %n)
	.cfi_offset \n, TF_X0 + 8 * \n - TF_SIZE
.endm
.macro vector handler, idx, num
	.balign	0x80
	.cfi_startproc
	.cfi_return_column 32
	.cfi_signal_frame
	.cfi_undefined 32
	sub	sp, sp, #TF_SIZE
	msr	sp_el0, x0
	mov	x0, sp
	tbz	x0, #STACK_SHIFT, overflow_\idx   // the frame would be in a guard
	mrs	x0, sp_el0
	stp	x29, x30, [sp, #TF_X29]
	bl	save_rest
	.cfi_def_cfa sp, TF_SIZE
	.set cfi_n, 0                   // x0..x30 at TF_X0 up
	.rept 31
	cfi_saved_x %cfi_n
	.set cfi_n, cfi_n + 1
	.endr
	.cfi_offset 32, TF_ELR - TF_SIZE
	mov	x0, sp
	.if \num >= 0
	mov	x1, #\num
	.endif
	bl	\handler
	b	restore_all
	.cfi_endproc
.endm

	.altmacro
	.section .text.vectors, "ax"
	.balign	2048
	.globl arm64_vectors
arm64_vectors:
	vector	arm64_bad_exception, 0, 0
	vector	arm64_bad_exception, 1, 1
	vector	arm64_bad_exception, 2, 2
	vector	arm64_bad_exception, 3, 3
	vector	arm64_sync_handler, 4, -1
	vector	arm64_irq_handler, 5, -1
	vector	arm64_bad_exception, 6, 6
	vector	arm64_bad_exception, 7, 7
	vector	arm64_bad_exception, 8, 8
	vector	arm64_bad_exception, 9, 9
	vector	arm64_bad_exception, 10, 10
	vector	arm64_bad_exception, 11, 11
	vector	arm64_bad_exception, 12, 12
	vector	arm64_bad_exception, 13, 13
	vector	arm64_bad_exception, 14, 14
	vector	arm64_bad_exception, 15, 15

/*
 * overflow_N: entry N found its frame in a guard.  SP = the frame that did
 * not fit, x0 in SP_EL0, every other register live.  Build the frame on the
 * exception stack instead; its TF_SP is the interrupted SP.  TPIDR_EL0 is 0
 * only on a secondary CPU before arm64_secondary_boot sets it: no stack to
 * report from, so that CPU stops.
 */
.macro overflow idx
overflow_\idx:
	mrs	x0, tpidr_el0                   // this CPU's exception stack top
	cbz	x0, overflow_stop
	sub	x0, x0, #TF_SIZE
	stp	x29, x30, [x0, #TF_X29]
	mov	x29, sp
	mov	sp, x0                          // on the exception stack
	mrs	x0, sp_el0                      // the interrupted x0
	msr	sp_el0, x29                     // the frame that did not fit
	ldr	x29, [sp, #TF_X29]
	bl	save_rest
	mrs	x0, sp_el0
	add	x0, x0, #TF_SIZE
	str	x0, [sp, #TF_SP]                // the interrupted SP
	mov	x0, sp
	mov	x1, #\idx
	bl	arm64_overflow_handler          // never returns
	b	overflow_stop
.endm

	.set ovf_n, 0
	.rept 16
	overflow %ovf_n
	.set ovf_n, ovf_n + 1
	.endr

overflow_stop:
	wfe
	b	overflow_stop

/*
 * save_rest: x29/x30 are already in the frame at SP; store everything else.
 * Leaves x29 pointing at the frame record.  Returns with x30 clobbered
 * (its original value is safe in the frame).
 */
save_rest:
	stp	x0, x1, [sp, #TF_X0 + 0 * 8]
	stp	x2, x3, [sp, #TF_X0 + 2 * 8]
	stp	x4, x5, [sp, #TF_X0 + 4 * 8]
	stp	x6, x7, [sp, #TF_X0 + 6 * 8]
	stp	x8, x9, [sp, #TF_X0 + 8 * 8]
	stp	x10, x11, [sp, #TF_X0 + 10 * 8]
	stp	x12, x13, [sp, #TF_X0 + 12 * 8]
	stp	x14, x15, [sp, #TF_X0 + 14 * 8]
	stp	x16, x17, [sp, #TF_X0 + 16 * 8]
	stp	x18, x19, [sp, #TF_X0 + 18 * 8]
	stp	x20, x21, [sp, #TF_X0 + 20 * 8]
	stp	x22, x23, [sp, #TF_X0 + 22 * 8]
	stp	x24, x25, [sp, #TF_X0 + 24 * 8]
	stp	x26, x27, [sp, #TF_X0 + 26 * 8]
	str	x28, [sp, #TF_X0 + 28 * 8]
	add	x0, sp, #TF_SIZE
	str	x0, [sp, #TF_SP]
	mrs	x0, elr_el1
	mrs	x1, spsr_el1
	stp	x0, x1, [sp, #TF_ELR]
	stp	x29, x0, [sp, #TF_FREC]         // frame record {x29, interrupted pc}
	add	x29, sp, #TF_FREC
	mrs	x0, esr_el1
	mrs	x1, far_el1
	stp	x0, x1, [sp, #TF_ESR]
	mrs	x0, fpcr
	mrs	x1, fpsr
	stp	x0, x1, [sp, #TF_FPCR]
	add	x0, sp, #TF_Q0
	stp	q0, q1, [x0], #32
	stp	q2, q3, [x0], #32
	stp	q4, q5, [x0], #32
	stp	q6, q7, [x0], #32
	stp	q8, q9, [x0], #32
	stp	q10, q11, [x0], #32
	stp	q12, q13, [x0], #32
	stp	q14, q15, [x0], #32
	stp	q16, q17, [x0], #32
	stp	q18, q19, [x0], #32
	stp	q20, q21, [x0], #32
	stp	q22, q23, [x0], #32
	stp	q24, q25, [x0], #32
	stp	q26, q27, [x0], #32
	stp	q28, q29, [x0], #32
	stp	q30, q31, [x0]
	ret

/*
 * restore_all: SP = the frame.  Reload FP/SIMD state, ELR/SPSR, then the
 * general registers, and return with SP = frame.sp.  SP_EL1 must hold the
 * target SP at eret while every GPR already holds its final value, so the
 * frame is addressed through SP_EL0 for the last loads (SPSel = 0); SP_EL0
 * is otherwise unused (no EL0).  Nothing is written to the stack here, so a
 * target SP inside the frame (redirect) is harmless.
 */
restore_all:
	add	x0, sp, #TF_Q0
	ldp	q0, q1, [x0], #32
	ldp	q2, q3, [x0], #32
	ldp	q4, q5, [x0], #32
	ldp	q6, q7, [x0], #32
	ldp	q8, q9, [x0], #32
	ldp	q10, q11, [x0], #32
	ldp	q12, q13, [x0], #32
	ldp	q14, q15, [x0], #32
	ldp	q16, q17, [x0], #32
	ldp	q18, q19, [x0], #32
	ldp	q20, q21, [x0], #32
	ldp	q22, q23, [x0], #32
	ldp	q24, q25, [x0], #32
	ldp	q26, q27, [x0], #32
	ldp	q28, q29, [x0], #32
	ldp	q30, q31, [x0]
	ldp	x0, x1, [sp, #TF_FPCR]
	msr	fpcr, x0
	msr	fpsr, x1
	ldp	x0, x1, [sp, #TF_ELR]
	msr	elr_el1, x0
	msr	spsr_el1, x1
	mov	x0, sp
	msr	sp_el0, x0
	ldr	x1, [sp, #TF_SP]
	mov	sp, x1                          // SP_EL1 = the SP to return with
	msr	spsel, #0                       // sp = SP_EL0 = the frame
	ldp	x2, x3, [sp, #TF_X0 + 2 * 8]
	ldp	x4, x5, [sp, #TF_X0 + 4 * 8]
	ldp	x6, x7, [sp, #TF_X0 + 6 * 8]
	ldp	x8, x9, [sp, #TF_X0 + 8 * 8]
	ldp	x10, x11, [sp, #TF_X0 + 10 * 8]
	ldp	x12, x13, [sp, #TF_X0 + 12 * 8]
	ldp	x14, x15, [sp, #TF_X0 + 14 * 8]
	ldp	x16, x17, [sp, #TF_X0 + 16 * 8]
	ldp	x18, x19, [sp, #TF_X0 + 18 * 8]
	ldp	x20, x21, [sp, #TF_X0 + 20 * 8]
	ldp	x22, x23, [sp, #TF_X0 + 22 * 8]
	ldp	x24, x25, [sp, #TF_X0 + 24 * 8]
	ldp	x26, x27, [sp, #TF_X0 + 26 * 8]
	ldp	x28, x29, [sp, #TF_X0 + 28 * 8]
	ldr	x30, [sp, #TF_X30]
	ldp	x0, x1, [sp, #TF_X0]
	msr	spsel, #1                       // back to SP_EL1 (= target); eret keeps EL1h
	eret

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
