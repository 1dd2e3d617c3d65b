/*
 * text_poke.c — write kernel text through temporary writable aliases.
 *
 * Text (and the trampoline pool, which is text) stays read-only + executable
 * in the identity map.  To write it, the page is mapped a second time in a
 * fixmap slot (mmu.h), RW + execute-never, written through that alias, the
 * alias's lines cleaned to the point of unification, and the I-cache
 * invalidated by the executable address.
 *
 * Cheap for large batches and for many small sessions:
 *   - slots are taken from a ring, each at most once between two
 *     invalidations of the whole fixmap on every CPU; mapping a page into a
 *     fresh slot only turns an invalid entry valid, which needs no TLB
 *     invalidation (TLBs never hold invalid entries);
 *   - the two most recently mapped pages stay mapped, so writes in address
 *     order (sites are sorted; a function at a page start has its literal on
 *     the previous page) map each page once; an older alias's entry is
 *     cleared at once, so at most two text pages are writable at any time;
 *   - text_poke_end() clears the rest and invalidates the session's slots
 *     in this CPU's TLB only (tlbi vale1, no broadcast);
 *   - when the ring is used up, one broadcast invalidation (tlbi vmalle1is)
 *     clears the fixmap from every CPU's TLB, and the ring starts again.
 * Why the local invalidation is enough: a slot's entry can be cached only by
 * CPUs that touched it (this one, or the previous one if the thread
 * migrated mid-session) or by a speculative walk elsewhere; no such copy is
 * ever used again, because the slot is reused only after the broadcast.
 * Only this file knows the fixmap addresses.
 *
 * Rules: see text_poke.h.  State below: the caller's serialisation.
 */
#include <string.h>

#include "arch/hooks.h"
#include "boot/panic.h"
#include "mmu.h"
#include "sysreg.h"
#include "text_poke.h"

#define PAGE_SIZE      4096ul
#define TLBI_EACH_MAX  16

extern char _text_start[], _etext[];

static struct {
	unsigned next;            /* next fresh slot of the ring */
	unsigned first;           /* first slot of the current session */
	uintptr_t page[2];        /* text pages with a valid alias, newest first; 0 = none */
	unsigned slot[2];
} ps;

static unsigned dline, iline;   /* cache line sizes (CTR_EL0), set on first use */

static uintptr_t slot_va(unsigned s)
{
	return (uintptr_t)FIXMAP_VA + (uintptr_t)s * PAGE_SIZE;
}

static void line_sizes(void)
{
	uint64_t ctr = read_sysreg(ctr_el0);
	dline = 4u << ((ctr >> 16) & 0xf);     /* DminLine: log2 words */
	iline = 4u << (ctr & 0xf);             /* IminLine */
}

/* Clear the entries of the pages still mapped. */
static void unmap_recent(void)
{
	for (unsigned i = 0; i < 2; i++)
		if (ps.page[i]) {
			mmu_fixmap_ptes[ps.slot[i]] = 0;
			ps.page[i] = 0;
		}
	__asm__ volatile("dsb ishst" ::: "memory");     /* cleared entries before any tlbi */
}

void text_poke_end(void)
{
	if (ps.first == ps.next)
		return;
	unmap_recent();
	if (ps.next - ps.first <= TLBI_EACH_MAX) {
		for (unsigned s = ps.first; s < ps.next; s++)
			__asm__ volatile("tlbi vale1, %0" :: "r"(slot_va(s) >> 12) : "memory");
	} else {
		__asm__ volatile("tlbi vmalle1" ::: "memory");
	}
	__asm__ volatile("dsb nsh\n\tisb" ::: "memory");
	ps.first = ps.next;
}

/* The ring is used up: forget every slot's translation on every CPU. */
static void ring_restart(void)
{
	unmap_recent();
	__asm__ volatile("tlbi vmalle1is\n\tdsb ish\n\tisb" ::: "memory");
	ps.first = ps.next = 0;
}

/* The alias of text address a (which must stay within its page). */
static uintptr_t alias(uintptr_t a)
{
	uintptr_t page = a & ~(PAGE_SIZE - 1), off = a & (PAGE_SIZE - 1);

	if (page == ps.page[0])
		return slot_va(ps.slot[0]) + off;
	if (page == ps.page[1])
		return slot_va(ps.slot[1]) + off;

	if (a < (uintptr_t)_text_start || a >= (uintptr_t)_etext)
		panic("text_poke: %lx is not kernel text", (unsigned long)a);
	if (ps.next == FIXMAP_SLOTS)
		ring_restart();
	if (ps.page[1])
		mmu_fixmap_ptes[ps.slot[1]] = 0;
	ps.page[1] = ps.page[0];
	ps.slot[1] = ps.slot[0];
	unsigned s = ps.next++;
	mmu_fixmap_ptes[s] = mmu_fixmap_desc(page);       /* identity map: pa = va */
	/* The walker sees the entry before the stores through it. */
	__asm__ volatile("dsb ishst\n\tisb" ::: "memory");
	ps.page[0] = page;
	ps.slot[0] = s;
	return slot_va(s) + off;
}

static void clean_pou(uintptr_t start, uintptr_t end)
{
	if (!dline)
		line_sizes();
	for (uintptr_t l = start & ~(uintptr_t)(dline - 1); l < end; l += dline)
		__asm__ volatile("dc cvau, %0" :: "r"(l) : "memory");
}

void text_poke_insn(uintptr_t dst, uint32_t insn)
{
	if (dst & 3)
		panic("text_poke: misaligned instruction at %lx", (unsigned long)dst);
	uintptr_t a = alias(dst);
	/* Single-copy atomic: a concurrent fetch sees the old or the new word. */
	__atomic_store_n((uint32_t *)a, insn, __ATOMIC_RELAXED);
	clean_pou(a, a + 4);
}

uintptr_t text_poke_page_alias(uintptr_t page)
{
	if (page & (PAGE_SIZE - 1))
		panic("text_poke: %lx is not a page", (unsigned long)page);
	return alias(page);
}

unsigned text_poke_line_size(void)
{
	if (!dline)
		line_sizes();
	return dline;
}

void text_poke_data64(uintptr_t dst, uint64_t v)
{
	if (dst & 7)
		panic("text_poke: misaligned literal at %lx", (unsigned long)dst);
	/* Single-copy atomic: a concurrent load sees the old or the new word. */
	__atomic_store_n((uint64_t *)alias(dst), v, __ATOMIC_RELAXED);
}

void text_poke_copy(uintptr_t dst, const void *src, size_t len)
{
	const uint8_t *s = src;
	if (dst < (uintptr_t)_text_start || dst + len > (uintptr_t)_etext || dst + len < dst)
		panic("text_poke: [%lx, +%zu) is not kernel text", (unsigned long)dst, len);
	while (len) {
		size_t chunk = PAGE_SIZE - (dst & (PAGE_SIZE - 1));
		if (chunk > len)
			chunk = len;
		uintptr_t a = alias(dst), p = a, end = a + chunk;
		while (p < end) {
			if (!(p & 7) && end - p >= 8) {
				uint64_t v;
				memcpy(&v, s, 8);
				__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
				p += 8, s += 8;
			} else if (!(p & 3) && end - p >= 4) {
				uint32_t v;
				memcpy(&v, s, 4);
				__atomic_store_n((uint32_t *)p, v, __ATOMIC_RELAXED);
				p += 4, s += 4;
			} else {
				*(volatile uint8_t *)p = *s;
				p += 1, s += 1;
			}
		}
		clean_pou(a, end);
		dst += chunk, len -= chunk;
	}
}

void text_poke_sync_icache(uintptr_t start, size_t len)
{
	if (!iline)
		line_sizes();
	__asm__ volatile("dsb ish" ::: "memory");       /* the cleans are complete */
	for (uintptr_t l = start & ~(uintptr_t)(iline - 1); l < start + len; l += iline)
		__asm__ volatile("ic ivau, %0" :: "r"(l) : "memory");
	__asm__ volatile("dsb ish\n\tisb" ::: "memory");
}

void text_poke_sync_icache_all(void)
{
	__asm__ volatile("dsb ish\n\tic ialluis\n\tdsb ish\n\tisb" ::: "memory");
}

/* arch/hooks.h: one self-contained session. */
void arch_text_poke(void *dst, const void *src, size_t len)
{
	if (!len)
		return;
	text_poke_copy((uintptr_t)dst, src, len);
	text_poke_sync_icache((uintptr_t)dst, len);
	text_poke_end();
}
