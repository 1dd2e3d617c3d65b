/*
 * vectors.S — the 256 IDT entry stubs and the common trap entry/exit.
 *
 * Stub v (vector_stubs + v * VECTOR_STUB_SIZE): push a zero error code if the
 * CPU pushes none for v, push v, jump to trap_common.  trap_common completes
 * struct trap_frame (arch_defs.h, TF_*) on the interrupted stack — all GPRs,
 * the full FXSAVE image, a frame record — and calls x86_trap(tf) with
 * rbp = &tf->link_rbp and an ABI-aligned stack.  x86_trap may switch threads
 * (irq_exit) and return much later, and may have redirected tf->rip/rsp
 * (arch_frame_redirect); the exit path restores everything from tf.
 *
 * The frame must sit on the interrupted stack (no IRQ stack): a preempted
 * thread's registers live in its frame until it runs again.  Two vectors use
 * IST stacks (cpu.c), neither of which can switch threads: the double fault
 * (never returns) and the breakpoint, whose handler may emulate a call by
 * pushing onto the interrupted stack (patch.c) and so must keep its own
 * frame elsewhere.
 */
#include "arch_defs.h"
#include "x86.h"

	.altmacro
/* Vectors for which the CPU pushes an error code. */
.macro stub v
	.balign VECTOR_STUB_SIZE
.Lstub\v:
	.if (\v == 8) || (\v == 10) || (\v == 11) || (\v == 12) || (\v == 13) || (\v == 14) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30)
	.else
	pushq $0
	.endif
	pushq $\v
	.byte 0xE9                      /* jmp rel32: fixed size, so the check below is constant */
	.long trap_common - . - 4
	.if . - .Lstub\v > VECTOR_STUB_SIZE
	.error "vector stub too long"
	.endif
.endm

	.text
	.balign VECTOR_STUB_SIZE
	.globl vector_stubs
vector_stubs:
	.set vec, 0
	.rept 256
	stub %vec
	.set vec, vec + 1
	.endr
	.balign VECTOR_STUB_SIZE

/*
 * trap_common's CFI lets a debugger unwind from x86_trap into the
 * interrupted code: once the frame is complete (rsp = tf), the interrupted
 * rsp is tf->rsp (not a fixed offset: the CPU aligns the stack before it
 * pushes), rip and every GPR are in the frame; before, no caller is given.
 * gas has no directive for a CFA or a register at an offset from rsp
 * that is not the CFA's: DW_CFA_def_cfa_expression {DW_OP_breg7 (rsp) off;
 * DW_OP_deref} and DW_CFA_expression reg {DW_OP_breg7 off}, written as
 * bytes, off as a two-byte SLEB128 (128..8191, checked).
 */
.macro cfi_sleb2 off
	.if ((\off) < 128) || ((\off) > 8191)
	.error "trap_common's CFI: a frame offset outside 128..8191"
	.endif
.endm
.macro cfi_reg_at dwreg, off
	cfi_sleb2 \off
	.cfi_escape 0x10, \dwreg, 0x03, 0x77, ((\off) & 0x7f) | 0x80, (\off) >> 7
.endm
.macro cfi_trap_frame
	cfi_sleb2 TF_RSP
	.cfi_escape 0x0f, 0x04, 0x77, (TF_RSP & 0x7f) | 0x80, TF_RSP >> 7, 0x06
	cfi_reg_at 16, TF_RIP
	.set cfi_n, 0                   /* r15 .. r8 at TF_R15 up: DWARF 15 .. 8 */
	.rept 8
	cfi_reg_at (15-cfi_n), (TF_R15+8*cfi_n)
	.set cfi_n, cfi_n + 1
	.endr
	cfi_reg_at 6, TF_RBP            /* then rbp rdi rsi rdx rcx rbx rax */
	cfi_reg_at 5, (TF_RBP+8)
	cfi_reg_at 4, (TF_RBP+16)
	cfi_reg_at 1, (TF_RBP+24)
	cfi_reg_at 2, (TF_RBP+32)
	cfi_reg_at 3, (TF_RBP+40)
	cfi_reg_at 0, TF_RAX
.endm
	.if TF_RAX != TF_RBP + 48
	.error "trap_common's CFI: the pushes' order changed"
	.endif

trap_common:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_undefined rip
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $TF_R15, %rsp
	cfi_trap_frame
	fxsave64 TF_FX(%rsp)
	movq %rbp, TF_LINK_RBP(%rsp)
	movq TF_RIP(%rsp), %rax
	movq %rax, TF_LINK_RIP(%rsp)
	movq %rsp, %rbp
	movq %rsp, %rdi
	cld
	call x86_trap
	fxrstor64 TF_FX(%rsp)
	addq $TF_R15, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp                  /* vector, error code */
	iretq
	.cfi_endproc

/*
 * arch_frame_redirect() resumes here instead of at fn directly: rax = fn,
 * rbx = the faulting pc.  Pushing the faulting pc as fn's return address
 * gives fn an ABI-aligned entry (the frame's rsp is 16-aligned) and a
 * backtrace that goes through the faulting function.  The push happens after
 * iretq, when the trap frame below the new rsp is dead.
 */
	.globl x86_redirect_thunk
x86_redirect_thunk:
	pushq %rbx
	jmp *%rax

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
