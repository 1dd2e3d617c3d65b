/*
 * fsig.h — function signatures: what the graph tracer knows about a traced
 * function's parameters and return type, from BTF (trace/btf/btf.h).
 *
 * The table is built when a BTF blob is loaded (embedded in the image, or a
 * module passed with QEMU's -initrd) and dropped on unload.  Lookups are by
 * function address (sorted, binary search).  Printers and the loader take
 * fsig_lock(); one lookup is lock-free, for the tracing callbacks:
 * fsig_capture_find(), which says what an entry copies besides the
 * argument registers — the words the call passed on the stack or by
 * reference (fsig_capture_words), and which words are `char *` so that the
 * event can carry their strings as they were at the call
 * (fsig_capture_strs) — a replaced table is freed only after a grace
 * period.  Otherwise the entry event records raw argument words and the
 * exit event the raw return register; types are applied when the trace is
 * printed.
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
/* Bytes fsig_capture_strs can write for n strings; it copies at most
 * FSIG_MAX_STRS (the first ones in word order). */
#define FSIG_MAX_STRS  8
#define FSIG_STRS_SIZE(n)  ((n) * (2 + FSIG_STR_MAX))

/*
 * The argument words of an entry event: the integer argument registers
 * (fsig_abi.gprs of them), then the words the call passed on the stack
 * (read at entry from the stack pointer the call left: x86-64's seventh
 * and later integer arguments, arm64's ninth and later, SysV x86-64's
 * aggregates over 16 bytes), then the words of each aggregate over 16
 * bytes passed by reference (AAPCS64: its address is in a register or a
 * slot, the words are read at entry).  An aggregate shows at most
 * FSIG_AGG_WORDS words; an event carries at most FSIG_MAX_WORDS.
 * Which parameter is where follows fsig_abi, the calling convention's
 * facts (arch_defs.h's ARCH_FSIG_ABI).
 */
struct fsig_abi {
	uint8_t gprs;                 /* integer argument registers (ARCH_FTRACE_NARGS) */
	uint8_t fprs;                 /* FP/SIMD argument registers */
	bool big_byref;               /* an aggregate over 16 bytes goes by reference
				       * (AAPCS64); else in memory, on the stack (SysV) */
	bool pair_even;               /* a 16-byte-aligned value starts at an even
				       * register (AAPCS64) */
	bool split_stops;             /* an aggregate that does not fit in the registers
				       * left ends register use (AAPCS64); else later
				       * arguments still take them (SysV) */
};
#define FSIG_ABI_AAPCS64  { 8, 8, true, true, true }
#define FSIG_ABI_SYSV     { 6, 8, false, false, false }
extern struct fsig_abi fsig_abi;

#define FSIG_MAX_WORDS  32      /* argument words an entry event carries at most */
#define FSIG_AGG_WORDS  8       /* words of an aggregate over 16 bytes shown */
#define FSIG_MAX_REFS   4       /* by-reference aggregates copied per call */

/* What an entry copies for a function besides its registers (built with
 * the table, for the functions that need any of it). */
struct fsig_capture {
	uintptr_t ip;
	uint32_t strs;                /* bit w: event word w is a `char *` */
	uint8_t nstack;               /* stack words, from the call's stack pointer */
	uint8_t nref;                 /* by-reference aggregates */
	uint8_t ref_ptr[FSIG_MAX_REFS];     /* the event word holding each one's address */
	uint8_t ref_words[FSIG_MAX_REFS];   /* its words to copy */
};

/* The capture of the function at ip, or NULL (nothing beyond its
 * registers, or no BTF).  Lock-free, any context (tracing callbacks). */
const struct fsig_capture *fsig_capture_find(uintptr_t ip);
/* Which argument words of the function at ip are `char *` (bit w: word w),
 * 0 if none or no BTF.  Lock-free, any context. */
uint32_t fsig_str_words(uintptr_t ip);
/* Fill words[fsig_abi.gprs ..] for capture c: the stack words from sp (the
 * address of the first stack-passed word), then the by-reference
 * aggregates' words; words[0 .. gprs) must hold the registers.  Returns the
 * words filled in all (registers included): it stops before the first
 * range that is not RAM (fsig_port_ram; it never faults).  words holds
 * FSIG_MAX_WORDS.  Any context. */
unsigned fsig_capture_words(const struct fsig_capture *c, uint64_t *words, uintptr_t sp);

/* A filter for the tracing callbacks: false means the function at ip has
 * no stack or by-reference words to copy (true: look, fsig_capture_find).
 * One byte per FSIG_FILTER_GRAIN bytes of text, direct-mapped by the
 * address bits above the grain: the entries of two traced functions are
 * 8 bytes apart or more (arm64: two NOPs, the entry's two and an
 * instruction at the least; x86-64: GCC aligns functions to 8 or 16), so
 * within any FSIG_FILTER_SLOTS * FSIG_FILTER_GRAIN bytes (2 MiB: the
 * image's text, 0.6 MiB, with room) no two share a byte, and a function's
 * byte is set only by itself.  Read without a lock, one relaxed byte load
 * (function_graph.c, graph_capture_maybe: arch_load_relaxed8, which GCC
 * addresses by a register offset, where its atomic builtin takes a bare
 * base); a stale byte costs a look-up, never a miss: new bytes are set
 * before the table is published (fsig.c, btf_load_addrs). */
#define FSIG_FILTER_GRAIN  8
#define FSIG_FILTER_SLOTS  (1u << 18)
extern uint8_t fsig_filter[FSIG_FILTER_SLOTS];
static inline unsigned fsig_filter_slot(uintptr_t ip)
{
	return (unsigned)(ip / FSIG_FILTER_GRAIN) % FSIG_FILTER_SLOTS;
}
/* Copy the strings of the words in mask (words[0..nwords)), the first
 * FSIG_MAX_STRS of them, into dst, which holds FSIG_STRS_SIZE(min(nwords,
 * FSIG_MAX_STRS)) bytes; returns the bytes written.  Reads
 * with fsig_port_read_str (trace/btf/btf.h): never faults.  Any context. */
size_t fsig_capture_strs(uint8_t *dst, uint32_t mask, const uint64_t *words, unsigned nwords);

/* Write the argument list (no parentheses) for `s` (NULL: raw words) from
 * the recorded words and the strings captured with them (strs: records as
 * above, strs_len bytes; NULL for none); returns the length written
 * (snprintf-like).  Parameters are separated by ", " and printed
 * "name=value" ("value" alone if BTF has no name); words map to parameters
 * as trace/btf/fsig.c's header says, and printing stops at the first parameter
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
