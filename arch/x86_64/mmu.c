/*
 * mmu.c — the kernel's page tables (4-level, identity map, W^X).
 *
 * Interface (x86.h), boot CPU only, in this order:
 *   mmu_init(ram, n)      build and load the final tables (entry.S's early
 *                         4 GiB RWX map is dropped);
 *   mmu_map_mmio(pa, n)   add uncached, non-executable device mappings;
 *   mmu_seal()            end of boot-time page allocation: returns the first
 *                         free byte (the heap starts there); no mapping
 *                         changes afterwards.
 * Secondary CPUs load kernel_cr3 in the trampoline.
 *
 * Map (virtual = physical):
 *   RAM (every memmap RAM range, rounded out to 2 MiB)   2 MiB pages, RW+NX
 *   the 2 MiB chunks holding the first 2 MiB and the kernel image, 4 KiB pages:
 *     page 0                                  not present (NULL dereferences fault)
 *     TRAMP_BASE                              RX (SMP trampoline, copied earlier)
 *     [_text_start, _etext)                   RX
 *     [_rodata_start, _rodata_end)            R, NX
 *     [_data_start, _bss_end)                 RW, NX, but for the guard of every
 *                                             slot of the stack area (boot/stack.h):
 *                                             not present, so an overflowing stack
 *                                             faults before it writes below itself
 *     [__ksyms_start, _end)                   R, NX
 *     everything else                         RW, NX
 *   device windows (LAPIC, IOAPIC, ...)       2 MiB pages, RW+NX, PCD|PWT (uncached)
 * CR0.WP is set (entry.S), so read-only holds for ring 0 too.
 *
 * Text is never made writable.  Text patching (text_poke.c) writes through
 * a temporary alias instead: mmu_init allocates one page table for the top
 * 2 MiB of the address space (POKE_VA, outside the identity map), whose
 * entry i is CPU i's alias slot, initially empty.  text_poke.c maps a text
 * page's frame there RW+NX (mmu_poke_pte), writes, clears the entry and
 * invlpgs it, all on the owning CPU with interrupts off; no other CPU ever
 * touches that slot, so no TLB shootdown is needed.  The RX view sees the
 * new bytes because both views share the physical page.  Cross-modification
 * safety for other CPUs executing that text is the int3 patch protocol's
 * job (patch.c), not the mapping's.
 *
 * Page-table pages come from a bump allocator placed after the image (_end);
 * they stay out of the heap.
 */
#include <string.h>

#include "arch/x86_64/x86.h"
#include "boot/console.h"
#include "boot/panic.h"
#include "boot/stack.h"

#define PTE_P    (1ull << 0)
#define PTE_RW   (1ull << 1)
#define PTE_PWT  (1ull << 3)
#define PTE_PCD  (1ull << 4)
#define PTE_A    (1ull << 5)
#define PTE_D    (1ull << 6)
#define PTE_PS   (1ull << 7)
#define PTE_NX   (1ull << 63)
#define PTE_ADDR 0x000FFFFFFFFFF000ull

/* Leaf permissions.  A and D are preset so the CPU never writes the tables. */
#define LEAF_RX  (PTE_P | PTE_A)
#define LEAF_R   (PTE_P | PTE_A | PTE_NX)
#define LEAF_RW  (PTE_P | PTE_RW | PTE_A | PTE_D | PTE_NX)
#define LEAF_DEV (LEAF_RW | PTE_PCD | PTE_PWT)
#define TABLE    (PTE_P | PTE_RW | PTE_A)      /* intermediate: leaves decide */

#define SZ_2M    (2ull << 20)

extern char _text_start[], _etext[], _rodata_start[], _rodata_end[], _data_start[],
	_bss_end[], __ksyms_start[], _end[];

uint64_t kernel_cr3;
static uint64_t *pml4;
static uint64_t *poke_pt;             /* the alias slots' page table (POKE_VA) */
static uintptr_t brk, brk_limit;      /* bump allocator: [brk, brk_limit) */
static bool sealed;

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) & ~(a - 1); }

static uint64_t *alloc_table(void)
{
	if (sealed)
		panic("mmu: page-table allocation after mmu_seal()");
	if (brk + PAGE_SIZE > brk_limit)
		boot_fail("mmu: no room for page tables after the image");
	uint64_t *t = (uint64_t *)brk;
	brk += PAGE_SIZE;
	memset(t, 0, PAGE_SIZE);
	return t;
}

/* The next-level table under *e, created if absent; panics on a large page. */
static uint64_t *next_table(uint64_t *e)
{
	if (!(*e & PTE_P))
		*e = (uint64_t)(uintptr_t)alloc_table() | TABLE;
	else if (*e & PTE_PS)
		boot_fail("mmu: 4 KiB mapping inside a 2 MiB page");
	return (uint64_t *)(uintptr_t)(*e & PTE_ADDR);
}

static uint64_t *pd_entry(uint64_t va)
{
	uint64_t *pdpt = next_table(&pml4[(va >> 39) & 511]);
	uint64_t *pd = next_table(&pdpt[(va >> 30) & 511]);
	return &pd[(va >> 21) & 511];
}

static void map_2m(uint64_t va, uint64_t leaf)
{
	uint64_t *e = pd_entry(va);
	if ((*e & PTE_P) && (*e & ~(PTE_A | PTE_D)) != ((va | leaf | PTE_PS) & ~(PTE_A | PTE_D)))
		boot_fail("mmu: conflicting mappings at %#lx", (unsigned long)va);
	*e = va | leaf | PTE_PS;
}

/* Permission of one 4 KiB page in the chunks mapped finely. */
static uint64_t page_leaf(uint64_t pa)
{
	if (pa < PAGE_SIZE)
		return 0;
	if (pa == TRAMP_BASE)
		return LEAF_RX;
	if (pa >= (uintptr_t)_text_start && pa < align_up((uintptr_t)_etext, PAGE_SIZE))
		return LEAF_RX;
	if (pa >= (uintptr_t)_rodata_start && pa < (uintptr_t)_rodata_end)
		return LEAF_R;
	if (pa >= (uintptr_t)_data_start && pa < align_up((uintptr_t)_bss_end, PAGE_SIZE)) {
		return stack_guard_hit(pa) ? 0 : LEAF_RW;
	}
	if (pa >= (uintptr_t)__ksyms_start && pa < (uintptr_t)_end)
		return LEAF_R;
	return LEAF_RW;
}

static void map_fine(uint64_t chunk)
{
	uint64_t *e = pd_entry(chunk);
	if (*e & PTE_P)
		return;                       /* already done */
	uint64_t *pt = next_table(e);
	for (unsigned i = 0; i < 512; i++) {
		uint64_t pa = chunk + (uint64_t)i * PAGE_SIZE;
		uint64_t leaf = page_leaf(pa);
		pt[i] = leaf ? pa | leaf : 0;
	}
}

static bool is_fine(uint64_t chunk)
{
	uint64_t img_lo = (uintptr_t)_text_start & ~(SZ_2M - 1);
	uint64_t img_hi = align_up((uintptr_t)_end, SZ_2M);
	return chunk == 0 || (chunk >= img_lo && chunk < img_hi);
}

void mmu_init(const struct ram_range *ram, unsigned nram)
{
	brk = align_up((uintptr_t)_end, PAGE_SIZE);
	brk_limit = 0;
	for (unsigned i = 0; i < nram; i++)
		if (ram[i].start <= (uintptr_t)_text_start && ram[i].end >= brk)
			brk_limit = ram[i].end;
	if (brk_limit < brk + 64 * PAGE_SIZE)
		boot_fail("mmu: the image is not in RAM, or no RAM follows it");

	pml4 = alloc_table();
	map_fine(0);
	for (uint64_t c = (uintptr_t)_text_start & ~(SZ_2M - 1); c < (uintptr_t)_end; c += SZ_2M)
		map_fine(c);
	for (unsigned i = 0; i < nram; i++)
		for (uint64_t c = ram[i].start & ~(SZ_2M - 1); c < ram[i].end; c += SZ_2M)
			if (!is_fine(c))
				map_2m(c, LEAF_RW);

	poke_pt = next_table(pd_entry(POKE_VA));

	kernel_cr3 = (uint64_t)(uintptr_t)pml4;
	if (kernel_cr3 >= (4ull << 30))
		boot_fail("mmu: page tables above 4 GiB, unreachable for the trampoline");
	write_cr3(kernel_cr3);
}

void mmu_map_mmio(uint64_t pa, uint64_t size)
{
	for (uint64_t c = pa & ~(SZ_2M - 1); c < pa + size; c += SZ_2M) {
		if (is_fine(c))
			boot_fail("mmu: device window %#lx inside the kernel's chunks", (unsigned long)pa);
		map_2m(c, LEAF_DEV);
	}
	write_cr3(kernel_cr3);                /* flush: the entries were not present */
}

uintptr_t mmu_seal(void)
{
	sealed = true;
	return brk;
}

/* CPU `cpu`'s alias slot: its page-table entry and its virtual address. */
uint64_t *mmu_poke_pte(unsigned cpu, uintptr_t *va)
{
	*va = POKE_VA + (uintptr_t)cpu * PAGE_SIZE;
	return &poke_pt[cpu];
}

/* The leaf for a writable, non-executable alias of physical page `pa`. */
uint64_t mmu_poke_leaf(uint64_t pa)
{
	return (pa & PTE_ADDR) | LEAF_RW;
}
