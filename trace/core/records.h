/*
 * records.h — one record per patchable site, sorted by address.
 *
 * A record is 8 bytes: the function's offset from _text_start and a flags
 * word.  Bit layout of `flags`:
 *
 *   31   30  29       28       27          26       25        24      23       22     21      20     19..0
 *   -    -   DISABLED ENABLED  CALL_OPS_EN CALL_OPS DIRECT_EN DIRECT  TRAMP_EN TRAMP  REGS_EN REGS   refcount
 *
 * refcount: ops attached to the function (filter matches, notrace does not),
 * a direct ops included (Linux's count).
 * Each feature has a "wanted" bit, recomputed from the attached ops, and an
 * "_EN" bit saying what the site does now; the update patches every record
 * whose wanted state differs from its enabled state, then copies wanted into
 * enabled.  ENABLED: the site calls something.  DISABLED: the site's bytes
 * were not what they should be; it is never touched again.
 *   REGS      some attached ops wants SAVE_REGS
 *   TRAMP     exactly one ops attached and it has its own trampoline
 *   DIRECT    a direct trampoline is attached (the site calls it when it is
 *             alone, else the regs list caller, which enters it)
 *   CALL_OPS  the per-site data word points to one ops (arm64)
 *
 * The table is built once at boot (records_init) from the compiler's site
 * list, sorted at build time (tools/sort-sites.py); flags are changed only
 * under the ftrace lock and read lock-free by listings.
 *
 * With XRay sleds (INSTR=xray) a record is a function's entry sled, and
 * its exit and tail sleds are in a second table, ftrace_sleds, 8 bytes a
 * sled, sorted by address: a function's lie after its entry and before the
 * next record's (records_init checks it), so rec_sleds() finds them with
 * one binary search.  The record's state is the state of all its sleds:
 * the update enables and disables them together (trace/core/update.c).
 */
#ifndef TRACE_RECORDS_H
#define TRACE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


struct ftrace_rec {
	uint32_t off;           /* function address - _text_start; written once */
	uint32_t flags;         /* FREC_*; ftrace lock */
};
_Static_assert(sizeof(struct ftrace_rec) == 8, "a record is 8 bytes");

#define FREC_REF_MASK     0x000fffffu
#define FREC_REGS         (1u << 20)
#define FREC_REGS_EN      (1u << 21)
#define FREC_TRAMP        (1u << 22)
#define FREC_TRAMP_EN     (1u << 23)
#define FREC_DIRECT       (1u << 24)
#define FREC_DIRECT_EN    (1u << 25)
#define FREC_CALL_OPS     (1u << 26)
#define FREC_CALL_OPS_EN  (1u << 27)
#define FREC_ENABLED      (1u << 28)
#define FREC_DISABLED     (1u << 29)
#define FREC_WANT_MASK    (FREC_REGS | FREC_TRAMP | FREC_DIRECT | FREC_CALL_OPS)

extern struct ftrace_rec *ftrace_recs;   /* sorted by off */
extern unsigned ftrace_nrecs;

/* An XRay exit or tail sled (its function is the record before it). */
struct ftrace_sled {
	uint32_t off;           /* sled address - _text_start; written once */
	uint32_t kind;          /* ARCH_SLED_EXIT or ARCH_SLED_TAIL; written once */
};
_Static_assert(sizeof(struct ftrace_sled) == 8, "a sled is 8 bytes");

extern struct ftrace_sled *ftrace_sleds;  /* sorted by off; NULL without XRay */
extern unsigned ftrace_nsleds;

/* Build the table and initialise every site (boot CPU, before SMP). */
int records_init(void);
extern char _text_start[];
static inline uintptr_t rec_ip(const struct ftrace_rec *r)
{
	return (uintptr_t)_text_start + r->off;
}
/* Record of the function at exactly ip, or NULL (a page index, then a
 * binary search within the page). */
struct ftrace_rec *rec_find(uintptr_t ip);
const char *rec_name(const struct ftrace_rec *r);

static inline uintptr_t sled_ip(const struct ftrace_sled *s)
{
	return (uintptr_t)_text_start + s->off;
}
/* r's exit and tail sleds: ftrace_sleds[*first .. *end), maybe none. */
void rec_sleds(const struct ftrace_rec *r, unsigned *first, unsigned *end);
/* Is ip an exit or tail sled?  Its kind in *kind.  Any context, lock-free. */
bool rec_sled_at(uintptr_t ip, unsigned *kind);
/* The record of the function whose exit or tail sled is at ip, or NULL (ip
 * is no such sled).  Any context, lock-free; two binary searches (the
 * sleds', then the records'). */
struct ftrace_rec *rec_of_sled_search(uintptr_t ip);
/* What __fexit__ / __ftail__ learn their function by: arch_sled_func(ip)
 * (arch/hooks.h), for an exit or tail sled that boot initialised (its
 * function not DISABLED then), one load — the function's address that
 * boot wrote into the sled.  The update checks it before
 * enabling a sled; suite xray checks it against rec_of_sled_search for
 * every sled. */
/* Bytes of the record and sled tables, for each record (make bench's
 * record_bytes_per_site), times 100. */
uint64_t records_bytes_per_site_x100(void);

#endif
