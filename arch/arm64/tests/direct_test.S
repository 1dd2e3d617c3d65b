/*
 * direct_test.S — two direct trampolines for the tests (DIRECT.md has the
 * convention they follow).  Declared in arch/tests.h.
 *
 * arch_test_direct_tramp       counts the call in arch_test_direct_hits
 *                              (atomic: any CPU) and goes on into the function.
 * arch_test_direct_tramp_body  calls the function's body itself and returns
 *                              to the function's caller with 1000 added to
 *                              the integer result.  It moves SP by 16 before
 *                              the body runs, so it only suits functions
 *                              without stack-passed arguments.
 */
	.bss
	.balign	8
	.globl	arch_test_direct_hits
arch_test_direct_hits:
	.quad	0

	.text
	.globl	arch_test_direct_tramp
	.type	arch_test_direct_tramp, %function
	.balign	8
arch_test_direct_tramp:
	adrp	x10, arch_test_direct_hits
	add	x10, x10, :lo12:arch_test_direct_hits
1:	ldxr	x11, [x10]
	add	x11, x11, #1
	stxr	w12, x11, [x10]
	cbnz	w12, 1b
	mov	x10, x30                // func + 8
	mov	x30, x9                 // the parent, as at the function's entry
	ret	x10
	.size	arch_test_direct_tramp, . - arch_test_direct_tramp

	.globl	arch_test_direct_tramp_body
	.type	arch_test_direct_tramp_body, %function
	.balign	8
arch_test_direct_tramp_body:
	stp	x29, x9, [sp, #-16]!    // a frame record {caller's x29, parent}
	mov	x29, sp
	blr	x30                     // the body, at func + 8; arguments untouched
	add	x0, x0, #1000
	ldp	x29, x30, [sp], #16
	ret
	.size	arch_test_direct_tramp_body, . - arch_test_direct_tramp_body

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
