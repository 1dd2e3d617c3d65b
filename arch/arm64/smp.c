/*
 * smp.c — starting secondary CPUs with PSCI CPU_ON.
 *
 * arch_cpu_start() fills boot[c->id] and cleans it to the point of
 * coherency (the new CPU reads it with the MMU and caches off), then asks
 * the firmware to start the CPU at arm64_secondary_entry (entry.S), which
 * drops to EL1 if needed, takes the stack, installs vectors, enables FP/SIMD
 * and the MMU with the boot CPU's tables, and calls arm64_secondary_boot().
 *
 * boot[i] is written by the boot CPU before CPU_ON for CPU i and only read
 * by CPU i afterwards.
 */
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "boot/stack.h"
#include "mmu.h"
#include "psci.h"
#include "setup.h"
#include "smp.h"
#include "sysreg.h"

static struct smp_boot boot[MAX_CPUS];

int arch_cpu_start(struct cpu *c, void *stack_top)
{
	struct smp_boot *b = &boot[c->id];

	b->stack_top = (uintptr_t)stack_top & ~15ul;
	b->cpu = c;
	dcache_clean_poc(b, sizeof(*b));

	int64_t rc = psci_call(PSCI_CPU_ON_64, c->hwid, (uintptr_t)arm64_secondary_entry,
			       (uintptr_t)b);
	if (rc != PSCI_SUCCESS) {
		kprintf("arm64: PSCI CPU_ON for MPIDR %#lx failed: %s (%ld)\n",
			c->hwid, psci_strerror(rc), rc);
		return -1;
	}
	return 0;
}

void arm64_secondary_boot(struct smp_boot *b)
{
	struct cpu *c = b->cpu;

	if (this_mpidr() != c->hwid)
		panic("arm64: CPU started as MPIDR %#lx, expected %#lx", this_mpidr(), c->hwid);
	arch_set_this_cpu(c);
	/* vectors.S: this CPU's exception stack (smp_boot allocated it). */
	char *exc = stack_exception(c->id);
	__asm__ volatile("msr tpidr_el0, %0" :: "r"(exc + STACK_SIZE));
	serror_unmask();
	secondary_main();
	panic("arm64: secondary_main returned on CPU %u", c->id);
}
