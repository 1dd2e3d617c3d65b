/*
 * update.c — the site update: every record's site follows the registered
 * ops.  After each change (register, unregister, new hashes) the update
 * computes, for each record the change can affect, the state its site must
 * be in, checks the site's bytes against the state it leaves, collects every
 * site that must change into one batch, writes the list function's table,
 * patches the batch (patch_apply_checked), and only then stores the new
 * flags; a refused site (bytes not as expected) kills tracing instead, with
 * nothing written.  The states themselves are site_state.h's.
 * ftrace_mutex held throughout; the steps are listed at "the update" below.
 *
 * Owned here: the count of list sites, and the replaced list table until
 * the grace period that frees it (the table itself is ftrace.c's, next to
 * the list function that reads it: ftrace_list_table_swap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "patch/patch.h"
#include "patch/tramp.h"
#include "trace/core/ftrace.h"
#include "trace/core/ftrace_internal.h"
#include "trace/core/hash.h"
#include "trace/core/listvec.h"
#include "trace/core/records.h"
#include "trace/core/site_state.h"

static unsigned list_sites;                    /* records whose site calls the list
						  function (calls_list) */
/* Room for the largest update (every record a candidate), allocated at
 * boot: an update that takes an ops away uses it when the heap has none,
 * so unregistering never fails for lack of memory (its callers, stopping
 * tracers and graph users, cannot put a half-gone ops back).  Updates
 * run one at a time under ftrace_mutex, so one block serves them all. */
static void *reserve;                          /* written once at boot */
static size_t reserve_bytes;
static struct listvec *retired_table;          /* replaced by the last update, to free
						  after a grace period */

/* ---- the list function's table ---- */

/* Is op, as registered now (current hashes), attached to the function at
 * ip?  A direct ops is listed too: it is not called, but the list function
 * finds in the run the direct trampoline that the regs list caller enters
 * after the callbacks (ftrace.c list_direct; listvec_add then marks the run
 * not plain).  ftrace_mutex held. */
static bool ops_calls(const struct ftrace_ops *op, uintptr_t ip)
{
	return (op->flags & FTRACE_OPS_FL_ENABLED) && ftrace_ops_wants(op->filter_hash, op->notrace_hash, ip);
}

/* A record whose stored flags an update changes: ftrace_recs[idx].flags
 * becomes `flags` once the batch is patched.  An update lists them in
 * record order. */
struct rec_change {
	uint32_t idx, flags;
};

/*
 * The table for the state an update installs: every list site with the ops
 * the full walk would call for it now.  A record's flags after the update
 * are ch[]'s (sorted by idx, nch of them) or else its stored ones.
 * NULL when there is nothing to put in it, or no memory (then every call
 * takes the full walk, which is always right).
 */
static struct listvec *list_table_build(const struct rec_change *ch, unsigned nch, unsigned sites)
{
	unsigned nops = 0;
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		nops++;                          /* at most this many per site */
	if (!nops || !sites)
		return NULL;
	struct listvec *v = listvec_alloc(sites, sites * nops);
	struct ftrace_ops **run = malloc(nops * sizeof(*run));
	if (!v || !run) {
		listvec_free(v);
		free(run);
		return NULL;
	}
	for (unsigned i = 0, k = 0; i < ftrace_nrecs; i++) {
		uint32_t f = ftrace_recs[i].flags;
		if (k < nch && ch[k].idx == i)
			f = ch[k++].flags;
		if (!calls_list(f))
			continue;
		uintptr_t ip = rec_ip(&ftrace_recs[i]);
		unsigned n = 0;
		for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
			if (ops_calls(op, ip))
				run[n++] = op;
		listvec_add(v, ip, run, n);
	}
	free(run);
	return v;
}

/* ---- the update ----
 *
 * ftrace_update(op), in order, nothing written before step 4:
 *   1  candidates(): the records op's change can affect, and one block for
 *      the batch and the flag changes;
 *   2  fast_setup(): whether the shortcut applies, and its per-batch state;
 *   3  update_scan(): each candidate's new state and site change, each
 *      site checked against its old state's bytes and data word and its new
 *      target's reach (patch.h, patch_apply_checked); a refused site ends
 *      the update here with nothing written and no flag changed: bytes or
 *      data word not as the record says -> DISABLED, tracing killed
 *      (-EILSEQ); a target out of the site's reach -> the update alone is
 *      refused (-ERANGE; the site is intact, tracing goes on);
 *   4  the list function's table if a list site changed, then the batch
 *      (patch_apply_checked), then the new flags.
 * patch/DESIGN.md, "Cost of an update", says where the time goes.
 */

/*
 * One update, for the ops whose registration or hashes changed (`op`;
 * NULL: judge every record).  ftrace_mutex held; lives for one
 * ftrace_update().
 */
struct update {
	const struct ftrace_ops *op;
	/* Candidates: the records the change can affect (candidates()). */
	const uint32_t *list;            /* their indices, ascending; or NULL */
	unsigned nlisted;
	uint64_t *map;                   /* else a bitmap over ftrace_recs; or
					    NULL too: every record */
	const struct ftrace_hash *only;  /* every candidate is in this hash, the
					    only non-empty one of op's (or NULL) */
	unsigned cap;                    /* candidates at most */
	/* The shortcut (fast_setup, scan). */
	bool fast;
	signed char is, was;             /* op attached to every candidate now /
					    before: 1 or 0; -1: ask its hashes */
	bool list1, data1;               /* a site with op alone calls the list
					    function / reads its data word */
	uint32_t f1;                     /* stored flags of a site with op alone */
	uintptr_t t1, d1;                /* its target and data word */
	uintptr_t d0;                    /* the data word with nothing attached */
	/* What the update does. */
	struct patch_site *batch;        /* sites to patch, in address order */
	unsigned n;
	struct rec_change *ch;           /* flags to store once patched */
	unsigned nch;
	unsigned nch_general;            /* ... of them from update_general() */
	void *mem;                       /* the one allocation (map, batch, ch) */
	uintptr_t refused;               /* a site refused (nothing is written),
					    or 0; why: */
	enum { REFUSED_BYTES, REFUSED_DATA, REFUSED_REACH, REFUSED_SLED } why;
	uintptr_t unreached;             /* REFUSED_REACH: the target;
					    REFUSED_SLED: the sled */
	int nlist;                       /* list_sites after the update */
	bool list_changed;               /* a list site came, went or changed */
};

/* Set record i's bit in the candidate map. */
static inline void map_set(uint64_t *map, unsigned i)
{
	map[i / 64] |= 1ull << (i % 64);
}

/* Every record of hash h into the map: from its record index list when
 * that names them all, else a lookup per key. */
static void map_hash(uint64_t *map, const struct ftrace_hash *h)
{
	if (hash_recs_all(h)) {
		const uint32_t *rec = hash_recs(h);
		for (unsigned k = 0; k < h->nrecs; k++)
			if (rec[k] < ftrace_nrecs)
				map_set(map, rec[k]);
		return;
	}
	for (unsigned s = 0; s <= h->mask; s++) {
		const struct ftrace_rec *r = h->slot[s] ? rec_find(h->slot[s]) : NULL;
		if (r)
			map_set(map, (unsigned)(r - ftrace_recs));
	}
}

/* The candidates() block for cap candidates and a map of `words`; the
 * batch has room for every XRay exit and tail sled as well (sleds_add). */
static size_t update_bytes(unsigned words, unsigned cap)
{
	return words * sizeof(uint64_t) + (size_t)ftrace_nsleds * sizeof(struct patch_site) +
	       (cap ? cap : 1) * (sizeof(struct patch_site) + sizeof(struct rec_change));
}

int ftrace_update_reserve_init(void)
{
	reserve_bytes = update_bytes((ftrace_nrecs + 63) / 64, ftrace_nrecs);
	reserve = malloc(reserve_bytes);
	return reserve ? 0 : -ENOMEM;
}

/* An update that only takes `op` away (its ENABLED bit cleared:
 * unregistering), which may use the reserve.  A rescan (NULL) may not. */
static bool removal(const struct ftrace_ops *op)
{
	return op && !(op->flags & FTRACE_OPS_FL_ENABLED);
}

/*
 * Which records can an update for `op` change?  Only functions in its old or
 * new filter or notrace hash: every other record keeps the same set of
 * attached ops.  An empty filter means every function, so then all records
 * are candidates (u->list and u->map NULL).  One hash alone whose record
 * index list is complete and sorted is the candidate list itself (u->list);
 * otherwise a bitmap over the records (u->map) sorts them.  Allocates, in
 * one block, the map and room for the batch and the flag changes (u->cap
 * entries each).  -ENOMEM or 0.
 */
static int candidates(struct update *u)
{
	const struct ftrace_ops *op = u->op;
	const struct ftrace_hash *sets[4] = { op ? op->filter_hash : NULL, op ? op->applied_filter_hash : NULL,
					      op ? op->notrace_hash : NULL, op ? op->applied_notrace_hash : NULL };
	/* A registration counts the filter in (applied NULL): judge by what
	 * the live state uses. */
	bool was = op && op->applied, is = op && (op->flags & FTRACE_OPS_FL_ENABLED);
	bool all = !op || (is && hash_empty(sets[0])) || (was && hash_empty(sets[1]));
	unsigned nsets = 0;
	uint64_t cap = 0;
	for (int k = 0; k < 4 && !all; k++) {
		bool dup = false;
		for (int j = 0; j < k; j++)
			dup |= sets[j] == sets[k];
		if (hash_empty(sets[k]) || dup) {
			sets[k] = NULL;          /* the same hash twice counts once */
			continue;
		}
		cap += sets[k]->count;
		u->only = nsets++ ? NULL : sets[k];
	}
	u->cap = all || cap > ftrace_nrecs ? ftrace_nrecs : (unsigned)cap;
	/* Sorted: every index is below the last one, which is checked. */
	bool listed = u->only && hash_recs_all(u->only) && u->only->sorted &&
		      hash_recs(u->only)[u->only->nrecs - 1] < ftrace_nrecs;
	unsigned words = all || listed ? 0 : (ftrace_nrecs + 63) / 64;
	size_t bytes = update_bytes(words, u->cap);
	char *mem = malloc(bytes);
	u->mem = mem;
	if (!mem && removal(op) && reserve && bytes <= reserve_bytes)
		mem = reserve;
	if (!mem)
		return -ENOMEM;
	u->batch = (struct patch_site *)(mem + words * sizeof(uint64_t));
	u->ch = (struct rec_change *)(u->batch + (u->cap ? u->cap : 1) + ftrace_nsleds);
	if (listed) {
		u->list = hash_recs(u->only);
		u->nlisted = u->only->nrecs;
	} else if (words) {
		u->map = (uint64_t *)mem;
		memset(u->map, 0, words * sizeof(uint64_t));
		for (int k = 0; k < 4; k++)
			if (sets[k])
				map_hash(u->map, sets[k]);
	}
	return 0;
}

static void update_free(struct update *u)
{
	free(u->mem);                    /* NULL when the reserve served */
}

/* An ops other than the changed one whose sites are as its hashes say:
 * what the last update applied is what it holds now. */
static bool settled(const struct ftrace_ops *p)
{
	bool live = (p->flags & FTRACE_OPS_FL_ENABLED) != 0;
	return p->applied == live &&
	       (!live || (p->applied_filter_hash == p->filter_hash && p->applied_notrace_hash == p->notrace_hash));
}

/*
 * The shortcut.  When every other ops is settled, only op's attachment
 * differs between a candidate's old and new state.  Then a candidate that
 * op neither joins nor leaves does not change at all, and one whose stored
 * flags say "nothing attached" (op joins) or "op alone" (op leaves) goes
 * between those two states, which are the same for every such record:
 * computed here once (f1, t1, d1) instead of by want_of() per record.
 * Any other record (shared with other ops, or in an unexpected state) takes
 * the general path, which derives both states from every ops' hashes.
 *
 * u->is / u->was: when every candidate lies in one hash (u->only), which is
 * then op's filter (a non-empty filter, or the map would be NULL) and maybe
 * its notrace, op's attachment is the same for every candidate and needs no
 * probe.
 */
static void fast_setup(struct update *u)
{
	const struct ftrace_ops *op = u->op;
	u->fast = op != NULL;
	for (const struct ftrace_ops *p = ftrace_ops_list; p && u->fast; p = p->next)
		u->fast = p == op || settled(p);
	if (!u->fast)
		return;
	struct site_want w = { 0 };
	if (op->flags & FTRACE_OPS_FL_DIRECT) {
		w.direct = op->direct;
	} else {
		w.count = 1;
		w.single = (struct ftrace_ops *)op;
		w.regs = (op->flags & FTRACE_OPS_FL_SAVE_REGS) != 0;
	}
	uint32_t f = flags_of(&w);
	u->f1 = stored_flags(f);
	u->t1 = target_of(f, &w);
	u->data1 = reads_data(f);
	u->d1 = data_of(f, &w);
	u->d0 = data_of(0, &w);
	u->list1 = calls_list(f);
	bool is = (op->flags & FTRACE_OPS_FL_ENABLED) != 0, was = op->applied;
	u->is = !is ? 0 : u->only ? op->notrace_hash != u->only : -1;
	u->was = !was ? 0 : u->only ? op->applied_notrace_hash != u->only : -1;
}

/* Refuse the site at ip (the scan stops; nothing is written). */
static __attribute__((noinline, cold)) void refuse(struct update *u, uintptr_t ip, int why,
						   uintptr_t target)
{
	u->refused = ip;
	u->why = why;
	u->unreached = target;
}

/*
 * The checks patch_apply_checked() requires of a site the update changes
 * from target ot to nt, its data word to be od now (data_of of the state
 * the record says the site is in): the bytes first (an altered site is
 * refused whatever its new target), then the word, then the reach.  true:
 * the site may be written.
 */
static inline __attribute__((always_inline)) bool site_ok(struct update *u, uintptr_t ip,
							  uintptr_t ot, uintptr_t nt, uintptr_t od)
{
	if (!arch_site_holds(ip, ot))
		refuse(u, ip, REFUSED_BYTES, 0);
	else if (ARCH_SITE_HAS_DATA && arch_site_read_data(ip) != od)
		refuse(u, ip, REFUSED_DATA, 0);
	else if (!arch_site_reaches(ip, nt))
		refuse(u, ip, REFUSED_REACH, nt);
	else
		return true;
	return false;
}

/* Record i by the general path: both states from every ops' hashes.  Its
 * site is checked as patch_apply_checked() requires (u->refused). */
static __attribute__((noinline)) void update_general(struct update *u, unsigned i)
{
	const struct ftrace_rec *r = &ftrace_recs[i];
	uintptr_t ip = rec_ip(r);
	struct site_want now, before;
	want_of(ip, &now, false);
	want_of(ip, &before, true);
	uint32_t nf = flags_of(&now), sf = stored_flags(nf), of = enabled_as_wanted(r->flags);
	uintptr_t ot = target_of(of, &before), od = data_of(of, &before);
	uintptr_t nt = target_of(nf & ~FREC_REF_MASK, &now), nd = data_of(nf, &now);
	if (calls_list(nf) || calls_list(r->flags)) {
		u->nlist += (int)calls_list(nf) - (int)calls_list(r->flags);
		u->list_changed = true;      /* (its ops may differ, too) */
	}
	if (ot != nt || od != nd) {
		if (!site_ok(u, ip, ot, nt, od))
			return;
		u->batch[u->n++] = (struct patch_site){ ip, ot, nt, od, nd };
	}
	if (sf != r->flags) {
		u->ch[u->nch++] = (struct rec_change){ i, sf };
		u->nch_general++;
	}
}

/*
 * The scans: every candidate in record order (so the batch is sorted by
 * address).  Their loops are the update's cost per record, so their state
 * stays in locals (registers; `u` escapes to update_general(), so its
 * fields would be reloaded at every record); a record the shortcut does
 * not settle goes to update_general() with u's cursors brought up to date
 * around the call.  The candidates come from u->list, or the set bits of
 * u->map, or are every record.
 */
struct scan_cursor {
	struct patch_site *s;            /* next batch entry */
	struct rec_change *c;            /* next flag change */
	unsigned moved;                  /* records the shortcut took */
	int joined;                      /* ... those op joined minus those it left */
};

/* false: the site was refused (u->refused), the scan stops. */
static inline __attribute__((always_inline)) bool scan_general(struct update *u, unsigned i,
							       struct scan_cursor *k)
{
	u->n = (unsigned)(k->s - u->batch);
	u->nch = (unsigned)(k->c - u->ch);
	update_general(u, i);
	k->s = u->batch + u->n;
	k->c = u->ch + u->nch;
	return !u->refused;
}

/* The candidate bits of map word w (map NULL: every record). */
static inline __attribute__((always_inline)) uint64_t scan_word(const uint64_t *map, unsigned w,
								unsigned words, unsigned nrecs)
{
	uint64_t bits = map ? map[w] : ~0ull;
	if (w == words - 1 && (nrecs % 64))
		bits &= (1ull << (nrecs % 64)) - 1;
	return bits;
}

/*
 * The common case, op's attachment known and the same for every candidate
 * (u->is != u->was): op joins every candidate (`join`) or leaves every one.
 * A record whose flags are the old state's takes the shortcut, with the
 * same targets and new flags as every other: op alone's (f1, t1) on one
 * side, nothing (0, 0) on the other.  `rd`: op alone's state reads the
 * data word (u->data1): joining stores d1 in it, leaving d0 (data_of's
 * word for a site with nothing attached).  Each (join, rd) is its own loop, with
 * the constants folded in (and few enough values live to stay in
 * registers).
 *
 * Its check of a site (patch_apply_checked) is one load and one compare,
 * and one more for the data word where sites have one: t1's reach was
 * checked once for the whole table (scan_known: the records lie between
 * the first and the last, and a BL's or call's reach is an interval).
 */
struct known {
	const struct ftrace_rec *recs;   /* ftrace_recs */
	uintptr_t base;                  /* _text_start */
	uint32_t f1;                     /* u->f1, t1, d1, d0 */
	uintptr_t t1, d1, d0;
};

static inline __attribute__((always_inline)) bool known_rec(struct update *u, const struct known *kn,
							    unsigned i, struct scan_cursor *k,
							    const bool join, const bool rd)
{
	const struct ftrace_rec *r = &kn->recs[i];
	uint32_t f = r->flags;
	if (f == (join ? 0 : kn->f1)) {
		uintptr_t ip = kn->base + r->off, od = 0, nd = 0;   /* patch.h */
		uintptr_t ot = join ? 0 : kn->t1, nt = join ? kn->t1 : 0;
		/* The word the old state says (a state that does not read it
		 * holds d0, data_of). */
		uintptr_t was = rd && !join ? kn->d1 : kn->d0;
		if (arch_site_read(ip) != arch_site_word(ip, ot)) {
			refuse(u, ip, REFUSED_BYTES, 0);
			return false;
		}
		if (ARCH_SITE_HAS_DATA && arch_site_read_data(ip) != was) {
			refuse(u, ip, REFUSED_DATA, 0);
			return false;
		}
		if (rd) {                /* op alone's state reads the word */
			od = was;
			nd = join ? kn->d1 : kn->d0;
		}
		*k->s++ = (struct patch_site){ ip, ot, nt, od, nd };
		*k->c++ = (struct rec_change){ i, join ? kn->f1 : 0 };
		return true;
	}
	/* A DISABLED record is never touched. */
	return (f & FREC_DISABLED) || scan_general(u, i, k);
}

static inline __attribute__((always_inline)) void scan_known_as(struct update *u, const bool join,
								const bool rd)
{
	/* Locals: the batch stores could alias u's fields or ftrace_recs,
	 * which would then be reloaded at every record. */
	const struct known kn = { ftrace_recs, (uintptr_t)_text_start, u->f1, u->t1, u->d1, u->d0 };
	const uint64_t *map = u->map;
	const unsigned nrecs = ftrace_nrecs, words = (nrecs + 63) / 64;
	struct scan_cursor k = { u->batch, u->ch, 0, 0 };
	if (u->list) {
		for (const uint32_t *p = u->list, *end = p + u->nlisted; p < end; p++)
			if (!known_rec(u, &kn, *p, &k, join, rd))
				return;
	} else {
		for (unsigned w = 0; w < words; w++)
			for (uint64_t bits = scan_word(map, w, words, nrecs); bits; bits &= bits - 1)
				if (!known_rec(u, &kn, w * 64 + (unsigned)__builtin_ctzll(bits), &k,
					       join, rd))
					return;
	}
	u->n = (unsigned)(k.s - u->batch);
	u->nch = (unsigned)(k.c - u->ch);
}

static __attribute__((noinline)) void scan_known(struct update *u)
{
	if (u->is && u->data1)
		scan_known_as(u, true, true);
	else if (u->is)
		scan_known_as(u, true, false);
	else if (u->data1)
		scan_known_as(u, false, true);
	else
		scan_known_as(u, false, false);
	/* Every flag change not made by update_general is the shortcut's. */
	unsigned moved = u->nch - u->nch_general;
	if (u->list1 && moved) {
		u->nlist += u->is ? (int)moved : -(int)moved;
		u->list_changed = true;
	}
}

/* Any other case: op's attachment asked of its hashes per record where not
 * known (u->is, u->was < 0), or no shortcut at all (!u->fast). */
static inline __attribute__((always_inline)) bool any_rec(struct update *u, unsigned i,
							  struct scan_cursor *k)
{
	const struct ftrace_ops *op = u->op;
	const struct ftrace_rec *r = &ftrace_recs[i];
	uint32_t f = r->flags;
	uintptr_t ip = (uintptr_t)_text_start + r->off;
	if (u->fast) {
		bool is = u->is >= 0 ? u->is : ftrace_ops_wants(op->filter_hash, op->notrace_hash, ip);
		bool was = u->was >= 0 ? u->was : ftrace_ops_wants(op->applied_filter_hash, op->applied_notrace_hash, ip);
		if (is == was)
			return true;             /* the same ops before and after */
		if (f == (was ? u->f1 : 0)) {
			uintptr_t od = 0, nd = 0;        /* unchanged: patch.h */
			uintptr_t ot = was ? u->t1 : 0, nt = is ? u->t1 : 0;
			uintptr_t wd = was ? u->d1 : u->d0;   /* the word now (data_of) */
			if (!site_ok(u, ip, ot, nt, wd))
				return false;
			if (u->data1) {          /* op alone's state reads the word */
				od = wd;
				nd = is ? u->d1 : u->d0;
			}
			*k->s++ = (struct patch_site){ ip, ot, nt, od, nd };
			*k->c++ = (struct rec_change){ i, is ? u->f1 : 0 };
			k->joined += is ? 1 : -1;
			k->moved++;
			return true;
		}
	}
	return (f & FREC_DISABLED) || scan_general(u, i, k);
}

static __attribute__((noinline)) void scan_any(struct update *u)
{
	struct scan_cursor k = { u->batch, u->ch, 0, 0 };
	const unsigned nrecs = ftrace_nrecs, words = (nrecs + 63) / 64;
	if (u->list) {
		for (unsigned j = 0; j < u->nlisted; j++)
			if (!any_rec(u, u->list[j], &k))
				return;
	} else {
		for (unsigned w = 0; w < words; w++)
			for (uint64_t bits = scan_word(u->map, w, words, nrecs); bits; bits &= bits - 1)
				if (!any_rec(u, w * 64 + (unsigned)__builtin_ctzll(bits), &k))
					return;
	}
	u->n = (unsigned)(k.s - u->batch);
	u->nch = (unsigned)(k.c - u->ch);
	if (u->list1 && k.moved) {
		u->nlist += k.joined;
		u->list_changed = true;
	}
}

/* Can every site reach target?  Reach is an interval around each site, so
 * it is enough that the first and the last record's sites do. */
static bool all_reach(uintptr_t target)
{
	return !ftrace_nrecs || (arch_site_reaches(rec_ip(&ftrace_recs[0]), target) &&
				 arch_site_reaches(rec_ip(&ftrace_recs[ftrace_nrecs - 1]), target));
}

static void update_scan(struct update *u)
{
	if (u->fast && u->is >= 0 && u->was >= 0 && all_reach(u->t1)) {
		if (u->is != u->was)
			scan_known(u);
		/* else op's attachment changes nowhere, nor does anything else */
	} else {
		scan_any(u);
	}
}

/*
 * The list function's table for the new state, published before any site
 * starts calling the list function for it; the old one is freed once no
 * CPU can still be reading it (ftrace_update_commit, in the same grace period
 * as the replaced hashes).  Only a change to a list site can change the
 * table: every other record keeps its ops.
 */
static void list_table_update(const struct update *u)
{
	if (!u->list_changed)
		return;
	struct listvec *table = list_table_build(u->ch, u->nch, (unsigned)u->nlist);
	if (listvec_equal(table, ftrace_list_table_get())) {
		listvec_free(table);
		return;
	}
	/* freed by ftrace_update_commit after a grace period */
	retired_table = ftrace_list_table_swap(table);
}

/*
 * XRay (INSTR=xray): a record's exit and tail sleds go with its entry
 * sled.  Every batch entry whose function goes from calling nothing to
 * calling something, or back, brings its sleds along, between its own
 * entry and the next (the batch stays in address order: a function's
 * sleds lie between its entry and the next record's); a retarget of the
 * entry leaves them calling their handlers.  Each sled is checked first,
 * as site_ok() checks an entry (refused: u->refused is the function, the
 * update writes nothing); then the batch is spread in place from its end
 * (update_bytes gave it room for every sled).
 */
static uintptr_t sled_handler(unsigned kind)
{
	return kind == ARCH_SLED_EXIT ? (uintptr_t)__fexit__ : (uintptr_t)__ftail__;
}

/* Sleds entry s brings along: [*first, *end) (none if it stays on or off). */
static void sleds_of(const struct patch_site *s, unsigned *first, unsigned *end)
{
	*first = *end = 0;
	if (!s->old_target != !s->new_target && s->kind == ARCH_SLED_ENTRY)
		rec_sleds(rec_find(s->func), first, end);
}

static void sleds_add(struct update *u)
{
	unsigned total = u->n, first, end;
	for (unsigned i = 0; i < u->n; i++) {
		const struct patch_site *s = &u->batch[i];
		sleds_of(s, &first, &end);
		for (unsigned k = first; k < end; k++) {
			const struct ftrace_sled *d = &ftrace_sleds[k];
			uintptr_t h = sled_handler(d->kind), ip = sled_ip(d);
			/* Its way back to the function too: the handler trusts it. */
			if (!arch_sled_holds(ip, s->old_target ? h : 0, d->kind) ||
			    !arch_site_reaches(ip, h) || arch_sled_func(ip) != s->func) {
				refuse(u, s->func, REFUSED_SLED, ip);
				return;
			}
		}
		total += end - first;
	}
	for (unsigned i = u->n, j = total; i-- > 0;) {
		struct patch_site s = u->batch[i];
		sleds_of(&s, &first, &end);
		for (unsigned k = end; k-- > first;) {
			const struct ftrace_sled *d = &ftrace_sleds[k];
			uintptr_t h = sled_handler(d->kind);
			u->batch[--j] = (struct patch_site){ .func = sled_ip(d), .kind = d->kind,
							     .old_target = s.old_target ? h : 0,
							     .new_target = s.new_target ? h : 0 };
		}
		u->batch[--j] = s;
	}
	u->n = total;
}

/*
 * A site was refused; nothing is written.  A target out of the site's reach
 * is a request the site cannot carry out (register_ftrace_direct and the
 * filters refuse such a direct address first, so it takes a bug to get
 * here): the site is intact, so only this update is refused, and the caller
 * puts its state back.  Bytes or a data word other than the record's state
 * say are an impossible state: the site is marked DISABLED (never touched
 * again) and tracing is killed, with the reason.
 */
static int update_refused(const struct update *u)
{
	char why[FTRACE_ERROR_SIZE];
	struct ftrace_rec *r = rec_find(u->refused);
	if (!r)
		panic("ftrace: refused site %lx has no record", (unsigned long)u->refused);
	if (u->why == REFUSED_REACH) {
		kprintf("ftrace: update refused: site of %s at %lx cannot reach %lx (ERANGE)\n",
			rec_name(r), (unsigned long)rec_ip(r), (unsigned long)u->unreached);
		return -ERANGE;
	}
	r->flags |= FREC_DISABLED;
	if (u->why == REFUSED_SLED)
		ksnprintf(why, sizeof(why), "sled of %s at %lx holds unexpected bytes (EILSEQ)",
			  rec_name(r), (unsigned long)u->unreached);
	else
		ksnprintf(why, sizeof(why), "site of %s at %lx holds %s (EILSEQ)", rec_name(r),
			  (unsigned long)rec_ip(r),
			  u->why == REFUSED_DATA ? "an unexpected data word" : "unexpected bytes");
	ftrace_kill(why);
	return -EILSEQ;
}

int ftrace_update(const struct ftrace_ops *changed)
{
	if (!mutex_held(&ftrace_mutex))
		panic("ftrace_update without ftrace_mutex");
	if (ftrace_is_dead())
		return -ENODEV;
	struct update u = { .op = changed, .nlist = (int)list_sites };
	int err = candidates(&u);
	if (err)
		return err;
	fast_setup(&u);
	update_scan(&u);                 /* computes and checks every change */
	if (!u.refused && ftrace_nsleds)
		sleds_add(&u);
	if (u.refused) {
		err = update_refused(&u);
	} else {
		/* The batch is in address order, as patch_apply_checked (and
		 * x86-64's int3 handler, which searches it) needs: the scans
		 * visit candidates in record order, which is address order
		 * (records.c checks it at boot) — a bitmap word by word, or a
		 * hash's record list only when it is marked sorted, which
		 * hash_add_rec keeps true only while each index it appends is
		 * above the last. */
		list_table_update(&u);
		patch_apply_checked(u.batch, u.n);
		for (unsigned k = 0; k < u.nch; k++)
			ftrace_recs[u.ch[k].idx].flags = u.ch[k].flags;
		list_sites = (unsigned)u.nlist;
	}
	update_free(&u);
	return err;
}

/* After an update: the current hashes become the applied ones.  Old applied
 * hashes are returned in *garbage for freeing after a grace period. */
static void commit_applied(struct ftrace_hash **garbage, unsigned *ng)
{
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next) {
		if (op->applied_filter_hash != op->filter_hash && op->applied_filter_hash && garbage)
			garbage[(*ng)++] = op->applied_filter_hash;
		if (op->applied_notrace_hash != op->notrace_hash && op->applied_notrace_hash && garbage)
			garbage[(*ng)++] = op->applied_notrace_hash;
		op->applied_filter_hash = op->filter_hash;
		op->applied_notrace_hash = op->notrace_hash;
		op->applied = (op->flags & FTRACE_OPS_FL_ENABLED) != 0;
	}
}

/* How many hashes commit_applied() will replace. */
static unsigned garbage_count(void)
{
	unsigned n = 0;
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		n += (op->applied_filter_hash && op->applied_filter_hash != op->filter_hash) +
		     (op->applied_notrace_hash && op->applied_notrace_hash != op->notrace_hash);
	return n;
}

/*
 * Run the update and retire what it made unreachable.  ftrace_mutex held.
 * A removal (see removal()) allocates nothing that it cannot do without:
 * its block may come from the reserve, the replaced hashes (none but the
 * ops' own, usually) fit on the stack, and no list table only means the
 * full walk.  Should more hashes be replaced than the stack holds and the
 * heap have no room, they are left allocated rather than the removal
 * failed.
 */
int ftrace_update_commit(const struct ftrace_ops *changed)
{
	struct ftrace_hash *few[8], **garbage = few;
	unsigned ng = 0, need = garbage_count();
	if (need > sizeof(few) / sizeof(few[0])) {
		garbage = calloc(need, sizeof(*garbage));
		if (!garbage && !removal(changed))
			return -ENOMEM;
	}
	int err = ftrace_update(changed);
	/* Only a completed update becomes the applied state: on failure no
	 * site changed, and the caller puts its own state back. */
	if (!err)
		commit_applied(garbage, &ng);
	if (ng || retired_table) {
		tramp_synchronize();       /* no list walker still reads them */
		for (unsigned i = 0; i < ng && garbage; i++)
			hash_free(garbage[i]);
		listvec_free(retired_table);
		retired_table = NULL;
	}
	if (garbage != few)
		free(garbage);
	return err;
}
