/*
 * text_poke.h — writing kernel text through temporary writable aliases
 * (text_poke.c), for patch.c, tramp.c and arch_text_poke().
 *
 * A session is a run of writes followed by text_poke_end().  Writes map the
 * text pages they reach into fixmap slots on demand; text_poke_end() unmaps
 * every alias and invalidates the TLBs.  Between the writes and the end the
 * caller makes the new instructions visible to instruction fetch:
 * text_poke_sync_icache() (a range) or text_poke_sync_icache_all().
 *
 * Rules: one session at a time (callers serialise: the ftrace lock, or boot
 * on one CPU); thread context or boot; only addresses in [_text_start,
 * _etext) may be written (anything else panics).
 */
#ifndef ARM64_TEXT_POKE_H
#define ARM64_TEXT_POKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "insn.h"

/* One aligned 32-bit store of an instruction, then D-cache clean to PoU. */
void text_poke_insn(uintptr_t dst, uint32_t insn);
/* Store the instruction at dst again, unchanged: for QEMU, whose
 * translations are dropped by stores (patch.c step F).  The caches already
 * hold the value, so no maintenance. */
void text_poke_insn_again(uintptr_t dst);
/* One aligned 64-bit store of a data word in text (a site literal): read
 * by loads only, so no cache maintenance. */
void text_poke_data64(uintptr_t dst, uint64_t v);
/* Copy len bytes with the widest aligned stores, then D-cache clean to PoU. */
void text_poke_copy(uintptr_t dst, const void *src, size_t len);

/*
 * Batches of instruction stores in address order (patch.c): the caller
 * takes the alias of one text page at a time and stores through it, and
 * cleans each D-cache line (text_poke_line_size()) to PoU after its last
 * store, with dc cvau on the alias, before the next text_poke_* call and
 * the I-cache maintenance.  The alias stays mapped until the next
 * text_poke_page_alias() of another page, text_poke_insn/data64/copy, or
 * text_poke_end().
 */
uintptr_t text_poke_page_alias(uintptr_t page);
unsigned text_poke_line_size(void);

/* Complete the cleans (dsb ish), invalidate the I-cache to PoU for
 * [start, start + len) / for everything (inner shareable), dsb ish, isb. */
void text_poke_sync_icache(uintptr_t start, size_t len);
void text_poke_sync_icache_all(void);

/* End the session: unmap every alias, invalidate their TLB entries on all
 * CPUs.  No-op when nothing is mapped. */
void text_poke_end(void);

/*
 * The site encodings (patch.c's table), inline for checks in a caller's own
 * pass over its batch (patch/patch.h, patch_apply_checked) as well as
 * arch_patch_check().  An initialised site is one aligned 64-bit word:
 * `mov x9, x30`, then a NOP (target 0) or `bl target`.
 *
 * arch_site_reaches: can the site's BL reach target (or target is 0)?
 * off = target - pc is a multiple of 4 in [-BRANCH_RANGE, BRANCH_RANGE)
 * exactly when off + BRANCH_RANGE has no bit outside 2 * BRANCH_RANGE - 4.
 * arch_site_insn: the second instruction for target (reach checked apart).
 * arch_site_word / arch_site_read: the site's 8 bytes for target (reach
 * checked apart) / as they are, as one word; func is 8-aligned and the
 * site initialised (the record table guarantees both).
 * arch_site_holds: does the site hold target's encoding, target in reach?
 * One load and one compare.
 */
static inline __attribute__((always_inline)) bool arch_site_reaches(uintptr_t func, uintptr_t target)
{
	uintptr_t off = target - (func + 4);
	return !target || !((off + BRANCH_RANGE) & ~(uintptr_t)(2 * BRANCH_RANGE - 4));
}

static inline __attribute__((always_inline)) uint32_t arch_site_insn(uintptr_t func, uintptr_t target)
{
	uintptr_t off = target - (func + 4);
	return target ? INSN_BL | ((uint32_t)(off >> 2) & INSN_IMM26_MASK) : INSN_NOP;
}

static inline __attribute__((always_inline)) uint64_t arch_site_word(uintptr_t func, uintptr_t target)
{
	return INSN_MOV_X9_X30 | (uint64_t)arch_site_insn(func, target) << 32;
}

static inline __attribute__((always_inline)) uint64_t arch_site_read(uintptr_t func)
{
	return *(const uint64_t *)func;
}

static inline __attribute__((always_inline)) bool arch_site_holds(uintptr_t func, uintptr_t target)
{
	return arch_site_reaches(func, target) && arch_site_read(func) == arch_site_word(func, target);
}

#endif
