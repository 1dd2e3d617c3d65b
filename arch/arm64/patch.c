/*
 * patch.c — arm64 patchable sites and the live patching protocol.
 *
 * GCC's -fpatchable-function-entry=4,2 leaves two NOPs before the symbol and
 * two at its entry; __patchable_function_entries records the first one.
 * -falign-functions=8 (build.mk) makes func - 8 8-aligned, so the two NOPs
 * before the symbol can hold one naturally aligned 64-bit literal.
 *
 *                  func-8 .. func-1        func            func+4
 *   compiled       nop; nop                nop             nop
 *   disabled       literal (data word)     mov x9, x30     nop
 *   enabled        literal (data word)     mov x9, x30     bl target
 *
 * The literal is the site's data word (an ops pointer: the list caller
 * loads it from x30 - 16); arch_site_init() sets its first value.
 *
 * Why this shape (Arm ARM, "Concurrent modification and execution of
 * instructions"): while other CPUs may execute a site, an instruction may
 * only change between two of B, BL, BRK, HVC, ISB, NOP, SMC, SVC; anything
 * else needs every executing CPU stopped or synchronised.  So the `mov x9,
 * x30` is written once at boot, on one CPU (arch_site_init), and from then
 * on only func+4 changes, NOP <-> BL, by one aligned 32-bit store; the
 * literal is data, changed by one aligned 64-bit store (single-copy atomic).
 * x9 is a temporary at function entry (AAPCS64: x9-x15 are caller-saved and
 * carry no arguments), so the mov is harmless when the BL is not there.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "boot/panic.h"
#include "insn.h"
#include "patch/patch.h"
#include "text_poke.h"

/* Past this many sites one I-cache invalidate-all beats one per site. */
#define ICACHE_EACH_MAX 64
#define PAGE_SIZE 4096ul

extern char _text_start[], _etext[];
extern const uintptr_t __sites_start[], __sites_end[];

uintptr_t arch_site_func(uintptr_t recorded)
{
	return recorded + 8;
}

int arch_site_init(uintptr_t func, uintptr_t data)
{
	if (!arch_site_placed(func))
		return -EILSEQ;                  /* outside text, or the literal unaligned */
	const uint32_t *w = (const uint32_t *)(func - 8);
	for (unsigned i = 0; i < 4; i++)
		if (w[i] != INSN_NOP)
			return -EILSEQ;
	/* Boot, one CPU: nothing executes the site meanwhile, and running the
	 * old NOP or the new mov is the same to a function entry anyway. */
	text_poke_data64(func - 8, data);
	text_poke_insn(func, INSN_MOV_X9_X30);
	text_poke_sync_icache(func, 4);
	/* The session stays open so that consecutive calls map each page
	 * once.  It ends here at the highest recorded site (records_init goes
	 * in address order), else at the next arch_text_poke() or
	 * arch_patch_sites(). */
	size_t nsites = (size_t)(__sites_end - __sites_start);
	if (nsites && func == arch_site_func(__sites_start[nsites - 1]))
		text_poke_end();
	return 0;
}

/* The instruction at func + 4 for `target` (0: NOP), or false when the
 * target is out of a BL's reach or misaligned (site.h). */
static inline __attribute__((always_inline)) bool site_insn(uintptr_t func, uintptr_t target,
							    uint32_t *insn)
{
	*insn = arch_site_insn(func, target);
	return arch_site_reaches(func, target);
}

int arch_site_encode(uintptr_t func, uintptr_t target, uint8_t *out)
{
	uint32_t insn[2] = { INSN_MOV_X9_X30, INSN_NOP };
	if (!site_insn(func, target, &insn[1]))
		return -ERANGE;
	memcpy(out, insn, sizeof(insn));
	return 0;
}

uintptr_t arch_site_data(uintptr_t func)
{
	if (func & 7)
		return 0;                        /* never initialised: no data word */
	return __atomic_load_n((const uint64_t *)(func - 8), __ATOMIC_RELAXED);
}

/* Make the changed instructions visible to fetch on this CPU (step D). */
static void sync_icache(const struct patch_site *sites, unsigned n)
{
	if (n > ICACHE_EACH_MAX) {
		text_poke_sync_icache_all();
		return;
	}
	for (unsigned i = 0; i < n; i++)
		if (sites[i].new_target != sites[i].old_target)
			text_poke_sync_icache(sites[i].func + 4, 4);
}

/*
 * Steps A-C (again = false) or F (again = true) for every site whose
 * instruction (or literal) changes, page by page through one alias, each
 * D-cache line cleaned once after its last store.  Loop state stays in
 * registers, and each pass is its own loop (`again` is a constant after
 * inlining): this is the per-site cost of the whole batch.
 */
static inline __attribute__((always_inline)) void write_sites_as(const struct patch_site *sites,
								 unsigned n, const bool again)
{
	const uintptr_t lmask = ~(uintptr_t)(text_poke_line_size() - 1);
	uintptr_t page = 0, delta = 0, line = 0;       /* delta: alias - text */
	for (const struct patch_site *s = sites, *end = sites + n; s < end; s++) {
		uintptr_t pc = s->func + 4, t = s->new_target;
		if (!again && s->new_data != s->old_data) {
			/* It may map a page and unmap ours: clean first. */
			if (line)
				__asm__ volatile("dc cvau, %0" :: "r"(line) : "memory");
			line = page = 0;
			text_poke_data64(s->func - 8, s->new_data);          /* A */
			__asm__ volatile("dmb ishst" ::: "memory");          /* B */
		}
		if (t == s->old_target)
			continue;
		/* F stores the bytes C stored; a data read of text sees them. */
		uint32_t insn = again ? *(const volatile uint32_t *)pc : arch_site_insn(s->func, t);
		if ((pc & ~(uintptr_t)(PAGE_SIZE - 1)) != page) {
			if (line)
				__asm__ volatile("dc cvau, %0" :: "r"(line) : "memory");
			line = 0;
			page = pc & ~(uintptr_t)(PAGE_SIZE - 1);
			delta = text_poke_page_alias(page) - page;
		}
		uintptr_t a = pc + delta;
		/* C: single-copy atomic; a concurrent fetch sees old or new. */
		__atomic_store_n((uint32_t *)a, insn, __ATOMIC_RELAXED);
		if (!again && (a & lmask) != line) {
			if (line)
				__asm__ volatile("dc cvau, %0" :: "r"(line) : "memory");
			line = a & lmask;
		}
	}
	if (line)
		__asm__ volatile("dc cvau, %0" :: "r"(line) : "memory");
}

static void write_sites(const struct patch_site *sites, unsigned n, bool again)
{
	if (again)
		write_sites_as(sites, n, true);
	else
		write_sites_as(sites, n, false);
}

/*
 * The batch, in steps (other CPUs keep running the sites throughout);
 * A-C go site by site, in one pass:
 *   A  the site's literal if it changes, one 64-bit store;
 *   B  then dmb ishst: the literal store is observed before the site's
 *      instruction store by every CPU that reads both as data.  A CPU that
 *      fetches the new BL is not promised the new literal (an instruction
 *      fetch does not order the loads after it: the list caller's load
 *      may be satisfied early), and a CPU still running the old BL may
 *      read either.  Both are safe because every value a literal holds
 *      names an ops that is live until the caller's grace period
 *      (trace/update.c data_of: ftrace_list_ops, or the ops of a CALL_OPS
 *      site).  Literals change only when a site enters or leaves CALL_OPS
 *      (an ops without a trampoline), so this barrier is rare;
 *   C  the instruction if it changes (NOP <-> BL, or BL -> other BL), one
 *      32-bit store, its line cleaned to PoU (through the alias) after the
 *      line's last store;
 *   D  dsb ish, I-cache invalidated to PoU for the sites (or all of it),
 *      dsb ish, isb: the new instructions are visible to fetch here;
 *   E  aliases unmapped; patch_sync_cores(): every other CPU takes an
 *      exception return (context synchronisation), so none still runs from
 *      a stale fetch.  A CPU that executes a site between C and E runs the
 *      old or the new instruction, each a complete valid state.
 *   F  QEMU only, harmless elsewhere: under multi-threaded TCG a vCPU that
 *      translated a site while C stored to it can keep a translation of the
 *      old bytes (it read them before the store, registered the block after
 *      QEMU's invalidation).  Every translation in progress at C has ended
 *      by E, so storing each changed instruction again (same value) drops
 *      any such block, and a second sync makes sure no CPU still runs one.
 *      The bytes do not change, so the caches need no maintenance.
 * Two syncs per batch, whatever its size.  Validation (patch_apply's check,
 * or the caller of patch_apply_checked: patch.h) has checked every new
 * target's reach, so A-C encode without checking again.
 */
void arch_patch_sites(struct patch_site *sites, unsigned n)
{
	write_sites(sites, n, false);                                 /* A-C */
	sync_icache(sites, n);                                        /* D */
	text_poke_end();                                              /* E */
	patch_sync_cores();
	write_sites(sites, n, true);                                  /* F */
	text_poke_end();
	patch_sync_cores();
}
