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
 * Batches of instruction stores in address order (patch.c): a cursor keeps
 * the alias of the current text page and the D-cache line still to clean,
 * so a store costs no lookup and each line is cleaned once, after its last
 * store.  Start with TEXT_POKE_CURSOR, store with text_poke_insn_cur(),
 * finish with text_poke_cursor_done() (the last clean) before the I-cache
 * maintenance.  No other text_poke_* call in between (it may unmap the
 * cursor's alias).
 */
struct text_poke_cursor {
	uintptr_t page;            /* text page whose alias is `alias`; 0 = none */
	uintptr_t alias;
	uintptr_t line;            /* alias address of a line to clean; 0 = none */
	bool clean;                /* clean lines to PoU (false: a rewrite of
				      unchanged bytes, text_poke_insn_again) */
};
#define TEXT_POKE_CURSOR(clean_) ((struct text_poke_cursor){ 0, 0, 0, (clean_) })

extern unsigned text_poke_dline;    /* D-cache line size; set by text_poke_cursor_page */

/* Map the page of dst for the cursor (cleaning the pending line first). */
void text_poke_cursor_page(struct text_poke_cursor *c, uintptr_t dst);

static inline __attribute__((always_inline)) void text_poke_cursor_done(struct text_poke_cursor *c)
{
	if (c->line)
		__asm__ volatile("dc cvau, %0" :: "r"(c->line) : "memory");
	c->line = 0;
}

/* text_poke_insn() through the cursor: one aligned 32-bit store, single-copy
 * atomic to a concurrent fetch; its line is cleaned when the cursor leaves
 * it.  dst must be 4-aligned (the caller checked). */
static inline __attribute__((always_inline)) void
text_poke_insn_cur(struct text_poke_cursor *c, uintptr_t dst, uint32_t insn)
{
	if ((dst & ~(uintptr_t)4095) != c->page)
		text_poke_cursor_page(c, dst);
	uintptr_t a = c->alias + (dst & 4095);
	__atomic_store_n((uint32_t *)a, insn, __ATOMIC_RELAXED);
	if (!c->clean)
		return;
	uintptr_t line = a & ~(uintptr_t)(text_poke_dline - 1);
	if (line != c->line) {
		text_poke_cursor_done(c);
		c->line = line;
	}
}

/* Complete the cleans (dsb ish), invalidate the I-cache to PoU for
 * [start, start + len) / for everything (inner shareable), dsb ish, isb. */
void text_poke_sync_icache(uintptr_t start, size_t len);
void text_poke_sync_icache_all(void);

/* End the session: unmap every alias, invalidate their TLB entries on all
 * CPUs.  No-op when nothing is mapped. */
void text_poke_end(void);

#endif
