/*
 * boot_info.h — what the arch entry code learned from firmware.
 *
 * Filled once by the arch code on the boot CPU before kernel_main(); read-only
 * afterwards.  Addresses are physical = virtual (the kernel maps RAM 1:1).
 */
#ifndef BOOT_BOOT_INFO_H
#define BOOT_BOOT_INFO_H

#include <stdint.h>

#define MAX_CPUS 16

struct boot_info {
	uintptr_t heap_start;      /* first free byte after the image (page aligned) */
	uintptr_t heap_end;        /* end of usable RAM following it */
	const char *cmdline;       /* NUL-terminated, "" if none */
	uintptr_t initrd_start;    /* 0 if none */
	uintptr_t initrd_size;
	unsigned ncpus;            /* CPUs found (capped at MAX_CPUS) */
	uint64_t hwid[MAX_CPUS];   /* APIC id (x86-64) / MPIDR affinity (arm64); [0] = boot CPU */
	uintptr_t ram_start;       /* lowest kernel address (image start); set by kernel_main */
};

/* kernel_main's copy, read-only once other CPUs run. */
extern struct boot_info boot_info;

#endif
