/*
 * fpu_test.S — arch_test_fpu_churn(seed, spins): does anything clobber the
 * FP/SIMD state of an interrupted (or preempted) thread?
 *
 * Register n (v0..v31) is loaded with low = seed + n * K1, high = low ^ K2,
 * so every register, and both halves, hold distinct seed-dependent values.
 * FPCR gets a seed-dependent rounding mode (bits 23:22) and DN (bit 25):
 * fields with no effect on the integer-only work done here.  After `spins`
 * iterations of an integer loop (the caller has interrupts on), every
 * register and FPCR is compared; the result is the number that changed
 * (0..33).  The callee-saved d8-d15 and FPCR are restored before returning.
 */

#define K1 x12
#define K2 x13

	.text
	.globl arch_test_fpu_churn
	.type arch_test_fpu_churn, %function
arch_test_fpu_churn:
	stp	x29, x30, [sp, #-96]!
	mov	x29, sp
	stp	d8, d9, [sp, #16]
	stp	d10, d11, [sp, #32]
	stp	d12, d13, [sp, #48]
	stp	d14, d15, [sp, #64]
	mrs	x9, fpcr
	str	x9, [sp, #80]

	ldr	K1, =0x9e3779b97f4a7c15
	ldr	K2, =0xc2b2ae3d27d4eb4f
	and	x14, x0, #3
	lsl	x14, x14, #22
	orr	x14, x14, #(1 << 25)    // expected FPCR
	msr	fpcr, x14

	mov	x10, x0                 // low half of register n
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	eor	x11, x10, K2
	fmov	d\n, x10
	mov	v\n\().d[1], x11
	add	x10, x10, K1
	.endr

	cbz	x1, 2f
1:	subs	x1, x1, #1
	b.ne	1b
2:
	mov	w15, #0                 // mismatches
	mov	x10, x0
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	eor	x11, x10, K2
	fmov	x16, d\n
	mov	x17, v\n\().d[1]
	eor	x16, x16, x10
	eor	x17, x17, x11
	orr	x16, x16, x17
	cmp	x16, #0
	cinc	w15, w15, ne
	add	x10, x10, K1
	.endr
	mrs	x16, fpcr
	cmp	x16, x14
	cinc	w15, w15, ne

	ldr	x9, [sp, #80]
	msr	fpcr, x9
	ldp	d8, d9, [sp, #16]
	ldp	d10, d11, [sp, #32]
	ldp	d12, d13, [sp, #48]
	ldp	d14, d15, [sp, #64]
	mov	w0, w15
	ldp	x29, x30, [sp], #96
	ret
	.size arch_test_fpu_churn, . - arch_test_fpu_churn
	.ltorg

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
