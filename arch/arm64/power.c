/*
 * power.c — leaving QEMU (arch_poweroff) and stopping a CPU (arch_halt).
 *
 * Poweroff uses Arm semihosting SYS_EXIT_EXTENDED (QEMU -semihosting): the
 * guest's status becomes QEMU's exit status.  Without -semihosting the
 * `hlt #0xf000` is an undefined instruction; fault.c recognises that exact
 * instruction (semihost_trap_pc) and resumes after it with x0 = -1, and we
 * fall back to PSCI SYSTEM_OFF, which loses the status (QEMU exits 0), so
 * that is said on the console first.
 */
#include "arch/hooks.h"
#include "power.h"
#include "psci.h"
#include "uart.h"

#define SEMIHOST_SYS_EXIT_EXTENDED   0x20
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

/*
 * One semihosting call: op in w0, parameter in x1, result in x0.  The trap
 * instruction is at the global label arm64_semihost_trap so that the undef
 * handler can tell "semihosting is off" from a real undefined instruction.
 */
static __attribute__((noinline)) int64_t semihost_call(uint32_t op, uint64_t arg)
{
	register uint64_t x0 __asm__("x0") = op;
	register uint64_t x1 __asm__("x1") = arg;
	__asm__ volatile(".globl arm64_semihost_trap\n"
			 "arm64_semihost_trap: hlt #0xf000"
			 : "+r"(x0) : "r"(x1) : "memory");
	return (int64_t)x0;
}

void arch_poweroff(int status)
{
	uint64_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint64_t)(int64_t)status };

	arch_irq_disable();
	semihost_call(SEMIHOST_SYS_EXIT_EXTENDED, (uintptr_t)block);

	/* Still here: no semihosting.  PSCI SYSTEM_OFF cannot carry a status. */
	if (status != 0)
		uart_puts("arm64: no semihosting; powering off with PSCI, exit status lost\r\n");
	psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
	uart_puts("arm64: PSCI SYSTEM_OFF failed; halting\r\n");
	arch_halt();
}

void arch_halt(void)
{
	__asm__ volatile("msr daifset, #0xf" ::: "memory");
	for (;;)
		__asm__ volatile("wfi");
}
