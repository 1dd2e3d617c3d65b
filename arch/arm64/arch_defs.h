/*
 * arch_defs.h — arm64 inline primitives required by arch/hooks.h.
 *
 * Included from arch/hooks.h and lib/spinlock.h, so it must not include
 * boot/cpu.h (struct cpu is only forward-declared).  Everything here is
 * static inline always_inline: it is used from the tracer and from code that
 * must never reach a patchable site.
 *
 * The per-CPU pointer lives in TPIDR_EL1.  The interrupt flag is PSTATE.I
 * (DAIF bit 7); FIQs are never used.  The counter is the EL1 virtual counter
 * CNTVCT_EL0 (same rate on every CPU, CNTVOFF = 0).
 */
#ifndef ARM64_ARCH_DEFS_H
#define ARM64_ARCH_DEFS_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"

#define ARCH_NAME "arm64"

struct cpu;

/*
 * The registers saved on exception entry (vectors.S).  Opaque to generic
 * code, which uses arch_frame_pc/fp/redirect and arch_dump_frame.
 */
struct trap_frame {
	uint64_t x[31];            /* x0..x30 */
	uint64_t sp;               /* interrupted SP; exception return loads SP from here */
	uint64_t elr;              /* interrupted PC */
	uint64_t spsr;             /* interrupted PSTATE */
	uint64_t esr;              /* syndrome (meaningful for synchronous exceptions) */
	uint64_t far;              /* fault address (meaningful for aborts) */
	uint64_t fpcr, fpsr;
	uint64_t frame_record[2];  /* {x29, elr}: links the frame-pointer chain through the trap */
	uint64_t q[32][2];         /* q0..q31 as {low, high} 64-bit halves */
} __attribute__((aligned(16)));

_Static_assert(__builtin_offsetof(struct trap_frame, x[29]) == TF_X29, "TF_X29");
_Static_assert(__builtin_offsetof(struct trap_frame, x[30]) == TF_X30, "TF_X30");
_Static_assert(__builtin_offsetof(struct trap_frame, sp) == TF_SP, "TF_SP");
_Static_assert(__builtin_offsetof(struct trap_frame, elr) == TF_ELR, "TF_ELR");
_Static_assert(__builtin_offsetof(struct trap_frame, spsr) == TF_SPSR, "TF_SPSR");
_Static_assert(__builtin_offsetof(struct trap_frame, esr) == TF_ESR, "TF_ESR");
_Static_assert(__builtin_offsetof(struct trap_frame, far) == TF_FAR, "TF_FAR");
_Static_assert(__builtin_offsetof(struct trap_frame, fpcr) == TF_FPCR, "TF_FPCR");
_Static_assert(__builtin_offsetof(struct trap_frame, fpsr) == TF_FPSR, "TF_FPSR");
_Static_assert(__builtin_offsetof(struct trap_frame, frame_record) == TF_FREC, "TF_FREC");
_Static_assert(__builtin_offsetof(struct trap_frame, q) == TF_Q0, "TF_Q0");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "TF_SIZE");
_Static_assert(TF_SIZE % 16 == 0 && TF_Q0 % 16 == 0, "trap frame alignment");

#define ARM64_INLINE static inline __attribute__((always_inline))

#define ARM64_DAIF_I (1ul << 7)    /* PSTATE.I: IRQs masked */

ARM64_INLINE struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	/* volatile: a thread may migrate at any call, so the value must be
	 * re-read every time; a plain asm with a "memory" clobber is still
	 * hoisted out of loops by GCC. */
	__asm__ volatile("mrs %0, tpidr_el1" : "=r"(c) :: "memory");
	return c;
}

ARM64_INLINE void arch_set_this_cpu(struct cpu *c)
{
	__asm__ volatile("msr tpidr_el1, %0" :: "r"(c) : "memory");
}

ARM64_INLINE unsigned long arch_irq_save(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #2" : "=r"(f) :: "memory");
	return f;
}

ARM64_INLINE void arch_irq_restore(unsigned long f)
{
	__asm__ volatile("msr daif, %0" :: "r"(f) : "memory");
}

ARM64_INLINE void arch_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

ARM64_INLINE void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

ARM64_INLINE bool arch_irqs_enabled(void)
{
	unsigned long f;
	__asm__ volatile("mrs %0, daif" : "=r"(f) :: "memory");
	return !(f & ARM64_DAIF_I);
}

ARM64_INLINE void arch_cpu_relax(void)
{
	/* yield also ends the translation block under multi-threaded TCG, so a
	 * spinning vCPU lets the lock holder's vCPU thread run. */
	__asm__ volatile("yield" ::: "memory");
}

ARM64_INLINE uint64_t arch_counter(void)
{
	uint64_t v;
	/* isb: the counter read is not speculated ahead of earlier instructions. */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

ARM64_INLINE uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif
