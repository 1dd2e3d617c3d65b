/*
 * mmu.h — the kernel's identity map (stage 1, EL1, TTBR0, 4 KiB granule).
 *
 * mmu_init() runs once on the boot CPU with the MMU off: it builds the
 * tables from `platform` and the linker symbols and turns the MMU on.
 * Secondary CPUs load the same registers from arm64_mmu_regs in entry.S.
 */
#ifndef ARM64_MMU_H
#define ARM64_MMU_H

/* Offsets in struct mmu_regs, for entry.S. */
#define MMU_REGS_MAIR   0
#define MMU_REGS_TCR    8
#define MMU_REGS_TTBR0  16
#define MMU_REGS_SCTLR  24

/*
 * The fixmap: FIXMAP_SLOTS page-sized windows at FIXMAP_VA, outside anything
 * the identity map covers, for the temporary writable aliases of text
 * (text_poke.c, the only user).  One level-3 table, all entries invalid
 * until text_poke.c fills them with mmu_fixmap_desc().
 */
#define FIXMAP_VA      0x0000ff0000000000ull
#define FIXMAP_SLOTS   512

#ifndef __ASSEMBLY__
#include <stdint.h>

extern uint64_t *mmu_fixmap_ptes;    /* FIXMAP_SLOTS entries; text_poke.c */

/* Level-3 descriptor mapping the page at `pa` RW, execute-never, with the
 * identity map's memory attributes (normal, write-back, inner shareable). */
uint64_t mmu_fixmap_desc(uint64_t pa);

/* What arm64_mmu_enable() loads; written once by mmu_init(). */
struct mmu_regs {
	uint64_t mair, tcr, ttbr0, sctlr;
};
_Static_assert(__builtin_offsetof(struct mmu_regs, sctlr) == MMU_REGS_SCTLR, "mmu_regs");

extern struct mmu_regs arm64_mmu_regs;

/* Boot CPU, MMU off: build the identity map and enable the MMU and caches. */
void mmu_init(void);

/* entry.S: load MAIR/TCR/TTBR0, invalidate the TLB, write SCTLR (MMU on). */
void arm64_mmu_enable(const struct mmu_regs *r);

/* Clean [p, p + n) to the point of coherency (for CPUs still running with
 * the MMU off, which read memory uncached). */
void dcache_clean_poc(const void *p, uint64_t n);
#endif

#endif
