/*
 * boot_info.h — what the arch entry code learned from firmware.
 *
 * Filled once by the arch code on the boot CPU before kernel_main(); read-only
 * afterwards.  Addresses are physical = virtual (the kernel maps RAM 1:1).
 */
#ifndef BOOT_BOOT_INFO_H
#define BOOT_BOOT_INFO_H

#include <stddef.h>
#include <stdint.h>

#define MAX_CPUS 16

/* The longest command line the kernel takes, NUL included (Linux's x86
 * COMMAND_LINE_SIZE).  A longer one is not cut: the boot refuses to run
 * (kernel_main), and tools/qemu-run.sh refuses it before QEMU starts
 * (it reads this line: keep the number a plain decimal). */
#define CMDLINE_MAX 2048

struct boot_info {
	uintptr_t heap_start;      /* first free byte after the image (page aligned) */
	uintptr_t heap_end;        /* end of usable RAM following it */
	const char *cmdline;       /* NUL-terminated, "" if none; at most CMDLINE_MAX - 1 bytes */
	size_t cmdline_len;        /* the whole line's length as the firmware gave it: more
				      than CMDLINE_MAX - 1 when cmdline holds only its start */
	uintptr_t initrd_start;    /* 0 if none */
	uintptr_t initrd_size;
	unsigned ncpus;            /* CPUs found (capped at MAX_CPUS) */
	uint64_t hwid[MAX_CPUS];   /* APIC id (x86-64) / MPIDR affinity (arm64); [0] = boot CPU */
	uintptr_t ram_start;       /* lowest kernel address (image start); set by kernel_main */
};

/* kernel_main's copy, read-only once other CPUs run. */
extern struct boot_info boot_info;

#endif
