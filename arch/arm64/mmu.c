/*
 * mmu.c — build the identity map and switch the MMU on.
 *
 * Layout (4 KiB granule, 48-bit VA = PA, TTBR0 only, TTBR1 walks disabled):
 *   RAM (the /memory range)          normal WB cacheable, RW, PXN+UXN
 *     kernel text  [_text_start, _rodata_start)   read-only, executable at EL1
 *     rodata       [_rodata_start, _rodata_end)   read-only, PXN+UXN
 *     data, bss    [_data_start, __ksyms_start)   RW, PXN+UXN (as the rest of RAM),
 *                  but for the guard of every slot of the stack area
 *                  (boot/stack.h): unmapped, so an overflowing stack faults
 *                  before it writes below itself
 *     ksyms        [__ksyms_start, _end)          read-only, PXN+UXN
 *   UART, GIC distributor and redistributors,
 *   PL031 RTC (if the device tree names one)       device-nGnRE, RW, PXN+UXN
 *   everything else (page 0 included)              unmapped: NULL faults
 * RAM is mapped with the largest blocks that fit (1 GiB / 2 MiB); the image
 * is then remapped with 4 KiB pages, splitting blocks on the way.  SCTLR.WXN
 * is set too, so a writable mapping can never be executable.
 *
 * Tables come from a static pool in .bss (zeroed by entry.S) and are built
 * with the MMU off, so no break-before-make is needed.  Changing a live
 * mapping later must do break-before-make + TLBI.
 *
 * Patching text: kernel text stays read-only.  mmu_init() also reserves the
 * fixmap (mmu.h): one level-3 table at FIXMAP_VA, outside the identity
 * range, whose entries text_poke.c points at text pages, RW + XN, to write
 * through that alias (it owns the cache maintenance and TLB invalidation).
 * The trampoline pool is text too: executable read-only, written the same way.
 *
 * Runs before the MMU is on (strict alignment, no library calls).
 */
#include "mmu.h"
#include "boot/stack.h"
#include "platform.h"
#include "setup.h"
#include "sysreg.h"

#define PAGE_SIZE      4096ull
#define PT_ENTRIES     512
#define PT_POOL_PAGES  40        /* 32 + the stack area's 4 level-3 tables, with room */

/* Descriptor bits (stage 1, VMSAv8-64). */
#define PTE_VALID      (1ull << 0)
#define PTE_TABLE      (3ull << 0)      /* table (levels 0-2) or page (level 3) */
#define PTE_BLOCK      (1ull << 0)      /* block (levels 1-2) */
#define PTE_TYPE_MASK  (3ull << 0)
#define PTE_ATTRIDX(i) ((uint64_t)(i) << 2)
#define PTE_AP_RO      (1ull << 7)      /* AP[2]: read-only */
#define PTE_SH_INNER   (3ull << 8)
#define PTE_AF         (1ull << 10)
#define PTE_PXN        (1ull << 53)
#define PTE_UXN        (1ull << 54)
#define PTE_ADDR_MASK  0x0000fffffffff000ull

/* MAIR_EL1 slots. */
#define MAIR_DEVICE    0                /* Device-nGnRE */
#define MAIR_NORMAL    1                /* Normal, inner/outer WB, R/W-allocate */
#define MAIR_VALUE     (0x04ull << (8 * MAIR_DEVICE) | 0xffull << (8 * MAIR_NORMAL))

#define PROT_RAM       (PTE_ATTRIDX(MAIR_NORMAL) | PTE_SH_INNER | PTE_AF | PTE_PXN | PTE_UXN)
#define PROT_TEXT      (PTE_ATTRIDX(MAIR_NORMAL) | PTE_SH_INNER | PTE_AF | PTE_AP_RO | PTE_UXN)
#define PROT_RO        (PROT_RAM | PTE_AP_RO)
#define PROT_DEVICE    (PTE_ATTRIDX(MAIR_DEVICE) | PTE_AF | PTE_PXN | PTE_UXN)

/* TCR_EL1: T0SZ=16 (48-bit), inner/outer WB WA walks, inner shareable,
 * TG0=4K, T1SZ=16 with EPD1 (no TTBR1 walks); IPS from the CPU's PARange. */
#define TCR_BASE       (16ull | 1ull << 8 | 1ull << 10 | 3ull << 12 | 0ull << 14 | \
			16ull << 16 | 1ull << 23)
#define TCR_IPS_SHIFT  32

struct mmu_regs arm64_mmu_regs;
uint64_t *mmu_fixmap_ptes;

static uint64_t pt_pool[PT_POOL_PAGES][PT_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static unsigned pt_used;

extern char _text_start[], _rodata_start[], _rodata_end[], __ksyms_start[], _end[];

static uint64_t *pt_alloc(void)
{
	if (pt_used == PT_POOL_PAGES)
		arm64_early_panic("mmu: page-table pool exhausted");
	return pt_pool[pt_used++];     /* zero: .bss */
}

/* Replace block entry *e (level `level`) by a table of the same mappings. */
static uint64_t *split_block(uint64_t *e, int level)
{
	uint64_t *t = pt_alloc();
	uint64_t sub = 1ull << (39 - 9 * (level + 1));
	uint64_t pa = *e & PTE_ADDR_MASK, attrs = *e & ~PTE_ADDR_MASK & ~PTE_TYPE_MASK;
	uint64_t type = level + 1 == 3 ? PTE_TABLE : PTE_BLOCK;

	for (unsigned i = 0; i < PT_ENTRIES; i++)
		t[i] = (pa + i * sub) | attrs | type;
	*e = (uintptr_t)t | PTE_TABLE;
	return t;
}

/*
 * Map [va, va + size) to pa with `prot` under `table` (a level-`level`
 * table), using blocks where alignment allows.  Later calls override earlier
 * ones.  prot 0 unmaps (page entries only: blocks are split).  All of va,
 * pa, size are page-aligned.
 */
static void map(uint64_t *table, int level, uint64_t va, uint64_t pa, uint64_t size, uint64_t prot)
{
	unsigned shift = 39 - 9 * level;
	uint64_t blk = 1ull << shift;

	while (size) {
		uint64_t *e = &table[(va >> shift) & (PT_ENTRIES - 1)];
		uint64_t chunk = blk - (va & (blk - 1));
		if (chunk > size)
			chunk = size;

		int is_table = level < 3 && (*e & PTE_TYPE_MASK) == PTE_TABLE;
		if (level == 3) {
			*e = prot ? pa | prot | PTE_TABLE : 0;
		} else if (prot && level >= 1 && chunk == blk && !((va | pa) & (blk - 1)) && !is_table) {
			*e = pa | prot | PTE_BLOCK;
		} else {
			uint64_t *next;
			if (is_table)
				next = (uint64_t *)(uintptr_t)(*e & PTE_ADDR_MASK);
			else if (*e & PTE_VALID)
				next = split_block(e, level);
			else {
				next = pt_alloc();
				*e = (uintptr_t)next | PTE_TABLE;
			}
			map(next, level + 1, va, pa, chunk, prot);
		}
		va += chunk, pa += chunk, size -= chunk;
	}
}

static void map_identity(uint64_t *root, uint64_t start, uint64_t end, uint64_t prot)
{
	start &= ~(PAGE_SIZE - 1);
	end = (end + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (end >> 48)
		arm64_early_panic("mmu: address above the 48-bit VA range");
	map(root, 0, start, start, end - start, prot);
}

_Static_assert(FIXMAP_SLOTS == PT_ENTRIES && !(FIXMAP_VA & (PAGE_SIZE * PT_ENTRIES - 1)) &&
	       FIXMAP_VA >> 48 == 0, "the fixmap is one level-3 table in the 48-bit range");

/* Tables down to level 3 for the fixmap, every level-3 entry invalid. */
static void fixmap_init(uint64_t *root)
{
	uint64_t *t = root;
	for (int level = 0; level < 3; level++) {
		uint64_t *e = &t[(FIXMAP_VA >> (39 - 9 * level)) & (PT_ENTRIES - 1)];
		if (*e & PTE_VALID)
			arm64_early_panic("mmu: the fixmap range is already mapped");
		t = pt_alloc();
		*e = (uintptr_t)t | PTE_TABLE;
	}
	mmu_fixmap_ptes = t;
}

uint64_t mmu_fixmap_desc(uint64_t pa)
{
	return (pa & PTE_ADDR_MASK) | PROT_RAM | PTE_TABLE;
}

void mmu_init(void)
{
	uint64_t *root = pt_alloc();
	uint64_t ram_end = platform.ram_base + platform.ram_size;

	if ((uintptr_t)_text_start < platform.ram_base || (uintptr_t)_end > ram_end)
		arm64_early_panic("mmu: kernel image is not inside RAM");

	map_identity(root, platform.ram_base, ram_end, PROT_RAM);
	map_identity(root, (uintptr_t)_text_start, (uintptr_t)_rodata_start, PROT_TEXT);
	map_identity(root, (uintptr_t)_rodata_start, (uintptr_t)_rodata_end, PROT_RO);
	map_identity(root, (uintptr_t)__ksyms_start, (uintptr_t)_end, PROT_RO);
	for (unsigned i = 0; i < STACK_SLOTS; i++)
		map_identity(root, (uintptr_t)stack_area[i], (uintptr_t)stack_area[i] + STACK_SIZE, 0);

	map_identity(root, platform.uart.base, platform.uart.base + platform.uart.size, PROT_DEVICE);
	map_identity(root, platform.gicd.base, platform.gicd.base + platform.gicd.size, PROT_DEVICE);
	for (unsigned i = 0; i < platform.ngicr; i++)
		map_identity(root, platform.gicr[i].base,
			     platform.gicr[i].base + platform.gicr[i].size, PROT_DEVICE);
	if (platform.rtc.base)
		map_identity(root, platform.rtc.base, platform.rtc.base + platform.rtc.size, PROT_DEVICE);

	fixmap_init(root);

	uint64_t parange = read_sysreg(id_aa64mmfr0_el1) & 0xf;
	if (parange > 5)
		parange = 5;                 /* 48 bits: the most a 4K/48-bit walk outputs */

	arm64_mmu_regs.mair = MAIR_VALUE;
	arm64_mmu_regs.tcr = TCR_BASE | parange << TCR_IPS_SHIFT;
	arm64_mmu_regs.ttbr0 = (uintptr_t)root;
	arm64_mmu_regs.sctlr = SCTLR_RES1 | SCTLR_M | SCTLR_C | SCTLR_SA | SCTLR_SA0 |
			       SCTLR_I | SCTLR_WXN;

	/* The tables were written with the MMU (and caches) off: they are in memory. */
	__asm__ volatile("dsb sy" ::: "memory");
	arm64_mmu_enable(&arm64_mmu_regs);
}

void dcache_clean_poc(const void *p, uint64_t n)
{
	uint64_t line = 4ull << ((read_sysreg(ctr_el0) >> 16) & 0xf);   /* DminLine */
	uintptr_t a = (uintptr_t)p & ~(line - 1), end = (uintptr_t)p + n;

	for (; a < end; a += line)
		__asm__ volatile("dc cvac, %0" :: "r"(a) : "memory");
	__asm__ volatile("dsb sy" ::: "memory");
}
