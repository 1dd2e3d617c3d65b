/*
 * fsig.h — function signatures: what the graph tracer knows about a traced
 * function's parameters and return type, from BTF (trace/btf.h).
 *
 * The table is built when a BTF blob is loaded (embedded in the image, or a
 * module passed with QEMU's -initrd) and dropped on unload.  Lookups are by
 * function address (sorted, binary search).  Printers and the loader take
 * fsig_lock(); one lookup is lock-free, for the tracing callbacks:
 * fsig_str_words(), which says which argument words of a function are
 * `char *` so that the entry event can carry their strings as they were at
 * the call (fsig_capture_strs) — a replaced table is freed only after a
 * grace period.  Otherwise the entry event records raw argument words and
 * the exit event the raw return register; types are applied when the
 * trace is printed.
 *
 * Formatting (Linux's funcgraph-args / funcgraph-retval, as its
 * print_function_args and print_graph_retval print them):
 *   args, with a signature:  "a=1, flags=0x3, p=0xffff0000401000"
 *       signed integers in decimal, unsigned ones (bool included: BTF does
 *       not mark it signed) in hex, pointers in hex, enums by value
 *       (decimal), a struct or union by value as its raw words
 *       "(STRUCT)[0x1:0x2]" / "(UNION)[0x1]", `char *` as the string
 *       captured at the call if there is one (funcgraph-args-string), else
 *       as a pointer; "..." in place of the first parameter whose words
 *       were not recorded
 *   args, without one:       the raw words "0x1, 0x3, ..." (all nwords)
 *   return value:            "ret=-22" for an error value (-4095..-1 in a
 *       signed or pointer-sized type), "ret=0x0" otherwise; cut to the return
 *       type's size and sign first; hex=true forces hex; void prints nothing
 *       (0 returned) — without a signature, Linux's rule for an untyped
 *       register: -4095..-1 in decimal, either as the whole register or as
 *       its low half with the upper half clear (an int error returned
 *       through a 32-bit write), anything else in hex.
 */
#ifndef TRACE_FSIG_H
#define TRACE_FSIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fsig_kind {
	FSIG_VOID,      /* return type only */
	FSIG_INT,       /* signed integer (char, short, int, long, long long) */
	FSIG_UINT,      /* unsigned integer */
	FSIG_BOOL,
	FSIG_ENUM,      /* printed by value */
	FSIG_PTR,       /* any pointer but char * */
	FSIG_STR,       /* char * / const char * */
	FSIG_OTHER,     /* __int128 and what C cannot pass: printed raw, "[0x1:0x2]" */
	FSIG_FLOAT,     /* float/double: in FP registers, takes no argument
			 * word; printed "(float)" */
	FSIG_STRUCT,    /* by value: printed raw, "(STRUCT)[0x1:0x2]" */
	FSIG_UNION,     /* by value: printed raw, "(UNION)[0x1]" */
};

struct fsig_type {
	uint8_t kind;   /* enum fsig_kind */
	uint8_t size;   /* bytes; 0 for void; saturates at 255 */
};

struct fsig_param {
	const char *name;
	struct fsig_type type;
};

struct fsig {
	uintptr_t ip;                     /* function address */
	const char *name;
	uint8_t nparams;
	struct fsig_type ret;
	const struct fsig_param *params;
};

void fsig_lock(void);
void fsig_unlock(void);
/* Signature of the function at ip, or NULL (no BTF, or not described).
 * Valid while fsig_lock() is held. */
const struct fsig *fsig_find(uintptr_t ip);
bool fsig_loaded(void);

/*
 * Strings captured at the call (funcgraph-args-string): at most
 * FSIG_STR_MAX bytes of each, as records of
 *     u8 word    the argument word that held the pointer
 *     u8 len     bytes that follow (0..FSIG_STR_MAX), | FSIG_STR_CUT when the
 *                string went on past them (no NUL in the first FSIG_STR_MAX)
 *     len bytes  the string, without its NUL
 * one after another, in word order.  A pointer that could not be read
 * (NULL, outside RAM, or a string that runs into the end of RAM before
 * its NUL) gets no record, and prints as the pointer.
 */
#define FSIG_STR_MAX  32
#define FSIG_STR_CUT  0x80
/* Bytes fsig_capture_strs can write for nwords argument words. */
#define FSIG_STRS_SIZE(nwords)  ((nwords) * (2 + FSIG_STR_MAX))

/* Which argument words of the function at ip are `char *` (bit w: word w),
 * 0 if none or no BTF.  Lock-free, any context (tracing callbacks). */
uint32_t fsig_str_words(uintptr_t ip);
/* Copy the strings of the words in mask (words[0..nwords)) into dst, which
 * holds FSIG_STRS_SIZE(nwords) bytes; returns the bytes written.  Reads
 * with fsig_port_read_str (trace/btf.h): never faults.  Any context. */
size_t fsig_capture_strs(uint8_t *dst, uint32_t mask, const uint64_t *words, unsigned nwords);

/* Write the argument list (no parentheses) for `s` (NULL: raw words) from
 * the recorded words and the strings captured with them (strs: records as
 * above, strs_len bytes; NULL for none); returns the length written
 * (snprintf-like).  Parameters are separated by ", " and printed
 * "name=value" ("value" alone if BTF has no name); words map to parameters
 * as trace/fsig.c's header says, and printing stops at the first parameter
 * whose words were not all recorded, with "..." in its place (Linux's mark
 * for arguments past the recorded registers).  A `char *` with a captured
 * string prints "s=\"text\"", then "..." if it went on; bytes outside
 * 0x20..0x7e, '"' and '\\' print as \xNN; one without prints the pointer.
 * A malformed record (past strs_len) ends the records. */
size_t fsig_format_args(char *buf, size_t size, const struct fsig *s, const uint64_t *words,
			unsigned nwords, const uint8_t *strs, size_t strs_len);
/* Write "ret=..." for the raw return register; 0 and nothing for void. */
size_t fsig_format_ret(char *buf, size_t size, const struct fsig *s, uint64_t raw, bool hex);

#endif
