/*
 * clock.c — counter to nanoseconds.
 *
 * ns = cycles * mult >> 32, with a 128-bit product so no range is lost; mult
 * is written once by clock_init() on the boot CPU before any other CPU starts.
 */
#include "arch/hooks.h"
#include "boot/clock.h"
#include "boot/panic.h"

static uint64_t mult;       /* ns per cycle, 32.32 fixed point; written once */

void clock_init(void)
{
	uint64_t hz = arch_counter_hz();
	if (hz == 0)
		panic("clock: counter frequency unknown");
	mult = (uint64_t)(((unsigned __int128)1000000000u << 32) / hz);
}

uint64_t clock_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * mult) >> 32);
}

uint64_t clock_ns(void)
{
	return clock_cycles_to_ns(arch_counter());
}

void clock_delay_ns(uint64_t ns)
{
	if (!mult)
		return;               /* before clock_init (an early panic): no delay */
	uint64_t end = clock_ns() + ns;
	while (clock_ns() < end)
		arch_cpu_relax();
}
