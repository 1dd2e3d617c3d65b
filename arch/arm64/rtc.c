/*
 * rtc.c — the PL031 real-time clock QEMU's virt board has (arch/hooks.h:
 * arch_rtc_seconds).  Its data register (RTCDR, offset 0) counts seconds;
 * QEMU starts it at the host's time since the epoch, UTC (-rtc base=utc,
 * the default).  Mapped by mmu_init() when the device tree names one.
 */
#include "arch/arm64/platform.h"
#include "arch/hooks.h"

#define PL031_DR 0x000        /* data register: seconds, read-only */

int64_t arch_rtc_seconds(void)
{
	if (!platform.rtc.base)
		return -1;
	return *(volatile uint32_t *)(uintptr_t)(platform.rtc.base + PL031_DR);
}
