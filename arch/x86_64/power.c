/*
 * power.c — leaving QEMU and stopping CPUs.
 *
 * arch_poweroff(status) writes status + 1 to QEMU's isa-debug-exit port
 * (0xf4, see qemu.conf); QEMU exits with ((status + 1) << 1) | 1, and
 * tools/qemu-run.sh maps that back to status.  A plain exit 0 from QEMU
 * therefore always means a reset or triple fault, and 1 that QEMU itself
 * failed, never success.  Statuses outside 1..125 become 125 so that no
 * failure can read as success after the 8-bit truncation.
 */
#include "arch/x86_64/x86.h"
#include "arch/hooks.h"

#define DEBUG_EXIT_PORT 0xf4

void arch_poweroff(int status)
{
	uint8_t code = status == 0 ? 0 : (status > 0 && status < 125) ? (uint8_t)status : 125;
	arch_irq_disable();
	outb(DEBUG_EXIT_PORT, code + 1);
	arch_halt();                      /* QEMU is exiting; other vCPUs may run briefly */
}

void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" : : : "memory");
}
