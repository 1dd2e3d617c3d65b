/*
 * fpu_test.S — arch_test_fpu_churn(seed, spins) (arch/tests.h).
 *
 * Fills xmm0-xmm15 (all 128 bits) with 32 distinct seed-derived words
 * (seed + k * golden ratio, k = 1..32), spins `spins` times through an
 * integer loop (interrupts stay as the caller left them: on; no `pause`:
 * under TCG each one leaves the translated code, which made the 30M-spin
 * case take a minute), stores the registers back
 * and returns how many of the 16 differ from what was loaded.  Interrupts
 * and thread switches in between must preserve them (trap frame FXSAVE).
 * The expected and observed values live in a 512-byte aligned stack buffer.
 */
	.text
	.globl arch_test_fpu_churn
	.type arch_test_fpu_churn, @function
arch_test_fpu_churn:
	pushq %rbp
	movq %rsp, %rbp
	subq $512, %rsp
	andq $-16, %rsp

	movq %rdi, %rax
	movabsq $0x9E3779B97F4A7C15, %r8
	xorl %ecx, %ecx
1:	addq %r8, %rax
	movq %rax, (%rsp,%rcx,8)
	incl %ecx
	cmpl $32, %ecx
	jb 1b

	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqa 16*\r(%rsp), %xmm\r
	.endr

	testq %rsi, %rsi
	jz 3f
2:	decq %rsi
	jnz 2b
3:
	.irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	movdqa %xmm\r, 256+16*\r(%rsp)
	.endr

	xorl %eax, %eax
	xorl %ecx, %ecx
4:	movq (%rsp,%rcx), %r9
	movq 8(%rsp,%rcx), %r10
	xorq 256(%rsp,%rcx), %r9
	xorq 264(%rsp,%rcx), %r10
	orq %r10, %r9
	setnz %dl
	movzbl %dl, %edx
	addl %edx, %eax
	addl $16, %ecx
	cmpl $256, %ecx
	jb 4b

	leave
	ret
	.size arch_test_fpu_churn, . - arch_test_fpu_churn

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
