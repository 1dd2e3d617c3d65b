/*
 * site.h — the arm64 site encodings, inline (arch/hooks.h lists them and
 * includes this file; patch.c draws the table).
 */
#ifndef ARM64_SITE_H
#define ARM64_SITE_H

#include <stdbool.h>
#include <stdint.h>

#include "insn.h"

/*
 * For checks in a caller's own pass over its batch (patch/patch.h,
 * patch_apply_checked) as well as patch_apply()'s check.  An initialised site is one aligned 64-bit word:
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
extern char _text_start[], _etext[];

/* arch_site_placed: can func have a site (literal and both instructions in
 * text, the literal 8-aligned)? */
static inline __attribute__((always_inline)) bool arch_site_placed(uintptr_t func)
{
#ifdef BT_INSTR_XRAY
	/* The entry sled: 32 bytes at func, the literal at func + 16. */
	return func >= (uintptr_t)_text_start && func + 32 <= (uintptr_t)_etext &&
	       func + 32 > func && !(func & 7);
#else
	return func - 8 >= (uintptr_t)_text_start && func + 8 <= (uintptr_t)_etext &&
	       func - 8 < func && !(func & 7);
#endif
}

/* The second instruction of a site or sled that calls nothing: a NOP at a
 * patchable entry; `b #28`, past the 32-byte sled, in an XRay sled. */
#ifdef BT_INSTR_XRAY
#define ARM64_SITE_OFF_INSN (INSN_B | 7)
#else
#define ARM64_SITE_OFF_INSN INSN_NOP
#endif

static inline __attribute__((always_inline)) bool arch_site_reaches(uintptr_t func, uintptr_t target)
{
	uintptr_t off = target - (func + 4);
	return !target || !((off + BRANCH_RANGE) & ~(uintptr_t)(2 * BRANCH_RANGE - 4));
}

static inline __attribute__((always_inline)) uint32_t arch_site_insn(uintptr_t func, uintptr_t target)
{
	uintptr_t off = target - (func + 4);
	return target ? INSN_BL | ((uint32_t)(off >> 2) & INSN_IMM26_MASK) : ARM64_SITE_OFF_INSN;
}

static inline __attribute__((always_inline)) uint64_t arch_site_word(uintptr_t func, uintptr_t target)
{
	return INSN_MOV_X9_X30 | (uint64_t)arch_site_insn(func, target) << 32;
}

static inline __attribute__((always_inline)) uint64_t arch_site_read(uintptr_t func)
{
	uint64_t w;
	__builtin_memcpy(&w, (const void *)func, sizeof(w));   /* a sled is 4-aligned */
	return w;
}

/* The data word (the literal at func + ARM64_SITE_DATA_OFF) as it is;
 * func initialised, as for arch_site_read.  Inline for the update's
 * per-site check. */
static inline __attribute__((always_inline)) uint64_t arch_site_read_data(uintptr_t func)
{
	return __atomic_load_n((const uint64_t *)(func + ARM64_SITE_DATA_OFF), __ATOMIC_RELAXED);
}

static inline __attribute__((always_inline)) bool arch_site_holds(uintptr_t func, uintptr_t target)
{
	return arch_site_reaches(func, target) && arch_site_read(func) == arch_site_word(func, target);
}

/*
 * XRay exit and tail sleds (arch/hooks.h "sleds"): the same first two
 * instructions as an entry sled, so the same encodings whatever the kind;
 * a sled is 4-aligned.
 */
static inline __attribute__((always_inline)) bool arch_sled_placed(uintptr_t addr)
{
	return addr >= (uintptr_t)_text_start && addr + 32 <= (uintptr_t)_etext &&
	       addr + 32 > addr && !(addr & 3);
}

static inline __attribute__((always_inline)) uint64_t arch_sled_word(uintptr_t addr, uintptr_t target,
								      unsigned kind)
{
	return arch_site_word(addr, target);
}

static inline __attribute__((always_inline)) bool arch_sled_holds(uintptr_t addr, uintptr_t target,
								   unsigned kind)
{
	return arch_site_holds(addr, target);
}

/* An exit or tail sled's function: its address (the kernel's text lies
 * below 4 GiB) is the word at +16 (patch.c), which the handler finds at
 * its return address (sled + 8) + 8. */
#define ARCH_SLED_FUNC_OFF 16
static inline __attribute__((always_inline)) uintptr_t arch_sled_func(uintptr_t addr)
{
	return *(const uint32_t *)(addr + ARCH_SLED_FUNC_OFF);
}

/* What __fexit__ hands ftrace_sled_exit for its sled (at): the sled's
 * function itself, the word at its return address (sled + 8) + 8, which
 * __fexit__ loads (one LDR where handing on the sled took a SUB), so the
 * exit's test of the frame's function loads nothing. */
static inline __attribute__((always_inline)) uintptr_t arch_sled_exit_func(uintptr_t at)
{
	return at;
}
/* What __fexit__ hands on (at) for the exit sled at addr. */
static inline __attribute__((always_inline)) uintptr_t arch_sled_exit_at(uintptr_t addr)
{
	return arch_sled_func(addr);
}

/* __fexit__ loads fgraph_ts_exit and tests it (NULL: no graph user), as
 * cheap as a test of fgraph_ts_active (trace/core/fgraph.c). */
#define ARCH_FEXIT_NEVER_NULL 0
/* So it needs nothing of its own (x86-64's __fexit__ jumps through a word). */
static inline __attribute__((always_inline)) void arch_fexit_set(bool on, uintptr_t exitfn)
{
	(void)on;
	(void)exitfn;
}

/* The target of the jump after the tail sled at addr: a `b imm26` at
 * addr + 32 (what arch_sled_init found there: no ret, no br x9). */
static inline __attribute__((always_inline)) uintptr_t arch_sled_tail_target(uintptr_t addr)
{
	uint32_t insn = *(const uint32_t *)(addr + 32);
	if ((insn & 0xfc000000u) != INSN_B)
		return 0;                                /* br: indirect */
	int32_t imm26 = (int32_t)(insn << 6) >> 6;       /* sign-extended */
	return addr + 32 + (uintptr_t)((intptr_t)imm26 * 4);
}

#endif
