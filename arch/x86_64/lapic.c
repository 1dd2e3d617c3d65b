/*
 * lapic.c — the local APIC: per-CPU enable, the periodic timer, IPIs, EOI.
 *
 * Mode: x2APIC (MSRs 0x800+) when CPUID offers it, else xAPIC (MMIO at the
 * APIC base, normally 0xFEE00000, mapped uncached by mmu_map_mmio).  Every
 * CPU uses the same mode: lapic_cpu_enable() switches each into it.
 *
 * Interface: lapic_init() once on the boot CPU after mmu_init();
 * lapic_timer_calibrate() once after tsc_calibrate(); the hooks
 * arch_cpu_irq_init / arch_timer_set_hz / arch_send_ipi / arch_idle_wait
 * (arch/hooks.h); lapic_eoi() from trap.c; lapic_send() from smp.c.
 *
 * Timer: divide by 16, periodic, vector VEC_TIMER; its input rate is
 * measured against the TSC because QEMU's differs from real hardware's.
 */
#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"

#define APIC_ID        0x020
#define APIC_TPR       0x080
#define APIC_EOI       0x0B0
#define APIC_SVR       0x0F0
#define APIC_ESR       0x280
#define APIC_ICR_LO    0x300
#define APIC_ICR_HI    0x310
#define APIC_LVT_TIMER 0x320
#define APIC_LVT_LINT0 0x350
#define APIC_LVT_ERROR 0x370
#define APIC_TMR_INIT  0x380
#define APIC_TMR_CUR   0x390
#define APIC_TMR_DIV   0x3E0

#define SVR_ENABLE     (1u << 8)
#define LVT_MASKED     (1u << 16)
#define LVT_PERIODIC   (1u << 17)
#define ICR_BUSY       (1u << 12)        /* xAPIC delivery status */
#define TMR_DIV_16     0x3
#define APIC_BASE_EN   (1ull << 11)
#define APIC_BASE_EXTD (1ull << 10)      /* x2APIC mode */
#define X2APIC_MSR(r)  (0x800u + ((r) >> 4))
#define X2APIC_ICR     0x830u

static bool x2apic;                      /* written once, before other CPUs start */
static volatile uint32_t *mmio;          /* xAPIC registers; written once */
static uint64_t timer_hz;                /* timer input after the divider; written once */

static uint32_t rd(unsigned reg)
{
	return x2apic ? (uint32_t)rdmsr(X2APIC_MSR(reg)) : mmio[reg / 4];
}

static void wr(unsigned reg, uint32_t v)
{
	if (x2apic)
		wrmsr(X2APIC_MSR(reg), v);
	else
		mmio[reg / 4] = v;
}

void lapic_init(void)
{
	uint32_t r[4];
	cpuid(1, 0, r);
	if (!(r[3] & (1u << 9)))
		boot_fail("CPU has no local APIC");
	x2apic = (r[2] & (1u << 21)) != 0;
	uint64_t base = rdmsr(MSR_APIC_BASE) & 0x000FFFFFFFFFF000ull;
	if (acpi.lapic_addr && acpi.lapic_addr != base)
		kprintf("baretrace: LAPIC at %#lx, MADT says %#lx; using the MSR\n",
			(unsigned long)base, (unsigned long)acpi.lapic_addr);
	if (!x2apic) {
		mmu_map_mmio(base, PAGE_SIZE);
		mmio = (volatile uint32_t *)(uintptr_t)base;
	}
}

/* A CPU out of INIT is in xAPIC mode: switch it before any register access. */
void lapic_set_mode(void)
{
	uint64_t b = rdmsr(MSR_APIC_BASE) | APIC_BASE_EN;
	if (x2apic)
		b |= APIC_BASE_EXTD;
	wrmsr(MSR_APIC_BASE, b);
}

void lapic_cpu_enable(void)
{
	lapic_set_mode();
	wr(APIC_TPR, 0);
	wr(APIC_LVT_LINT0, LVT_MASKED);      /* the 8259s are masked anyway */
	wr(APIC_LVT_ERROR, LVT_MASKED);
	wr(APIC_LVT_TIMER, LVT_MASKED);
	wr(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	wr(APIC_ESR, 0);
}

uint64_t lapic_timer_hz(void)
{
	return timer_hz;
}

bool lapic_is_x2apic(void)
{
	return x2apic;
}

uint32_t lapic_id(void)
{
	return x2apic ? rd(APIC_ID) : rd(APIC_ID) >> 24;
}

void lapic_eoi(void)
{
	wr(APIC_EOI, 0);
}

void lapic_send(uint32_t apic_id, uint32_t icr_low)
{
	unsigned long f = arch_irq_save();      /* ICR_HI/ICR_LO pair: no interleaving */
	if (x2apic) {
		/* WRMSR to the ICR is not serialising: earlier stores (the
		 * IPI's payload) must be globally visible before it. */
		__asm__ volatile("mfence; lfence" : : : "memory");
		wrmsr(X2APIC_ICR, (uint64_t)apic_id << 32 | icr_low);
	} else {
		if (apic_id > 0xFF)
			panic("xAPIC cannot address APIC id %u", apic_id);
		for (unsigned long i = 0; rd(APIC_ICR_LO) & ICR_BUSY; i++) {
			if (i > 100000000ul)
				panic("LAPIC: ICR stuck busy");
			__asm__ volatile("pause");
		}
		wr(APIC_ICR_HI, apic_id << 24);
		wr(APIC_ICR_LO, icr_low);           /* UC MMIO: ordered after earlier stores */
	}
	arch_irq_restore(f);
}

/* Boot CPU, its LAPIC enabled, interrupts off: count timer ticks over ~10 ms of TSC. */
void lapic_timer_calibrate(void)
{
	wr(APIC_TMR_DIV, TMR_DIV_16);
	wr(APIC_LVT_TIMER, LVT_MASKED);           /* one-shot, masked */
	uint64_t t0 = rdtsc_raw();
	wr(APIC_TMR_INIT, 0xFFFFFFFFu);
	tsc_delay_us(10000);
	uint32_t left = rd(APIC_TMR_CUR);
	uint64_t t1 = rdtsc_raw();
	wr(APIC_TMR_INIT, 0);
	uint64_t counted = 0xFFFFFFFFull - left;
	if (counted == 0 || left == 0)
		boot_fail("LAPIC timer did not count sensibly (left %u)", left);
	timer_hz = (uint64_t)((unsigned __int128)counted * arch_counter_hz() / (t1 - t0));
}

void arch_timer_set_hz(unsigned hz)
{
	unsigned long f = arch_irq_save();
	if (hz == 0) {
		wr(APIC_LVT_TIMER, LVT_MASKED);
		wr(APIC_TMR_INIT, 0);
	} else {
		uint64_t count = timer_hz / hz;
		if (count == 0)
			count = 1;
		if (count > 0xFFFFFFFFu)
			count = 0xFFFFFFFFu;
		wr(APIC_TMR_DIV, TMR_DIV_16);
		wr(APIC_LVT_TIMER, LVT_PERIODIC | VEC_TIMER);
		wr(APIC_TMR_INIT, (uint32_t)count);   /* restarts the period */
	}
	arch_irq_restore(f);
}

void arch_cpu_irq_init(unsigned hz)
{
	lapic_cpu_enable();
	arch_timer_set_hz(hz);
	if (cpu_id() == 0) {
		ioapic_route_isa(4, VEC_UART, lapic_id());
		uart_rx_enable();
	}
}

void arch_send_ipi(unsigned cpu)
{
	lapic_send((uint32_t)cpus[cpu].hwid, ICR_FIXED | ICR_ASSERT | VEC_IPI);
}

/* sti's one-instruction interrupt shadow covers hlt: an interrupt pending
 * at the sti is taken after hlt starts, so it ends the wait. */
void arch_idle_wait(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}
