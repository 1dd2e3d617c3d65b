/*
 * arch_defs.h — x86-64 inline primitives and the trap frame (see arch/hooks.h).
 *
 * Included from arch/hooks.h and lib/spinlock.h, so it may not include
 * boot/cpu.h: struct cpu stays opaque here.  Everything is always_inline, so
 * callers in traced files never reach a patchable site through it.
 *
 * The trap frame layout is shared with vectors.S through the TF_* offsets
 * below; arch/x86_64/trap.c pins them with _Static_assert.
 */
#ifndef ARCH_X86_64_ARCH_DEFS_H
#define ARCH_X86_64_ARCH_DEFS_H

#define ARCH_NAME "x86_64"

/*
 * Trap frame, lowest address first.  The CPU pushes ss..rip (and an error
 * code for some exceptions) after aligning RSP down to 16; the vector stub
 * pushes a zero error code where the CPU does not, then the vector; the
 * common entry pushes the 15 GPRs, makes room for the FXSAVE area and a
 * frame record {saved rbp, rip} so that rbp-chain backtraces walk from the
 * handler into the interrupted code.  Total 704 bytes, a multiple of 16, so
 * the FXSAVE area at offset 16 is 16-byte aligned.
 */
#define TF_LINK_RBP   0
#define TF_LINK_RIP   8
#define TF_FX         16       /* 512-byte FXSAVE area */
#define TF_R15        528
#define TF_RBP        592
#define TF_RAX        640
#define TF_VECTOR     648
#define TF_ERROR      656
#define TF_RIP        664
#define TF_CS         672
#define TF_RFLAGS     680
#define TF_RSP        688
#define TF_SS         696
#define TF_SIZE       704

#ifndef __ASSEMBLY__

#include <stdbool.h>
#include <stdint.h>

struct cpu;

struct trap_frame {
	uint64_t link_rbp, link_rip;               /* frame record for backtraces */
	uint8_t fx[512] __attribute__((aligned(16)));
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;                           /* pushed by the stub */
	uint64_t error;                            /* CPU's error code, or 0 */
	uint64_t rip, cs, rflags, rsp, ss;         /* pushed by the CPU */
};

#define X86_RFLAGS_IF (1ul << 9)

#define ARCH_INLINE static inline __attribute__((always_inline))

/* struct cpu's first field is a self pointer (boot/cpu.h), so %gs:0 is it. */
ARCH_INLINE struct cpu *arch_this_cpu(void)
{
	struct cpu *c;
	/* volatile: the result changes when a thread migrates; never CSE it. */
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* GS base := c, and c->self := c.  Boot and bring-up only. */
ARCH_INLINE void arch_set_this_cpu(struct cpu *c)
{
	uint64_t v = (uint64_t)(uintptr_t)c;
	*(struct cpu **)c = c;
	__asm__ volatile("wrmsr" : : "c"(0xC0000101u), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32)) : "memory");
}

ARCH_INLINE unsigned long arch_irq_save(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}

ARCH_INLINE void arch_irq_restore(unsigned long f)
{
	if (f & X86_RFLAGS_IF)
		__asm__ volatile("sti" : : : "memory");
}

ARCH_INLINE void arch_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

ARCH_INLINE void arch_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}

ARCH_INLINE bool arch_irqs_enabled(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return (f & X86_RFLAGS_IF) != 0;
}

ARCH_INLINE void arch_cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/*
 * The TSC.  lfence keeps rdtsc from executing before earlier instructions
 * (rdtsc alone is not ordered).  Rate: arch_counter_hz(), calibrated at boot.
 */
ARCH_INLINE uint64_t arch_counter(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

ARCH_INLINE uintptr_t arch_frame_address(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif /* __ASSEMBLY__ */
#endif
