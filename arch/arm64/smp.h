/*
 * smp.h — what entry.S needs to start a secondary CPU.
 */
#ifndef ARM64_SMP_H
#define ARM64_SMP_H

/* struct smp_boot offsets, for entry.S. */
#define SMP_BOOT_STACK  0
#define SMP_BOOT_CPU    8

#ifndef __ASSEMBLY__
#include <stdint.h>

struct cpu;

/* Handed to a starting CPU as PSCI's context id; read with the MMU off. */
struct smp_boot {
	uint64_t stack_top;
	struct cpu *cpu;
};
_Static_assert(__builtin_offsetof(struct smp_boot, cpu) == SMP_BOOT_CPU, "smp_boot");

/* entry.S: where PSCI CPU_ON starts a CPU (x0 = struct smp_boot *). */
extern char arm64_secondary_entry[];

/* entry.S -> C on the new CPU, MMU on, on its stack.  Never returns. */
__attribute__((noreturn)) void arm64_secondary_boot(struct smp_boot *b);
#endif

#endif
