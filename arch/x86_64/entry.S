/*
 * entry.S — from the PVH entry point to 64-bit C, for the boot CPU; and the
 * 64-bit landing of secondary CPUs coming out of the trampoline.
 *
 * PVH (Xen's HVM direct boot, as QEMU implements it for -kernel ELF images):
 * the ELF note XEN_ELFNOTE_PHYS32_ENTRY names pvh_entry, entered in 32-bit
 * protected mode, paging off, interrupts off, flat CS/DS/SS of unknown
 * selectors, %ebx = physical address of struct hvm_start_info.
 *
 * pvh_entry: check for long mode and NX, clear .bss, build early page tables
 * that identity-map the low 4 GiB with 2 MiB RWX pages (only for the few
 * steps until mmu_init() loads the real, W^X tables), enable PAE, long mode,
 * NX, paging, WP and the FPU bits (CR0/CR4 as x86.h's CR0_LONG/CR4_LONG), load
 * the GDT and enter x86_boot_main(start_info) on the boot stack (slot
 * STACK_SLOT_BOOT0 of the stack area, boot/stack.h; .bss, zeroed here first).
 *
 * Nothing here is traced or called from C except ap_entry64's callee.
 */
#include "x86.h"
#include "boot/stack.h"

/* The PVH entry note.  QEMU reads the descriptor as a pointer-sized word and
 * pads the name to the segment's alignment, so: 4-byte alignment, 8-byte desc. */
	.section .note.Xen, "a", @note
	.balign 4
	.long 4                         /* n_namesz: "Xen\0" */
	.long 8                         /* n_descsz */
	.long 18                        /* XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.quad pvh_entry
	.balign 4

	.section .text.boot, "ax"
	.code32
	.globl pvh_entry
pvh_entry:
	cli
	cld
	movl %ebx, %esi                 /* start_info: keep it across cpuid */

	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	testl $(1 << 29), %edx          /* LM */
	jz no_long_mode
	testl $(1 << 20), %edx          /* NX: W^X depends on it */
	jz no_long_mode

	/* .bss is not zeroed by the loader's contract: do it before using it. */
	movl $_bss_start, %edi
	movl $_bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl %esi, pvh_start_info_pa

	/* early_pd[i] = i * 2 MiB | PS | RW | P, i < 2048 (upper halves are 0). */
	movl $early_pd, %edi
	xorl %ecx, %ecx
1:	movl %ecx, %eax
	shll $21, %eax
	orl $0x83, %eax
	movl %eax, (%edi,%ecx,8)
	incl %ecx
	cmpl $2048, %ecx
	jb 1b
	/* early_pdpt[0..3] -> the four early_pd pages; early_pml4[0] -> pdpt. */
	movl $early_pdpt, %edi
	movl $early_pd + 3, %eax
	xorl %ecx, %ecx
2:	movl %eax, (%edi,%ecx,8)
	addl $PAGE_SIZE, %eax
	incl %ecx
	cmpl $4, %ecx
	jb 2b
	movl $early_pdpt + 3, early_pml4

	movl $CR4_LONG, %eax
	movl %eax, %cr4
	movl $early_pml4, %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $(EFER_LME | EFER_NXE), %eax
	wrmsr
	movl $CR0_LONG, %eax            /* also clears EM, TS, CD, NW */
	movl %eax, %cr0
	lgdt boot_gdtr
	ljmp $GDT_KCODE, $long_entry

no_long_mode:
	movl $no_lm_msg, %esi
3:	lodsb
	testb %al, %al
	jz 4f
	movw $0x3F8, %dx
	outb %al, %dx
	jmp 3b
4:	movb $3, %al                    /* PANIC_EXIT_STATUS via isa-debug-exit */
	outb %al, $0xf4
5:	hlt
	jmp 5b

	.code64
long_entry:
	movl $GDT_KDATA, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs                  /* GS base is set later by wrmsr */
	movq $stack_area + STACK_SLOT_BOOT0 * STACK_SLOT_SIZE + STACK_SLOT_SIZE, %rsp
	xorl %ebp, %ebp                 /* outermost frame: backtraces stop */
	movl pvh_start_info_pa, %edi
	call x86_boot_main
	ud2

/*
 * Secondary CPUs arrive here from trampoline.S in 64-bit mode on the kernel
 * page tables, with no stack and the trampoline's GDT.  The BSP published a
 * struct x86_cpu pointer in ap_boot_claim; take it with one atomic exchange,
 * so a CPU that wakes up after its starter gave up (smp.c) finds NULL and
 * parks instead of running on another CPU's stack.
 */
	.globl ap_entry64
ap_entry64:
	xorl %eax, %eax
	xchgq %rax, ap_boot_claim(%rip)
	testq %rax, %rax
	jz ap_park
	movq XC_STACK_TOP(%rax), %rsp
	movq %rax, %rdi
	lgdt boot_gdtr
	pushq $GDT_KCODE
	pushq $1f
	lretq                           /* reload CS from the kernel GDT */
1:	movl $GDT_KDATA, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	xorl %ebp, %ebp
	call ap_main
	ud2
ap_park:
	cli
	hlt
	jmp ap_park

	.section .rodata
no_lm_msg:
	.asciz "baretrace: this CPU has no long mode or no NX; cannot boot\r\n"

	.data
	.balign 8
	.globl pvh_start_info_pa, ap_boot_claim, boot_gdtr
pvh_start_info_pa:
	.quad 0
ap_boot_claim:                          /* struct x86_cpu *, see smp.c */
	.quad 0
	.balign 8
	.word 0
boot_gdtr:                              /* limit, base (32-bit mode reads 6 bytes) */
	.word gdt_end - gdt - 1
	.quad gdt

/* The one GDT, shared by all CPUs; cpu.c fills the per-CPU TSS descriptors.
 * Code/data descriptors are pre-marked accessed so loading them never writes. */
	.balign 16
	.globl gdt
gdt:
	.quad 0
	.quad 0x00AF9B000000FFFF        /* GDT_KCODE: L=1, DPL 0, execute/read */
	.quad 0x00CF93000000FFFF        /* GDT_KDATA: flat read/write */
	.quad 0x00CF9B000000FFFF        /* GDT_KCODE32: D=1 flat */
	.skip 16 * X86_MAX_CPUS         /* GDT_TSS0 + 16 * i */
gdt_end:

	.bss
	.balign PAGE_SIZE
early_pml4:
	.skip PAGE_SIZE
early_pdpt:
	.skip PAGE_SIZE
early_pd:
	.skip 4 * PAGE_SIZE

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", @progbits
