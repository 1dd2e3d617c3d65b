/*
 * smp.c — starting secondary CPUs (INIT-SIPI-SIPI) and their first C code.
 *
 * smp_copy_trampoline(): once, on the boot CPU, before mmu_init() (the early
 * tables still let us write TRAMP_BASE; the final ones map it RX).
 *
 * arch_cpu_start(c, stack_top) hands the new CPU one struct x86_cpu through
 * the single mailbox ap_boot_claim (entry.S): the new CPU takes it with an
 * atomic exchange in ap_entry64.  We wait (bounded) until it is taken, so
 * the next start cannot overwrite a mailbox still unread; if it is never
 * taken we take it back with the same exchange, and a CPU waking up later
 * finds NULL and parks.  Callers are serialised (generic smp_boot).
 */
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/cpu.h"

extern const char tramp_start[], tramp_end[];   /* trampoline.S */
extern struct x86_cpu *ap_boot_claim;           /* entry.S */

void secondary_main(void);

#define CLAIM_TIMEOUT_US 1000000               /* TCG may be slow to run a new vCPU */

void smp_copy_trampoline(void)
{
	size_t n = (size_t)(tramp_end - tramp_start);
	if (n > PAGE_SIZE)
		boot_fail("SMP trampoline is %zu bytes, more than a page", n);
	memcpy((void *)TRAMP_BASE, tramp_start, n);
}

static bool claimed_within(uint64_t us)
{
	uint64_t end = rdtsc_raw() + us * (arch_counter_hz() / 1000000u);
	while (__atomic_load_n(&ap_boot_claim, __ATOMIC_ACQUIRE)) {
		if (rdtsc_raw() > end)
			return false;
		__asm__ volatile("pause");
	}
	return true;
}

int arch_cpu_start(struct cpu *c, void *stack_top)
{
	struct x86_cpu *xc = &x86_cpus[c->id];
	uint32_t apic = (uint32_t)c->hwid;

	xc->cpu = c;
	xc->stack_top = stack_top;
	xc->apic_id = apic;
	/* RELEASE: xc's fields are visible to the CPU that takes the pointer. */
	__atomic_store_n(&ap_boot_claim, xc, __ATOMIC_RELEASE);

	lapic_send(apic, ICR_INIT | ICR_ASSERT);
	tsc_delay_us(10000);
	lapic_send(apic, ICR_STARTUP | (TRAMP_BASE >> 12));
	if (!claimed_within(200)) {
		/* A CPU already past wait-for-SIPI ignores the second one. */
		lapic_send(apic, ICR_STARTUP | (TRAMP_BASE >> 12));
		if (!claimed_within(CLAIM_TIMEOUT_US) &&
		    __atomic_exchange_n(&ap_boot_claim, NULL, __ATOMIC_ACQ_REL)) {
			kprintf("baretrace: CPU with APIC id %u did not answer INIT-SIPI-SIPI\n",
				apic);
			return -1;
		}
	}
	return 0;
}

/* The new CPU, on its own stack, interrupts off, from ap_entry64. */
void ap_main(struct x86_cpu *xc)
{
	cpu_local_init(xc, xc->cpu);
	lapic_set_mode();
	if (lapic_id() != xc->apic_id)
		kprintf("baretrace: CPU %u expected APIC id %u, has %u\n", xc->cpu->id,
			xc->apic_id, lapic_id());
	secondary_main();
	arch_halt();
}
