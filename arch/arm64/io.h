/*
 * io.h — MMIO accessors for device memory.
 *
 * Each access is one plain load or store of the given width with a base
 * register and no writeback, so that it is a single, emulatable transaction
 * (a hypervisor can decode it from the syndrome).  No barriers are implied:
 * device-nGnRE mappings already keep accesses to one device in program order;
 * callers add dsb/isb where ordering against normal memory or system
 * registers matters.
 */
#ifndef ARM64_IO_H
#define ARM64_IO_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint32_t mmio_read32(uintptr_t a)
{
	uint32_t v;
	__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(a) : "memory");
	return v;
}

static inline __attribute__((always_inline)) void mmio_write32(uintptr_t a, uint32_t v)
{
	__asm__ volatile("str %w0, [%1]" :: "rZ"(v), "r"(a) : "memory");
}

static inline __attribute__((always_inline)) uint64_t mmio_read64(uintptr_t a)
{
	uint64_t v;
	__asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(a) : "memory");
	return v;
}

static inline __attribute__((always_inline)) void mmio_write64(uintptr_t a, uint64_t v)
{
	__asm__ volatile("str %x0, [%1]" :: "rZ"(v), "r"(a) : "memory");
}

#endif
