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

#endif
