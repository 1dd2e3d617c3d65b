/*
 * setup.c — arm64 boot on the boot CPU, from the first C instruction to
 * kernel_main().
 *
 * Order (each step needs the previous ones):
 *   1. find the DTB (x0 if it holds one, else the start of RAM, where QEMU
 *      puts it for an ELF -kernel), parse it, point the UART at its base;
 *   2. build the identity map and turn the MMU and caches on (mmu.c);
 *      until here the MMU is off: strict alignment, no library calls, and
 *      errors go through arm64_early_panic();
 *   3. copy the command line into .bss, move the initrd out of the heap,
 *      fill struct boot_info;
 *   4. GIC distributor, per-CPU pointer of CPU 0, kernel_main() with IRQs off.
 * Firmware data: for an ELF boot the DTB lies below the image, outside the
 * heap; for a Linux-Image boot (objcopy -O binary, see linker/arm64.ld) QEMU
 * puts it above the initrd, inside the heap range.  Either way nothing in it
 * is used once kernel_main() starts: the command line is copied, the initrd
 * moved.
 */
#include <string.h>

#include "boot/boot_info.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"
#include "gic.h"
#include "mmu.h"
#include "platform.h"
#include "setup.h"
#include "sysreg.h"
#include "uart.h"

#define PAGE_SIZE    4096ul

/* Where QEMU virt puts the DTB for a bare-metal ELF image: the start of RAM. */
#define VIRT_DTB_ADDR 0x40000000ul

extern char _text_start[], _end[];

static char cmdline[CMDLINE_MAX];
static struct boot_info bi;

void arm64_early_panic(const char *msg)
{
	uart_puts("arm64: ");
	uart_puts(msg);
	uart_puts("\r\n");
	arch_poweroff(PANIC_EXIT_STATUS);
}

static const void *find_dtb(uintptr_t hint)
{
	if (hint && !(hint & 7) && fdt_valid((const void *)hint))
		return (const void *)hint;
	if (fdt_valid((const void *)VIRT_DTB_ADDR))
		return (const void *)VIRT_DTB_ADDR;
	arm64_early_panic("no device tree (not in x0, not at 0x40000000)");
}

/* Copy /chosen bootargs (QEMU puts the whole -append there); one longer
 * than the kernel takes is copied in part, and kernel_main refuses it. */
static void copy_cmdline(void)
{
	size_t n = platform.bootargs ? platform.bootargs_len : 0;
	bi.cmdline_len = n;
	if (n >= CMDLINE_MAX)
		n = CMDLINE_MAX - 1;
	if (n)
		memcpy(cmdline, platform.bootargs, n);
	cmdline[n] = 0;
	bi.cmdline = cmdline;
}

/*
 * The heap is [page-aligned _end, end of RAM).  QEMU loads the initrd inside
 * that range, so move it to the top of RAM and end the heap below it.
 */
static void place_initrd_and_heap(void)
{
	uintptr_t heap_start = ((uintptr_t)_end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uintptr_t ram_end = platform.ram_base + platform.ram_size;
	uintptr_t start = platform.initrd_start, size = platform.initrd_end - platform.initrd_start;

	bi.heap_start = heap_start;
	bi.heap_end = ram_end;
	if (!start || !size)
		return;
	if (start < platform.ram_base || platform.initrd_end > ram_end)
		panic("arm64: initrd [%#lx, %#lx) is outside RAM", start, platform.initrd_end);
	if (platform.initrd_end > heap_start) {
		uintptr_t dst = (ram_end - size) & ~(PAGE_SIZE - 1);
		if (dst < heap_start || (start < heap_start && dst < platform.initrd_end))
			panic("arm64: no room to move the initrd (%lu bytes) above the kernel", size);
		memmove((void *)dst, (const void *)start, size);
		start = dst;
		bi.heap_end = dst;
	}
	bi.initrd_start = start;
	bi.initrd_size = size;
}

/* hwid[0] is the boot CPU, then the others in DTB order. */
static void list_cpus(void)
{
	uint64_t me = this_mpidr();
	unsigned n = 0, found = 0;

	bi.hwid[n++] = me;
	for (unsigned i = 0; i < platform.ncpus; i++) {
		if (platform.cpu_hwid[i] == me)
			found = 1;
		else if (n < MAX_CPUS)
			bi.hwid[n++] = platform.cpu_hwid[i];
	}
	if (!found)
		panic("arm64: boot CPU (MPIDR %#lx) is not in the DTB's /cpus", me);
	if (platform.ncpus_ignored)
		kprintf("arm64: %u CPUs beyond MAX_CPUS=%u ignored\n", platform.ncpus_ignored, MAX_CPUS);
	bi.ncpus = n;
}

void arm64_boot(uintptr_t dtb_hint)
{
	const void *dtb = find_dtb(dtb_hint);
	const char *err = fdt_parse(dtb, (uintptr_t)_text_start);
	if (err)
		arm64_early_panic(err);
	uart_init(platform.uart.base);
	/* Built for Armv8.2 (build.mk): every atomic is an LSE instruction,
	 * which would be undefined here without FEAT_LSE (ID_AA64ISAR0_EL1.
	 * Atomic, bits 23:20, is 2 with it).  Say so before the first one. */
	if (((read_sysreg(id_aa64isar0_el1) >> 20) & 0xf) < 2)
		arm64_early_panic("this CPU has no LSE atomics; the kernel is built for Armv8.2 "
				  "(run QEMU with -cpu cortex-a76, as arch/arm64/qemu.conf does)");
	mmu_init();

	/* MMU and caches on: normal C from here. */
	cpus[0].self = &cpus[0];
	cpus[0].id = 0;
	cpus[0].hwid = this_mpidr();
	arch_set_this_cpu(&cpus[0]);

	copy_cmdline();
	place_initrd_and_heap();
	list_cpus();
	gic_init();
	serror_unmask();

	kernel_main(&bi);
	panic("arm64: kernel_main returned");
}
