/*
 * boot.c — the boot CPU's arch bring-up, from entry.S to kernel_main().
 *
 * x86_boot_main(start_info) runs once, interrupts off, on the boot stack,
 * with entry.S's early 4 GiB identity map.  Order matters:
 *   1. console, IDT, this CPU's GDT/TSS/FPU/GS   (kprintf and faults work)
 *   2. read the PVH start_info: command line (copied), initrd, memory map
 *   3. ACPI (tables read through the early map, facts copied out)
 *   4. SMP trampoline copied to TRAMP_BASE (still writable)
 *   5. final W^X page tables, then device windows (LAPIC, IOAPIC)
 *   6. 8259s off, IOAPIC masked, TSC and LAPIC timer calibrated
 *   7. struct boot_info, kernel_main()
 * After step 2 nothing of the firmware's data is needed except the initrd,
 * which is kept out of the heap.
 */
#include <stdarg.h>
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/panic.h"

void kernel_main(struct boot_info *bi);

/* Xen's struct hvm_start_info and friends (public/arch-x86/hvm/start_info.h). */
#define HVM_START_MAGIC 0x336ec578u

struct hvm_start_info {
	uint32_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr;
	uint64_t rsdp_paddr;
	uint64_t memmap_paddr;            /* version >= 1 */
	uint32_t memmap_entries;          /* version >= 1 */
	uint32_t reserved;
};

struct hvm_modlist_entry {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

struct hvm_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;                    /* 1 = RAM, as in E820 */
	uint32_t reserved;
};

_Static_assert(sizeof(struct hvm_start_info) == 56, "hvm_start_info layout");
_Static_assert(sizeof(struct hvm_modlist_entry) == 32, "hvm_modlist_entry layout");
_Static_assert(sizeof(struct hvm_memmap_entry) == 24, "hvm_memmap_entry layout");

#define E820_RAM   1
#define MAX_RAM    32
#define MIN_HEAP   (4u << 20)

static char cmdline[CMDLINE_MAX];
static struct ram_range ram[MAX_RAM];
static unsigned nram;
static struct boot_info bi;

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

void boot_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	kprintf("\nbaretrace: boot failed: ");
	kvprintf(fmt, ap);
	kprintf("\n");
	va_end(ap);
	arch_poweroff(PANIC_EXIT_STATUS);
}

/* QEMU's PVH option ROM copies -append whole into a 4 KiB buffer of its
 * own (a longer one overruns it: qemu-run.sh refuses those first); one
 * longer than the kernel takes is copied in part, and kernel_main
 * refuses it. */
static void read_cmdline(const struct hvm_start_info *si)
{
	if (!si->cmdline_paddr)
		return;
	const char *s = (const char *)(uintptr_t)si->cmdline_paddr;
	size_t n = strlen(s);
	bi.cmdline_len = n;
	if (n >= CMDLINE_MAX)
		n = CMDLINE_MAX - 1;
	memcpy(cmdline, s, n);
	cmdline[n] = 0;
}

static void read_initrd(const struct hvm_start_info *si)
{
	if (si->nr_modules == 0 || !si->modlist_paddr)
		return;
	const struct hvm_modlist_entry *m =
		(const struct hvm_modlist_entry *)(uintptr_t)si->modlist_paddr;
	bi.initrd_start = m->paddr;
	bi.initrd_size = m->size;
	if (si->nr_modules > 1)
		kprintf("baretrace: %u boot modules, only the first is the initrd\n",
			si->nr_modules);
}

static void read_memmap(const struct hvm_start_info *si)
{
	if (si->version < 1 || !si->memmap_paddr || !si->memmap_entries)
		boot_fail("start_info version %u has no memory map", si->version);
	const struct hvm_memmap_entry *e =
		(const struct hvm_memmap_entry *)(uintptr_t)si->memmap_paddr;
	for (unsigned i = 0; i < si->memmap_entries; i++) {
		if (e[i].type != E820_RAM || e[i].size == 0)
			continue;
		if (nram == MAX_RAM) {
			kprintf("baretrace: more than %u RAM ranges, the rest ignored\n", MAX_RAM);
			break;
		}
		ram[nram++] = (struct ram_range){ e[i].addr, e[i].addr + e[i].size };
	}
}

/* The heap: from the end of boot allocations to the end of that RAM range,
 * minus the initrd wherever it overlaps. */
static void set_heap(uintptr_t start)
{
	uint64_t end = 0;
	for (unsigned i = 0; i < nram; i++)
		if (ram[i].start <= start && start < ram[i].end)
			end = ram[i].end & ~(uint64_t)(PAGE_SIZE - 1);
	uint64_t rd_lo = bi.initrd_start, rd_hi = bi.initrd_start + bi.initrd_size;
	if (bi.initrd_size && rd_lo < end && rd_hi > start) {
		if (rd_lo >= start + MIN_HEAP)
			end = rd_lo & ~(uint64_t)(PAGE_SIZE - 1);
		else
			start = align_up(rd_hi, PAGE_SIZE);
	}
	if (end < start + MIN_HEAP)
		boot_fail("less than %u MiB of RAM after the image", MIN_HEAP >> 20);
	bi.heap_start = start;
	bi.heap_end = end;
}

/* hwid[0] is the boot CPU, then the MADT's other enabled CPUs in order. */
static void set_cpus(uint32_t boot_id)
{
	bool listed = false;
	bi.hwid[bi.ncpus++] = boot_id;
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		if (acpi.apic_id[i] == boot_id) {
			listed = true;
			continue;
		}
		if (bi.ncpus < MAX_CPUS)
			bi.hwid[bi.ncpus++] = acpi.apic_id[i];
	}
	if (!listed)
		kprintf("baretrace: boot CPU's APIC id %u is not in the MADT\n", boot_id);
}

void x86_boot_main(uint32_t start_info_pa)
{
	uart_init();
	idt_init();
	cpu_local_init(&x86_cpus[0], &cpus[0]);

	const struct hvm_start_info *si = (const struct hvm_start_info *)(uintptr_t)start_info_pa;
	if (!si || si->magic != HVM_START_MAGIC)
		boot_fail("no PVH start_info at %#x (boot with QEMU -kernel)", start_info_pa);
	read_cmdline(si);
	read_initrd(si);
	read_memmap(si);
	acpi_init(si->rsdp_paddr);

	smp_copy_trampoline();
	mmu_init(ram, nram);
	lapic_init();
	pic_disable();
	ioapic_init();
	tsc_calibrate();
	lapic_cpu_enable();
	lapic_timer_calibrate();

	uint32_t boot_id = lapic_id();
	x86_cpus[0].apic_id = boot_id;
	cpus[0].hwid = boot_id;
	set_cpus(boot_id);
	set_heap(mmu_seal());
	bi.cmdline = cmdline;

	kprintf("baretrace: x86_64 PVH: %u CPUs (%s), TSC %llu kHz, LAPIC timer %llu kHz, "
		"heap %#lx-%#lx\n", bi.ncpus, lapic_is_x2apic() ? "x2APIC" : "xAPIC",
		(unsigned long long)(arch_counter_hz() / 1000),
		(unsigned long long)(lapic_timer_hz() / 1000), (unsigned long)bi.heap_start,
		(unsigned long)bi.heap_end);
	kernel_main(&bi);
	panic("kernel_main returned");
}
