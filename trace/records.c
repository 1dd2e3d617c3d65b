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
#include "trace/ftrace.h"
#include "trace/records.h"

extern const uintptr_t __sites_start[], __sites_end[];

struct ftrace_rec *ftrace_recs;
unsigned ftrace_nrecs;

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

int records_init(void)
{
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
