/*
 * records.c — the record table.
 *
 * The compiler's site list (__sites_start..__sites_end) is sorted at build
 * time; records_init() converts it in one pass, checks the order (an
 * unsorted list would make every lookup wrong: tracing is disabled), and
 * puts every site in its disabled state.  A site whose bytes are not what
 * the compiler leaves is marked DISABLED and reported; the others work.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch/hooks.h"
#include "boot/console.h"
#include "boot/ksyms.h"
#include "trace/core/ftrace.h"
#include "trace/core/records.h"

extern const uintptr_t __sites_start[], __sites_end[];

/*
 * The XRay sled table (INSTR=xray) as tools/sort-sites.py leaves it: clang's
 * 32-byte entries (docs/TOOLCHAIN-NOTES.md, "clang XRay sleds") made
 * absolute, sorted by sled, the version byte XRAY_SORTED, arm64's tail
 * sleds given kind 2.  Empty in a patchable-entry build.
 */
struct xray_entry {
	uint64_t sled, func;
	uint8_t kind, always, version, pad[13];
};
_Static_assert(sizeof(struct xray_entry) == 32, "clang's xray_instr_map entry is 32 bytes");
#define XRAY_SORTED 0xb7
extern const struct xray_entry __xray_start[], __xray_end[];

struct ftrace_rec *ftrace_recs;
unsigned ftrace_nrecs;
struct ftrace_sled *ftrace_sleds;
unsigned ftrace_nsleds;

/*
 * The lookup index: rec_page[k] is the first record whose offset is at or
 * past k * REC_PAGE, for k = 0..rec_npages (the last entry is ftrace_nrecs).
 * A lookup binary-searches only the records of one text page (a few dozen at
 * most) instead of the whole table.  4 bytes per page of text: the records
 * themselves stay 8 bytes.
 */
#define REC_PAGE_SHIFT 12
static unsigned rec_shift = REC_PAGE_SHIFT;    /* 63 without the index: one "page" */
static uint32_t *rec_page;
static unsigned rec_npages;

struct ftrace_rec *rec_find(uintptr_t ip)
{
	if (ip < (uintptr_t)_text_start)
		return NULL;
	uintptr_t off = ip - (uintptr_t)_text_start;
	uintptr_t pg = off >> rec_shift;
	if (pg >= rec_npages)
		return NULL;
	unsigned lo = rec_page[pg], hi = rec_page[pg + 1];
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (ftrace_recs[mid].off == off)
			return &ftrace_recs[mid];
		if (ftrace_recs[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Build rec_page over the sorted table (n records).  Without memory the
 * index is one page covering everything: lookups stay right, only slower. */
static void index_build(unsigned n)
{
	static uint32_t whole[2];
	unsigned pages = n ? (ftrace_recs[n - 1].off >> REC_PAGE_SHIFT) + 1 : 0;
	uint32_t *ix = calloc(pages + 1, sizeof(*ix));
	if (!ix) {
		whole[1] = n;
		rec_page = whole;
		rec_npages = 1;
		rec_shift = 63;          /* every offset is in "page" 0 */
		return;
	}
	unsigned r = 0;
	for (unsigned k = 0; k <= pages; k++) {
		while (r < n && (ftrace_recs[r].off >> REC_PAGE_SHIFT) < k)
			r++;
		ix[k] = r;
	}
	rec_page = ix;
	rec_npages = pages;
}

const char *rec_name(const struct ftrace_rec *r)
{
	const char *n = ksym_lookup(rec_ip(r), NULL, NULL);
	return n ? n : "?";
}

void rec_sleds(const struct ftrace_rec *r, unsigned *first, unsigned *end)
{
	unsigned i = (unsigned)(r - ftrace_recs), lo = 0, hi = ftrace_nsleds;
	uint32_t next = i + 1 < ftrace_nrecs ? ftrace_recs[i + 1].off : UINT32_MAX;
	while (lo < hi) {                        /* the first sled past r's entry */
		unsigned mid = lo + (hi - lo) / 2;
		if (ftrace_sleds[mid].off <= r->off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < ftrace_nsleds && ftrace_sleds[lo].off < next)
		lo++;
	*end = lo;
}

bool rec_sled_at(uintptr_t ip, unsigned *kind)
{
	const struct ftrace_sled *v = __atomic_load_n(&ftrace_sleds, __ATOMIC_ACQUIRE);
	unsigned lo = 0, hi = v ? __atomic_load_n(&ftrace_nsleds, __ATOMIC_RELAXED) : 0;
	if (ip < (uintptr_t)_text_start)
		return false;
	uintptr_t off = ip - (uintptr_t)_text_start;
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		if (v[mid].off == off) {
			*kind = v[mid].kind;
			return true;
		}
		if (v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

struct ftrace_rec *rec_of_sled_search(uintptr_t ip)
{
	unsigned kind, lo = 0, hi = ftrace_nrecs;
	if (!rec_sled_at(ip, &kind))
		return NULL;
	uint32_t off = (uint32_t)(ip - (uintptr_t)_text_start);
	while (lo < hi) {                        /* the first record past the sled */
		unsigned mid = lo + (hi - lo) / 2;
		if (ftrace_recs[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &ftrace_recs[lo - 1] : NULL;  /* boot checked: its function's */
}

uint64_t records_bytes_per_site_x100(void)
{
	uint64_t bytes = (uint64_t)ftrace_nrecs * sizeof(struct ftrace_rec) +
			 (uint64_t)ftrace_nsleds * sizeof(struct ftrace_sled);
	return ftrace_nrecs ? bytes * 100 / ftrace_nrecs : 0;
}

/* One sled of the XRay table into the records (an entry) or the sleds (an
 * exit or tail of the last record), initialised; false: the table is
 * wrong (tracing is killed). */
static bool xray_take(const struct xray_entry *e, uintptr_t prev, unsigned *bad)
{
	uintptr_t base = (uintptr_t)_text_start;
	if (e->version != XRAY_SORTED || e->sled <= prev || e->sled < base || e->sled - base > UINT32_MAX) {
		ftrace_kill("XRay sled table not sorted (tools/sort-sites.py did not run)");
		return false;
	}
	if (e->kind == ARCH_SLED_ENTRY) {
		struct ftrace_rec *r = &ftrace_recs[ftrace_nrecs++];
		r->off = (uint32_t)(e->sled - base);
		if (e->func != e->sled || arch_site_init(e->sled, (uintptr_t)&ftrace_list_ops) != 0) {
			r->flags = FREC_DISABLED;
			if ((*bad)++ < 5)
				kprintf("ftrace: entry sled of %s at %lx is not as compiled; not traced\n",
					rec_name(r), (unsigned long)e->sled);
		}
		return true;
	}
	struct ftrace_rec *r = ftrace_nrecs ? &ftrace_recs[ftrace_nrecs - 1] : NULL;
	if (!r || rec_ip(r) != e->func || (e->kind != ARCH_SLED_EXIT && e->kind != ARCH_SLED_TAIL)) {
		ftrace_kill("XRay sled outside its function, or of an unknown kind");
		return false;
	}
	struct ftrace_sled *s = &ftrace_sleds[ftrace_nsleds++];
	s->off = (uint32_t)(e->sled - base);
	s->kind = e->kind;
	/* A function is traced with all its sleds or not at all. */
	if (!(r->flags & FREC_DISABLED) &&
	    arch_sled_init(e->sled, e->kind, e->func) != 0) {
		r->flags = FREC_DISABLED;
		if ((*bad)++ < 5)
			kprintf("ftrace: %s sled of %s at %lx is not as compiled; not traced\n",
				e->kind == ARCH_SLED_EXIT ? "exit" : "tail", rec_name(r),
				(unsigned long)e->sled);
	}
	return true;
}

/* records_init() for an XRay kernel: both tables from the sled table. */
static int records_init_xray(void)
{
	unsigned n = (unsigned)(__xray_end - __xray_start), entries = 0, bad = 0;
	for (unsigned i = 0; i < n; i++)
		entries += __xray_start[i].kind == ARCH_SLED_ENTRY;
	struct ftrace_rec *recs = calloc(entries ? entries : 1, sizeof(*recs));
	struct ftrace_sled *sleds = calloc(n - entries ? n - entries : 1, sizeof(*sleds));
	if (!recs || !sleds) {
		free(recs);
		free(sleds);
		ftrace_kill("no memory for the record table");
		return -ENOMEM;
	}
	ftrace_recs = recs;
	ftrace_sleds = sleds;
	uintptr_t prev = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!xray_take(&__xray_start[i], prev, &bad)) {
			ftrace_nrecs = ftrace_nsleds = 0;
			return -EINVAL;
		}
		prev = __xray_start[i].sled;
	}
	index_build(ftrace_nrecs);
	if (bad)
		kprintf("ftrace: %u of %u functions refused\n", bad, ftrace_nrecs);
	return 0;
}

int records_init(void)
{
	if ((uintptr_t)__xray_end != (uintptr_t)__xray_start)
		return records_init_xray();
	unsigned n = (unsigned)(__sites_end - __sites_start), bad = 0;
	ftrace_recs = calloc(n ? n : 1, sizeof(*ftrace_recs));
	if (!ftrace_recs) {
		ftrace_kill("no memory for the record table");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		uintptr_t ip = arch_site_func(__sites_start[i]);
		struct ftrace_rec *r = &ftrace_recs[i];
		r->off = (uint32_t)(ip - (uintptr_t)_text_start);
		if (i && r->off <= ftrace_recs[i - 1].off) {
			ftrace_nrecs = 0;
			ftrace_kill("site list not sorted (tools/sort-sites.py did not run)");
			return -EINVAL;
		}
		/* The data word starts as the list ops (data_of, update.c). */
		if (arch_site_init(ip, (uintptr_t)&ftrace_list_ops) != 0) {
			r->flags = FREC_DISABLED;
			if (bad++ < 5)
				kprintf("ftrace: site of %s at %lx is not as compiled; not traced\n",
					rec_name(r), (unsigned long)ip);
		}
	}
	ftrace_nrecs = n;
	index_build(n);
	if (bad)
		kprintf("ftrace: %u of %u sites refused\n", bad, n);
	return 0;
}
