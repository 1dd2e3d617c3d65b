/*
 * setup.h — the C side of arm64 boot (setup.c), called from entry.S.
 */
#ifndef ARM64_SETUP_H
#define ARM64_SETUP_H

#include <stdint.h>

/* Boot CPU, MMU off, on the boot stack, .bss clear, vectors and FP/SIMD on.
 * dtb_hint is x0 at entry (maybe the DTB).  Never returns. */
__attribute__((noreturn)) void arm64_boot(uintptr_t dtb_hint);

/* Before kprintf can be used (MMU off): print "arm64: <msg>" on the UART
 * and power off with PANIC_EXIT_STATUS. */
__attribute__((noreturn)) void arm64_early_panic(const char *msg);

/* Upcalls into generic code (see arch/hooks.h, "Upcalls"). */
struct boot_info;
void kernel_main(struct boot_info *bi);
void secondary_main(void);

#endif
