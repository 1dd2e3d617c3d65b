/*
 * site.h — the x86-64 site encodings, inline (the text writing itself
 * is declared in x86.h: arch_text_poke, x86_poke_page, x86_poke_touch).
 *
 * For checks in a caller's own pass over its batch (patch/patch.h,
 * patch_apply_checked) as well as patch_apply()'s check and the write steps in
 * patch.c.  A site is the 5 bytes at the function: `nopl 0x0(%rax,%rax,1)`
 * (0f 1f 44 00 00, target 0) or `call target` (e8 rel32, rel32 = target -
 * (func + 5)); patch.c draws the table.  Here they are the low 40 bits of a
 * little-endian word.
 */
#ifndef X86_64_SITE_H
#define X86_64_SITE_H

#include <stdbool.h>
#include <stdint.h>

#define X86_SITE_NOP5  0x0000441f0full      /* bytes 0f 1f 44 00 00 */
#define X86_OP_CALL    0xe8
/* XRay sleds (INSTR=xray; patch.c draws them): an entry or tail sled that
 * calls nothing is `jmp +9` past its 11 bytes (eb 09, then 0f 1f 00, a
 * NOP never run), an exit sled its `ret` (c3, then int3s never run). */
#define X86_SLED_JMP   0x00001f0f09ebull    /* bytes eb 09 0f 1f 00 */
#define X86_SLED_RET   0xccccccccc3ull
#ifdef BT_INSTR_XRAY
#define X86_SITE_OFF   X86_SLED_JMP
#define X86_SITE_LEN   11                   /* the entry sled */
#else
#define X86_SITE_OFF   X86_SITE_NOP5
#define X86_SITE_LEN   5
#endif

/* The site's bytes for target (0: the NOP); reach checked apart. */
extern char _text_start[], _etext[];

/* Can func have a site (its 5 bytes in text)? */
static inline __attribute__((always_inline)) bool arch_site_placed(uintptr_t func)
{
	return func >= (uintptr_t)_text_start && func + X86_SITE_LEN <= (uintptr_t)_etext &&
	       func + X86_SITE_LEN > func;
}

static inline __attribute__((always_inline)) uint64_t arch_site_word(uintptr_t func, uintptr_t target)
{
	return target ? X86_OP_CALL | (uint64_t)(uint32_t)(target - (func + 5)) << 8 : X86_SITE_OFF;
}

/* Can the site's call reach target (or target is 0)? */
static inline __attribute__((always_inline)) bool arch_site_reaches(uintptr_t func, uintptr_t target)
{
	int64_t rel = (int64_t)(target - (func + 5));
	return !target || rel == (int32_t)rel;
}

/* The 5 bytes at func as arch_site_word lays them out: two loads, none past
 * the site (a function may end right after it). */
static inline __attribute__((always_inline)) uint64_t arch_site_read(uintptr_t func)
{
	uint32_t lo;
	__builtin_memcpy(&lo, (const void *)func, sizeof(lo));
	return lo | (uint64_t)((const uint8_t *)func)[4] << 32;
}

/* No data word (ARCH_SITE_HAS_DATA 0): always 0, as arch_site_data. */
static inline __attribute__((always_inline)) uint64_t arch_site_read_data(uintptr_t func)
{
	return 0;
}

/* Does the site at func hold target's encoding, target in reach? */
static inline __attribute__((always_inline)) bool arch_site_holds(uintptr_t func, uintptr_t target)
{
	return arch_site_reaches(func, target) && arch_site_read(func) == arch_site_word(func, target);
}

/* XRay sleds (arch/hooks.h): 11 bytes, the first 5 a site whose disabled
 * form depends on the kind. */
static inline __attribute__((always_inline)) bool arch_sled_placed(uintptr_t addr)
{
	return addr >= (uintptr_t)_text_start && addr + 11 <= (uintptr_t)_etext && addr + 11 > addr;
}

static inline __attribute__((always_inline)) uint64_t arch_sled_word(uintptr_t addr, uintptr_t target,
								      unsigned kind)
{
	if (!target && kind != ARCH_SLED_ENTRY)
		return kind == ARCH_SLED_EXIT ? X86_SLED_RET : X86_SLED_JMP;
	return arch_site_word(addr, target);
}

static inline __attribute__((always_inline)) bool arch_sled_holds(uintptr_t addr, uintptr_t target,
								   unsigned kind)
{
	return arch_site_reaches(addr, target) && arch_site_read(addr) == arch_sled_word(addr, target, kind);
}

/* An exit or tail sled's function: bytes 7-10 (ARCH_SLED_FUNC_OFF,
 * patch.c) hold its address (the kernel's text lies below 4 GiB), which
 * __fexit__ finds from the sled's call's return address, sled + 5
 * (ARCH_SLED_EXIT_AT), as it hands it on (at): the 4 bytes at at + 2,
 * zero-extended by the load. */
#define ARCH_SLED_FUNC_OFF 7
#define ARCH_SLED_EXIT_AT 5
static inline __attribute__((always_inline)) uintptr_t arch_sled_exit_func(uintptr_t at)
{
	uint32_t func;
	__builtin_memcpy(&func, (const void *)(at + ARCH_SLED_FUNC_OFF - ARCH_SLED_EXIT_AT),
			 sizeof(func));
	return func;
}
static inline __attribute__((always_inline)) uintptr_t arch_sled_func(uintptr_t addr)
{
	return arch_sled_exit_func(addr + ARCH_SLED_EXIT_AT);
}
/* What __fexit__ hands on (at) for the exit sled at addr. */
static inline __attribute__((always_inline)) uintptr_t arch_sled_exit_at(uintptr_t addr)
{
	return addr + ARCH_SLED_EXIT_AT;
}

/* __fexit__ calls through fgraph_ts_exit in memory (a CALL that loads:
 * one instruction fewer than a load and a test of the pointer), so the
 * pointer is never NULL here: with no graph user it is __fexit_fp
 * (trace/core/fgraph.c). */
#define ARCH_FEXIT_NEVER_NULL 1

/* __fexit__'s first instruction jumps through x86_fexit_to
 * (ftrace_tramp.S): to its `ret` (__fexit_off) while no graph user is
 * registered, to its exit (__fexit_on) while one is: one indirect jump
 * where a CMPB of fgraph_ts_active and a branch were, for the graph and
 * for the function tracer alone.  Set with fgraph_ts_active, under the
 * fgraph mutex (users_changed); whichever value a CPU reads is a way
 * that works, as the byte's. */
extern void *x86_fexit_to;
extern char __fexit_on[], __fexit_off[];
static inline __attribute__((always_inline)) void arch_fexit_set(bool on, uintptr_t exitfn)
{
	(void)exitfn;
	__atomic_store_n(&x86_fexit_to, on ? (void *)__fexit_on : (void *)__fexit_off,
			 __ATOMIC_RELAXED);
}

/* The target of the jump after the 11-byte tail sled at addr: a `jmp
 * rel8` (eb) or `jmp rel32` (e9) at addr + 11. */
static inline __attribute__((always_inline)) uintptr_t arch_sled_tail_target(uintptr_t addr)
{
	const uint8_t *j = (const uint8_t *)(addr + 11);
	if (j[0] == 0xEB)
		return addr + 13 + (uintptr_t)(intptr_t)(int8_t)j[1];
	if (j[0] != 0xE9)
		return 0;                                /* jmp *: indirect */
	int32_t rel;
	__builtin_memcpy(&rel, j + 1, sizeof(rel));
	return addr + 16 + (uintptr_t)(intptr_t)rel;
}

#endif
