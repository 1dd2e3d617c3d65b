/*
 * entry.S — first instructions of the boot CPU and of each secondary CPU.
 *
 * Boot CPU (_start, the ELF entry, first in .text):
 *   mask DAIF, drop from EL2 to EL1 if needed, take the boot stack (slot
 *   STACK_SLOT_BOOT0 of the stack area, boot/stack.h) and name the CPU's
 *   exception stack (slot STACK_SLOT_EXC0) in TPIDR_EL0, clear .bss
 *   (the stack is not used before that), vectors + FP/SIMD (cpu_early), then arm64_boot(x0 at entry) in C,
 *   which does the rest with the MMU off until mmu_init().
 * Secondary CPU (arm64_secondary_entry, via PSCI CPU_ON, x0 = struct
 *   smp_boot *): same EL drop, its stack, vectors + FP/SIMD, MMU on with the
 *   boot CPU's registers (arm64_mmu_regs), then arm64_secondary_boot(x0).
 *
 * Both run with the MMU off (identity addresses are physical) and call C
 * with x29 = 0 so that backtraces end here.
 */
#include "frame.h"
#include "mmu.h"
#include "smp.h"
#include "sysreg.h"
#include "boot/stack.h"

/* CPU 0's boot stack and exception stack: slots of the stack area. */
#define BOOT0_TOP (STACK_SLOT_BOOT0 * STACK_SLOT_SIZE + STACK_SLOT_SIZE)
#define EXC0_TOP  (STACK_SLOT_EXC0 * STACK_SLOT_SIZE + STACK_SLOT_SIZE)

	.section .text.entry, "ax"
	.globl _start
_start:
	msr	daifset, #0xf
	mov	x19, x0                 // maybe the DTB (not for QEMU's ELF loader)
	bl	el2_to_el1
	adrp	x0, stack_area + BOOT0_TOP
	add	x0, x0, :lo12:stack_area + BOOT0_TOP
	mov	sp, x0
	adrp	x0, stack_area + EXC0_TOP
	add	x0, x0, :lo12:stack_area + EXC0_TOP
	msr	tpidr_el0, x0           // vectors.S: where an overflowing exception goes

	adrp	x0, _bss_start
	add	x0, x0, :lo12:_bss_start
	adrp	x1, _bss_end
	add	x1, x1, :lo12:_bss_end
1:	cmp	x0, x1                  // linker script keeps both 16-aligned
	b.hs	2f
	stp	xzr, xzr, [x0], #16
	b	1b
2:
	bl	cpu_early
	mov	x29, xzr
	mov	x0, x19
	bl	arm64_boot              // never returns
	b	arch_halt

	.text
	.globl arm64_secondary_entry
arm64_secondary_entry:
	msr	daifset, #0xf
	msr	tpidr_el0, xzr          // no exception stack until arm64_secondary_boot
	mov	x19, x0                 // struct smp_boot *
	bl	el2_to_el1
	ldr	x0, [x19, #SMP_BOOT_STACK]
	mov	sp, x0
	bl	cpu_early
	adrp	x0, arm64_mmu_regs
	add	x0, x0, :lo12:arm64_mmu_regs
	bl	arm64_mmu_enable
	mov	x29, xzr
	mov	x0, x19
	bl	arm64_secondary_boot    // never returns
	b	arch_halt

/*
 * el2_to_el1: return to the caller at EL1h with DAIF masked.  No stack.
 * At EL2: AArch64 EL1, no traps of EL1 timer/counter or FP accesses, VPIDR
 * and VMPIDR = the real MIDR/MPIDR (EL1 reads of MPIDR see VMPIDR_EL2), GICv3
 * system registers usable at EL1, SCTLR_EL1 in a known state (MMU off).
 * Clobbers x9.  EL3 is not supported (QEMU virt starts at EL3 only with
 * secure=on and firmware).
 */
el2_to_el1:
	mrs	x9, CurrentEL
	lsr	x9, x9, #2
	cmp	x9, #1
	b.eq	9f
	cmp	x9, #2
	b.ne	el3_unsupported
	mov	x9, #HCR_RW
	msr	hcr_el2, x9
	mrs	x9, cnthctl_el2
	orr	x9, x9, #CNTHCTL_EL1_ACCESS
	msr	cnthctl_el2, x9
	msr	cntvoff_el2, xzr
	mrs	x9, midr_el1
	msr	vpidr_el2, x9
	mrs	x9, mpidr_el1
	msr	vmpidr_el2, x9
	mov	x9, #CPTR_EL2_NOTRAP
	msr	cptr_el2, x9
	msr	hstr_el2, xzr
	mrs	x9, id_aa64pfr0_el1     // GIC field (27:24) != 0: system-register GIC interface
	ubfx	x9, x9, #24, #4
	cbz	x9, 1f
	mrs	x9, icc_sre_el2
	orr	x9, x9, #1              // SRE
	orr	x9, x9, #8              // Enable: EL1 may set its own SRE
	msr	icc_sre_el2, x9
	isb
1:	ldr	x9, =SCTLR_RES1
	msr	sctlr_el1, x9
	mov	x9, #SPSR_EL1H_MASKED
	msr	spsr_el2, x9
	msr	elr_el2, x30
	eret
9:	ret

el3_unsupported:
	adrp	x0, stack_area + BOOT0_TOP
	add	x0, x0, :lo12:stack_area + BOOT0_TOP
	mov	sp, x0
	adr	x0, el3_msg
	bl	arm64_early_panic
el3_msg:
	.asciz	"entered at EL3: not supported (boot at EL1 or EL2)"
	.balign	4

/*
 * cpu_early: per-CPU state needed before any C code: exception vectors,
 * FP/SIMD enabled (newlib and traced code use SIMD registers), SP_EL1 in use,
 * SCTLR with the MMU and alignment checks off.  Clobbers x9.
 */
cpu_early:
	msr	spsel, #1
	adrp	x9, arm64_vectors
	add	x9, x9, :lo12:arm64_vectors
	msr	vbar_el1, x9
	mov	x9, #CPACR_FPEN
	msr	cpacr_el1, x9
	ldr	x9, =SCTLR_RES1
	msr	sctlr_el1, x9
	isb
	ret

/*
 * arm64_mmu_enable(const struct mmu_regs *r): load MAIR/TCR/TTBR0, drop
 * stale TLB entries, then write SCTLR (MMU, caches, WXN).  The code runs from
 * the identity map, so execution continues at the next instruction.
 */
	.globl arm64_mmu_enable
arm64_mmu_enable:
	ldr	x1, [x0, #MMU_REGS_MAIR]
	msr	mair_el1, x1
	ldr	x1, [x0, #MMU_REGS_TCR]
	msr	tcr_el1, x1
	ldr	x1, [x0, #MMU_REGS_TTBR0]
	msr	ttbr0_el1, x1
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	ldr	x1, [x0, #MMU_REGS_SCTLR]
	msr	sctlr_el1, x1
	isb
	ic	iallu                   // nothing stale may have been fetched uncached
	dsb	nsh
	isb
	ret

	/* No executable stack wanted (GNU ld warns without this note). */
	.section .note.GNU-stack, "", %progbits
