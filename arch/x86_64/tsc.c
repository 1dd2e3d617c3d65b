/*
 * tsc.c — the TSC as the kernel's counter, calibrated against the ACPI PM
 * timer (3.579545 MHz, I/O port from the FADT).
 *
 * Under TCG the TSC follows the host's clock (or the instruction count with
 * -icount), and CPUID's frequency leaves describe a CPU model, not that: so
 * the rate is measured once at boot (tsc_calibrate, boot CPU, after
 * acpi_init) and read-only afterwards.  All vCPUs share the host's TSC, so
 * rate and origin agree across CPUs.
 */
#include "arch/x86_64/x86.h"

#define PM_TIMER_HZ     3579545u
#define CALIBRATE_TICKS (PM_TIMER_HZ / 20)      /* 50 ms */

static uint64_t tsc_hz;              /* written once by tsc_calibrate */

static uint32_t pm_timer_read(void)
{
	return inl(acpi.pm_timer_port) & (acpi.pm_timer_32bit ? 0xFFFFFFFFu : 0xFFFFFFu);
}

static uint32_t pm_timer_since(uint32_t start)
{
	uint32_t mask = acpi.pm_timer_32bit ? 0xFFFFFFFFu : 0xFFFFFFu;
	return (pm_timer_read() - start) & mask;
}

void tsc_calibrate(void)
{
	if (!acpi.pm_timer_port)
		boot_fail("no ACPI PM timer in the FADT; cannot calibrate the TSC");
	/* Start on a PM timer edge so the interval is measured to within a tick. */
	uint32_t t0 = pm_timer_read(), t;
	uint64_t guard = 0;
	while ((t = pm_timer_read()) == t0)
		if (++guard > 100000000ull)
			boot_fail("the ACPI PM timer at port %#x does not count",
				  acpi.pm_timer_port);
	uint64_t c0 = rdtsc_raw();
	uint32_t ticks;
	while ((ticks = pm_timer_since(t)) < CALIBRATE_TICKS)
		__asm__ volatile("pause");
	uint64_t c1 = rdtsc_raw();
	tsc_hz = (uint64_t)((unsigned __int128)(c1 - c0) * PM_TIMER_HZ / ticks);
	if (tsc_hz < 1000000)
		boot_fail("TSC rate %llu Hz is implausible", (unsigned long long)tsc_hz);
}

uint64_t arch_counter_hz(void)
{
	return tsc_hz;
}

void tsc_delay_us(uint64_t us)
{
	uint64_t end = rdtsc_raw() + (uint64_t)((unsigned __int128)tsc_hz * us / 1000000u);
	while (rdtsc_raw() < end)
		__asm__ volatile("pause");
}
