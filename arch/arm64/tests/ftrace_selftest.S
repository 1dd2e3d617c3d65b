/*
 * ftrace_selftest.S — functions with hand-made sites for ftrace_selftest.c,
 * and callers that record what the trampolines must reproduce.
 *
 * The sites are laid out as GCC's -fpatchable-function-entry=4,2 leaves them
 * (two NOPs before the symbol, two at it, func 8-aligned) but are not listed
 * in __patchable_function_entries: the generic record table never sees them,
 * so the self-test owns their state.  AAPCS64 everywhere; x9 is never
 * relied on across a site (the site writes it).
 */

/* A compiled site: literal slot, then the symbol and its two NOPs. */
.macro site_fn name
	.text
	.balign	8
	nop
	nop
	.globl	\name
	.type	\name, %function
\name:
	nop
	nop
.endm

.macro end_fn name
	.size	\name, . - \name
.endm

/* A function with a site: long \name(long a, long b, long c) returns
 * a * 100 + b * 10 + c, with a frame record of its own. */
.macro site3_fn name
	site_fn	\name
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	x3, #100
	mul	x0, x0, x3
	mov	x3, #10
	madd	x0, x1, x3, x0
	add	x0, x0, x2
	ldp	x29, x30, [sp], #16
	ret
	end_fn	\name
.endm

/* A caller of \callee(a, b, c) that stores {sp, x29} at its bl in
 * arch_test_caller; \callee returns to the label \ret. */
.macro recording_caller name, callee, ret
	.text
	.globl	\name, \ret
	.type	\name, %function
\name:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adrp	x10, arch_test_caller
	add	x10, x10, :lo12:arch_test_caller
	mov	x11, sp
	stp	x11, x29, [x10]
	bl	\callee
\ret:
	ldp	x29, x30, [sp], #16
	ret
	end_fn	\name
.endm

/* long st_int3(long a, long b, long c): a * 100 + b * 10 + c */
	site3_fn arm64_st_int3

/* long st_alt(long a, long b, long c): -(a + b + c); the redirect target */
	site_fn	arm64_st_alt
	add	x0, x0, x1
	add	x0, x0, x2
	neg	x0, x0
	ret
	end_fn	arm64_st_alt

/* long st_args8(x0..x7, with x8 set): sum of (i + 1) * xi, plus x8 * 1000 */
	site_fn	arm64_st_args8
	mov	x10, #1000
	mul	x10, x8, x10
	add	x10, x10, x0
	add	x1, x1, x1
	add	x10, x10, x1
	mov	x11, #3
	madd	x10, x2, x11, x10
	mov	x11, #4
	madd	x10, x3, x11, x10
	mov	x11, #5
	madd	x10, x4, x11, x10
	mov	x11, #6
	madd	x10, x5, x11, x10
	mov	x11, #7
	madd	x10, x6, x11, x10
	mov	x11, #8
	madd	x0, x7, x11, x10
	ret
	end_fn	arm64_st_args8

/* double st_fp8(d0..d7): sum of (i + 1) * di */
	site_fn	arm64_st_fp8
	fmov	d16, #2.0
	fmadd	d0, d1, d16, d0
	fmov	d16, #3.0
	fmadd	d0, d2, d16, d0
	fmov	d16, #4.0
	fmadd	d0, d3, d16, d0
	fmov	d16, #5.0
	fmadd	d0, d4, d16, d0
	fmov	d16, #6.0
	fmadd	d0, d5, d16, d0
	fmov	d16, #7.0
	fmadd	d0, d6, d16, d0
	fmov	d16, #8.0
	fmadd	d0, d7, d16, d0
	ret
	end_fn	arm64_st_fp8

/* The generic cases' site and its recording caller (arch/tests.h). */
	site3_fn arch_test_site3
	recording_caller arch_test_call_site3, arch_test_site3, arch_test_call_site3_ret

/* A site whose bytes are not as compiled (arch_site_init must refuse it). */
	.text
	.balign	8
	nop
	nop
	.globl	arm64_st_bad
	.type	arm64_st_bad, %function
arm64_st_bad:
	mov	x0, x0                          // where GCC leaves a NOP
	nop
	ret
	end_fn	arm64_st_bad

/* {sp, x29} of the last recording caller at its bl (arch/tests.h). */
	.bss
	.balign	8
	.globl	arch_test_caller
arch_test_caller:
	.quad	0, 0

/* long st_call_int3(a, b, c): records {sp, fp}, calls st_int3; the parent
 * the callback must see is arm64_st_call_int3_ret. */
	recording_caller arm64_st_call_int3, arm64_st_int3, arm64_st_call_int3_ret

	.text
/* long st_call_args8(const long v[9]): x0..x7 = v[0..7], x8 = v[8] */
	.globl	arm64_st_call_args8
	.type	arm64_st_call_args8, %function
arm64_st_call_args8:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	x10, x0
	ldr	x8, [x10, #64]
	ldp	x0, x1, [x10]
	ldp	x2, x3, [x10, #16]
	ldp	x4, x5, [x10, #32]
	ldp	x6, x7, [x10, #48]
	bl	arm64_st_args8
	ldp	x29, x30, [sp], #16
	ret
	end_fn	arm64_st_call_args8

/* long st_call_fp8(const long v[8]): di = v[i] + 0.5; returns 2 * st_fp8() */
	.globl	arm64_st_call_fp8
	.type	arm64_st_call_fp8, %function
arm64_st_call_fp8:
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	fmov	d16, #0.5
	ldp	x1, x2, [x0]
	scvtf	d0, x1
	scvtf	d1, x2
	ldp	x1, x2, [x0, #16]
	scvtf	d2, x1
	scvtf	d3, x2
	ldp	x1, x2, [x0, #32]
	scvtf	d4, x1
	scvtf	d5, x2
	ldp	x1, x2, [x0, #48]
	scvtf	d6, x1
	scvtf	d7, x2
	fadd	d0, d0, d16
	fadd	d1, d1, d16
	fadd	d2, d2, d16
	fadd	d3, d3, d16
	fadd	d4, d4, d16
	fadd	d5, d5, d16
	fadd	d6, d6, d16
	fadd	d7, d7, d16
	bl	arm64_st_fp8
	fadd	d0, d0, d0
	fcvtzs	x0, d0
	ldp	x29, x30, [sp], #16
	ret
	end_fn	arm64_st_call_fp8

/* void st_clobber_fp(void): garbage in every caller-saved FP/SIMD register,
 * as a callback built with FP code may leave them. */
	.globl	arm64_st_clobber_fp
	.type	arm64_st_clobber_fp, %function
arm64_st_clobber_fp:
	movi	v0.16b, #0x7f
	movi	v1.16b, #0x7e
	movi	v2.16b, #0x7d
	movi	v3.16b, #0x7c
	movi	v4.16b, #0x7b
	movi	v5.16b, #0x7a
	movi	v6.16b, #0x79
	movi	v7.16b, #0x78
	movi	v16.16b, #0x77
	movi	v17.16b, #0x76
	movi	v18.16b, #0x75
	movi	v31.16b, #0x74
	ret
	end_fn	arm64_st_clobber_fp

/* uint64_t arch_test_preserving_call(void (*thunk)(void)): arch/tests.h.
 * x18 is saved around the test (the thunk's callee is C, which may use it).
 * x17 holds the x30 the thunk must give back (ARCH_CALL_THUNK's handover). */
	.globl	arch_test_preserving_call
	.type	arch_test_preserving_call, %function
arch_test_preserving_call:
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x18, [sp, #16]
	mov	x16, x0
	mov	x2, #0x102
	mov	x3, #0x103
	mov	x4, #0x104
	mov	x5, #0x105
	mov	x6, #0x106
	mov	x7, #0x107
	mov	x8, #0x108
	mov	x9, #0x109
	mov	x10, #0x10a
	mov	x11, #0x10b
	mov	x12, #0x10c
	mov	x13, #0x10d
	mov	x14, #0x10e
	mov	x15, #0x10f
	mov	x18, #0x112
	mov	x17, #0x11e
	blr	x16
	mov	x0, #0
	cmp	x2, #0x102
	cset	x1, ne
	orr	x0, x0, x1, lsl #2
	cmp	x3, #0x103
	cset	x1, ne
	orr	x0, x0, x1, lsl #3
	cmp	x4, #0x104
	cset	x1, ne
	orr	x0, x0, x1, lsl #4
	cmp	x5, #0x105
	cset	x1, ne
	orr	x0, x0, x1, lsl #5
	cmp	x6, #0x106
	cset	x1, ne
	orr	x0, x0, x1, lsl #6
	cmp	x7, #0x107
	cset	x1, ne
	orr	x0, x0, x1, lsl #7
	cmp	x8, #0x108
	cset	x1, ne
	orr	x0, x0, x1, lsl #8
	cmp	x9, #0x109
	cset	x1, ne
	orr	x0, x0, x1, lsl #9
	cmp	x10, #0x10a
	cset	x1, ne
	orr	x0, x0, x1, lsl #10
	cmp	x11, #0x10b
	cset	x1, ne
	orr	x0, x0, x1, lsl #11
	cmp	x12, #0x10c
	cset	x1, ne
	orr	x0, x0, x1, lsl #12
	cmp	x13, #0x10d
	cset	x1, ne
	orr	x0, x0, x1, lsl #13
	cmp	x14, #0x10e
	cset	x1, ne
	orr	x0, x0, x1, lsl #14
	cmp	x15, #0x10f
	cset	x1, ne
	orr	x0, x0, x1, lsl #15
	cmp	x18, #0x112
	cset	x1, ne
	orr	x0, x0, x1, lsl #18
	cmp	x30, #0x11e
	cset	x1, ne
	orr	x0, x0, x1, lsl #30
	ldr	x18, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
	end_fn	arch_test_preserving_call

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
