/*
 * platform.h — what the device tree told us about the machine.
 *
 * fdt_parse() fills `platform` once, on the boot CPU, before the MMU is on;
 * everything else reads it afterwards (read-only).  bootargs points into the
 * DTB, which may lie in the heap range: setup.c copies it before
 * kernel_main(), and nothing may use it after that.
 */
#ifndef ARM64_PLATFORM_H
#define ARM64_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "boot/boot_info.h"

#define PLATFORM_MAX_GICR 4

enum psci_conduit { PSCI_NONE, PSCI_HVC, PSCI_SMC };

struct mmio_range {
	uint64_t base, size;
};

struct platform {
	uint64_t ram_base, ram_size;        /* the /memory range holding the kernel */
	const char *bootargs;               /* /chosen bootargs (in the DTB), NULL if none */
	size_t bootargs_len;                /* without the NUL */
	uint64_t initrd_start, initrd_end;  /* /chosen linux,initrd-*, 0 if none */
	unsigned ncpus;                     /* /cpus/cpu@* found (capped at MAX_CPUS) */
	unsigned ncpus_ignored;             /* CPUs beyond MAX_CPUS */
	uint64_t cpu_hwid[MAX_CPUS];        /* their reg (MPIDR affinity), DTB order */
	enum psci_conduit psci;             /* /psci method */
	struct mmio_range uart;             /* first arm,pl011 */
	unsigned uart_intid;                /* its GIC INTID (SPI n -> 32 + n) */
	struct mmio_range gicd;             /* arm,gic-v3 distributor */
	unsigned ngicr;
	struct mmio_range gicr[PLATFORM_MAX_GICR];  /* redistributor regions */
	struct mmio_range rtc;              /* first arm,pl031, 0 if none */
};

extern struct platform platform;

/*
 * Parse the flattened device tree at `fdt` into `platform`.  `kernel_addr`
 * picks the memory range that holds the kernel.  Returns NULL on success,
 * or a static message naming what is missing or malformed.  Safe before the
 * MMU is on (no unaligned or exclusive accesses, no library calls).
 */
const char *fdt_parse(const void *fdt, uintptr_t kernel_addr);

/* True if `p` starts with the FDT magic.  Safe before the MMU is on. */
int fdt_valid(const void *p);

/* Total size of the blob (header field); only for a blob fdt_valid() accepted. */

#endif
