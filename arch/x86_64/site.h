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

/* The site's bytes for target (0: the NOP); reach checked apart. */
extern char _text_start[], _etext[];

/* Can func have a site (its 5 bytes in text)? */
static inline __attribute__((always_inline)) bool arch_site_placed(uintptr_t func)
{
	return func >= (uintptr_t)_text_start && func + 5 <= (uintptr_t)_etext &&
	       func + 5 > func;                 /* 5: ARCH_SITE_SIZE */
}

static inline __attribute__((always_inline)) uint64_t arch_site_word(uintptr_t func, uintptr_t target)
{
	return target ? X86_OP_CALL | (uint64_t)(uint32_t)(target - (func + 5)) << 8 : X86_SITE_NOP5;
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

#endif
