/*
 * direct_test.S — two direct trampolines for tests/guest (declared in
 * arch/tests.h), written to the convention of DIRECT.md.
 */
	.bss
	.balign 8
	.globl arch_test_direct_hits
arch_test_direct_hits:
	.quad 0

	.text
/* Count the call, touch nothing else the function may need, go on into it. */
	.balign 16
	.globl arch_test_direct_tramp
	.type arch_test_direct_tramp, @function
arch_test_direct_tramp:
	lock incq arch_test_direct_hits(%rip)
	ret
	.size arch_test_direct_tramp, . - arch_test_direct_tramp

/*
 * Run the body (func + 5) as a call of our own, with the argument
 * registers untouched, then return its int result + 1000 to the parent.
 * The body must find the ABI's entry alignment: rsp = 8 mod 16 after our
 * call, so 16 bytes (rbp and padding) go below the word holding func + 5.
 * Functions with stack-passed arguments would need those copied down
 * (DIRECT.md); the test's target takes one int.
 */
	.balign 16
	.globl arch_test_direct_tramp_body
	.type arch_test_direct_tramp_body, @function
arch_test_direct_tramp_body:
	pushq	%rbp
	movq	%rsp, %rbp              /* frame record {caller rbp, func + 5} */
	subq	$8, %rsp
	movq	8(%rbp), %r11           /* func + 5: r11 is dead at a function's entry */
	call	*%r11
	addl	$1000, %eax
	leave
	addq	$8, %rsp                /* drop func + 5: return straight to the parent */
	ret
	.size arch_test_direct_tramp_body, . - arch_test_direct_tramp_body

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
