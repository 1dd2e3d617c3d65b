/*
 * trampoline.S — where secondary CPUs start: real mode -> protected mode ->
 * long mode, then a jump to ap_entry64 (entry.S) in kernel text.
 *
 * The bytes between tramp_start and tramp_end are copied to TRAMP_BASE
 * (smp_copy_trampoline) before the final page tables exist, and the INIT-
 * SIPI-SIPI sequence points the CPU at TRAMP_BASE >> 12.  So every address
 * used before the far jump to 64-bit code is computed as TRAMP_BASE + offset
 * (T()), and the image copy here lives in .rodata (never executed in place).
 * TRAMP_BASE is mapped RX by mmu.c: the code runs from it with paging on
 * for a few instructions.
 *
 * It loads kernel_cr3 (mmu.c) and sets CR4/EFER/CR0 exactly as entry.S does
 * for the boot CPU.  The descriptors are pre-marked accessed: the CPU never
 * writes to this read-only page.
 */
#include "x86.h"

#define T(x) (TRAMP_BASE + (x) - tramp_start)

	.section .rodata.trampoline, "a"
	.globl tramp_start, tramp_end
	.code16
tramp_start:
	cli
	cld
	xorw %ax, %ax
	movw %ax, %ds
	lgdtl T(tramp_gdtr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $0x08, $T(tramp_pm32)

	.code32
tramp_pm32:
	movl $0x10, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl $CR4_LONG, %eax
	movl %eax, %cr4
	movl kernel_cr3, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl $CR0_LONG, %eax
	movl %eax, %cr0
	ljmpl $0x18, $T(tramp_lm64)

	.code64
tramp_lm64:
	movl $ap_entry64, %eax
	jmp *%rax

	.balign 8
tramp_gdt:
	.quad 0
	.quad 0x00CF9B000000FFFF        /* 0x08: 32-bit flat code */
	.quad 0x00CF93000000FFFF        /* 0x10: flat data */
	.quad 0x00AF9B000000FFFF        /* 0x18: 64-bit code */
tramp_gdtr:
	.word tramp_gdtr - tramp_gdt - 1
	.long T(tramp_gdt)
tramp_end:

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
