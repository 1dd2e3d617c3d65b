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
 *
 * XRay sleds (INSTR=xray): clang leaves `b #32` and seven NOPs at the
 * entry, before each `ret` (exit) and before each tail-call branch (tail).
 * Boot (arch_site_init, arch_sled_init, one CPU) gives them the site's
 * shape, so that again only the instruction at +4 ever changes, B <-> BL:
 *
 *                  +0            +4              +8            +12       +16..+23       +24, +28
 *   compiled       b #32         nop             nop           nop       nop; nop       nop; nop
 *   entry, off     mov x9, x30   b #28 (to +32)  b #24 (+32)   nop       literal        nop; nop
 *   entry, on      mov x9, x30   bl target       b #24 (+32)   nop       literal        nop; nop
 *   exit/tail, off mov x9, x30   b #28 (to +32)  mov x30, x9   b #20     func; nop      nop; nop
 *   exit/tail, on  mov x9, x30   bl handler      mov x30, x9   b #20     func; nop      nop; nop
 *
 * An enabled entry sled looks to its target exactly as a patchable entry
 * does (x9 the parent, x30 = func + 8, where the function goes on); its
 * data word is the literal at func + 16 (8-aligned: -falign-functions=8),
 * not at func - 8.  A tail sled's handler (__ftail__) returns to +8, which
 * puts the parent back in x30 before the tail branch at +32; an exit
 * sled's (__fexit__) returns to the parent in x9 itself, which is what +8
 * and the `ret` at +32 would do.  x9 is dead there too (a temporary; the branch of an
 * indirect tail call must not be through it: arch_sled_init refuses that).
 * The word at +16 of an exit or tail sled, never executed (the `b #20`
 * at +12 jumps over it), holds its function's address (32 bits: the
 * kernel's text lies below 4 GiB), which the handler reads from its
 * return address + 8 (arch_sled_func): the function without a search.  It is written at
 * boot and never changes.
 * Disabled, a sled costs a mov and a taken branch.
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

/* Does the sled at addr hold what clang leaves (b #32, 7 NOPs)? */
static bool sled_compiled(uintptr_t addr)
{
	const uint32_t *w = (const uint32_t *)addr;
	if (w[0] != (INSN_B | 8))
		return false;
	for (unsigned i = 1; i < 8; i++)
		if (w[i] != INSN_NOP)
			return false;
	return true;
}

/* The sled at addr in the shape of the table (header): data in an entry's
 * literal, an exit or tail sled's function's address at +16.
 * Boot, one CPU. */
static void sled_write(uintptr_t addr, unsigned kind, uintptr_t data, uint32_t func)
{
	uint32_t w[8] = { INSN_MOV_X9_X30, ARM64_SITE_OFF_INSN, INSN_B | 6, INSN_NOP,
			  INSN_NOP, INSN_NOP, INSN_NOP, INSN_NOP };
	if (kind != ARCH_SLED_ENTRY) {
		w[2] = INSN_MOV_X30_X9;
		w[3] = INSN_B | 5;
		w[ARCH_SLED_FUNC_OFF / 4] = func;
	}
	for (unsigned i = 0; i < 8; i++)
		if (kind != ARCH_SLED_ENTRY || (i != 4 && i != 5))
			text_poke_insn(addr + 4 * i, w[i]);
	if (kind == ARCH_SLED_ENTRY)
		text_poke_data64(addr + ARM64_SITE_DATA_OFF, data);
	text_poke_sync_icache(addr, 32);
}

int arch_sled_init(uintptr_t addr, unsigned kind, uintptr_t func)
{
	if (kind == ARCH_SLED_ENTRY || !arch_sled_placed(addr) || !sled_compiled(addr) ||
	    func > UINT32_MAX)
		return -EILSEQ;
	uint32_t next = *(const uint32_t *)(addr + 32);
	if ((kind == ARCH_SLED_EXIT && next != INSN_RET) ||
	    (kind == ARCH_SLED_TAIL && (next == INSN_RET || next == INSN_BR_X9)))
		return -EILSEQ;
	sled_write(addr, kind, 0, (uint32_t)func);
	return 0;
}

int arch_site_init(uintptr_t func, uintptr_t data)
{
	if (!arch_site_placed(func))
		return -EILSEQ;                  /* outside text, or the literal unaligned */
#ifdef BT_INSTR_XRAY
	if (!sled_compiled(func))
		return -EILSEQ;
	sled_write(func, ARCH_SLED_ENTRY, data, 0);
	return 0;
#endif
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
	uint32_t insn[2] = { INSN_MOV_X9_X30, ARM64_SITE_OFF_INSN };
	if (!site_insn(func, target, &insn[1]))
		return -ERANGE;
	memcpy(out, insn, sizeof(insn));
	return 0;
}

uintptr_t arch_site_data(uintptr_t func)
{
	if (func & 7)
		return 0;                        /* never initialised: no data word */
	return __atomic_load_n((const uint64_t *)(func + ARM64_SITE_DATA_OFF), __ATOMIC_RELAXED);
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
			text_poke_data64(s->func + ARM64_SITE_DATA_OFF, s->new_data);   /* A */
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
 *      (trace/core/update.c data_of: ftrace_list_ops, or the ops of a CALL_OPS
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
