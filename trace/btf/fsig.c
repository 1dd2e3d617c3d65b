/*
 * fsig.c — the function signature table (trace/btf/fsig.h) built from BTF
 * (trace/btf/btf.h), and its text: Linux's funcgraph-args / funcgraph-retval.
 *
 * Table: one allocation holding the header, the struct fsig array sorted by
 * address, every struct fsig_param, and copies of the names, so that the
 * blob it came from may go away.  `cur` points at the table in use; it is
 * read and replaced under fsig_lock() only, and a load builds the whole new
 * table before it takes the lock to swap it in (a rejected blob changes
 * nothing).
 *
 * Which functions get a signature: first each entry of the address table
 * loaded with the blob (btf_load_addrs: the image's btf_funcs[], for the
 * functions whose name several symbols share), its FUNC's; then every
 * other BTF FUNC with a prototype whose name is exactly one function
 * symbol of the image (fsig_port_address); a name several functions share
 * that no table entry covers is skipped and counted.
 *
 * Argument words (the entry event's: the integer argument registers,
 * x0-x7 / rdi..r9, then the stack-passed words, then by-reference
 * aggregates' words; fsig.h) map to parameters by the calling convention
 * (plan(), fsig_abi):
 *   - a parameter of at most 8 bytes that is not floating point takes the
 *     next register, or the next stack slot once they run out;
 *   - a struct/union of 9..16 bytes (and __int128) takes two registers if
 *     two are left (AAPCS64: __int128 from an even one), else it goes
 *     wholly on the stack (AAPCS64: and no register is used after it;
 *     SysV: later arguments still take the registers left);
 *   - a larger aggregate: AAPCS64 passes its address (a register or a
 *     slot) and the entry copies its words; SysV passes it in memory on the
 *     stack; either way at most FSIG_AGG_WORDS words show, then ":...";
 *   - floating point takes an FP/SIMD register (not recorded: "(float)"),
 *     or a stack slot once the eight are used.
 * The entry copies the stack and by-reference words only for the functions
 * the table's captures name (struct fsig_capture, built with the table);
 * printing stops at the first parameter whose words are not all recorded
 * and prints "..." for it, as Linux does past its recorded registers.  Not
 * told apart: aggregates with floating-point members (an HFA, an SSE-class
 * struct: taken as integer class), explicit 16-byte alignment of a struct,
 * and varargs (the "..." part of a prototype is not printed).
 * Linux prints every argument register whole; we cut an integer to its
 * type's size first (both ABIs leave the upper bits of a narrower
 * argument undefined), so an int -1 reads -1, not 4294967295.
 *
 * The kernel-only pieces (locking, symbols, fault-safe reads, the boot
 * option, where the embedded and initrd blobs are) are at the end under
 * #ifndef FSIG_HOST; the rest builds for the host tests and the fuzzer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "boot/panic.h"
#include "lib/outbuf.h"
#include "trace/btf/btf.h"
#include "trace/btf/fsig.h"

#define MAX_PARAMS  255           /* nparams is a uint8_t */
#define STR_MAX     FSIG_STR_MAX
#define WORD        8

struct fsig_table {
	size_t n;                       /* sigs[0..n), ascending ip */
	size_t ncap;                    /* caps[0..ncap), ascending ip */
	const struct fsig_capture *caps;
	uint32_t ntypes;
	unsigned ambiguous, by_addr;
	char source[24];
	uint8_t mark;                   /* its bytes' value in fsig_filter (1..255) */
	struct fsig sigs[];
	/* then the params, then caps, then the names */
};

/* Replaced under fsig_lock(); also read lock-free by the tracing callbacks
 * (fsig_capture_find), so an old table is freed only after a grace period
 * (fsig_port_retire). */
static struct fsig_table *cur;

uint8_t fsig_filter[FSIG_FILTER_SLOTS];    /* fsig.h: fsig_capture_maybe */
static uint8_t filter_mark;                /* the last table's mark, under fsig_lock() */

/* ---- BTF type -> fsig_type ---- */

static uint8_t size8(uint32_t size)
{
	return size > 255 ? 255 : (uint8_t)size;        /* only <= 16 matters */
}

static bool is_char(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf_type_by_id(b, btf_skip_modifiers(b, id));
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_INT || t->size_or_type != 1)
		return false;
	uint32_t enc = BTF_INT_ENCODING(*(const uint32_t *)btf_type_data(t));
	return (enc & BTF_INT_CHAR) || strcmp(btf_name(b, t->name_off), "char") == 0;
}

static struct fsig_type map_type(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf_type_by_id(b, btf_skip_modifiers(b, id));
	if (!t)
		return (struct fsig_type){ FSIG_VOID, 0 };
	uint32_t size = t->size_or_type;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: {
		uint32_t enc = BTF_INT_ENCODING(*(const uint32_t *)btf_type_data(t));
		if (size > WORD)
			return (struct fsig_type){ FSIG_OTHER, size8(size) };   /* __int128 */
		if (enc & BTF_INT_BOOL)
			return (struct fsig_type){ FSIG_BOOL, size8(size) };
		return (struct fsig_type){ enc & BTF_INT_SIGNED ? FSIG_INT : FSIG_UINT,
					   size8(size) };
	}
	case BTF_KIND_PTR:
		return (struct fsig_type){ is_char(b, t->size_or_type) ? FSIG_STR : FSIG_PTR, WORD };
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		return (struct fsig_type){ FSIG_ENUM, size8(size) };
	case BTF_KIND_FLOAT:
		return (struct fsig_type){ FSIG_FLOAT, size8(size) };
	case BTF_KIND_STRUCT:
		return (struct fsig_type){ FSIG_STRUCT, size8(size) };
	case BTF_KIND_UNION:
		return (struct fsig_type){ FSIG_UNION, size8(size) };
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_type_data(t);
		struct fsig_type e = map_type(b, a->type);
		uint64_t total = (uint64_t)e.size * a->nelems;
		return (struct fsig_type){ FSIG_OTHER, size8(total > 255 ? 255 : (uint32_t)total) };
	}
	default:                  /* fwd, func_proto...: nothing C passes by value */
		return (struct fsig_type){ FSIG_OTHER, 0 };
	}
}

/* ---- where each parameter's words are (the ABI, fsig_abi) ---- */

#ifndef FSIG_HOST
#include "arch/hooks.h"
struct fsig_abi fsig_abi = ARCH_FSIG_ABI;      /* arch_defs.h */
#else
struct fsig_abi fsig_abi = FSIG_ABI_AAPCS64;   /* host tests may set either */
#endif

enum { PLACE_WORDS, PLACE_FLOAT, PLACE_REF, PLACE_NONE };

/* One parameter: its words are the event's [word, word + nwords); a
 * PLACE_REF one's address is in word ptr; PLACE_NONE: not recorded. */
struct place {
	uint8_t how, word, nwords, ptr;
};

static bool is_aggregate(struct fsig_type t)
{
	return t.kind == FSIG_OTHER || t.kind == FSIG_STRUCT || t.kind == FSIG_UNION;
}

struct planner {
	const struct fsig_abi *abi;
	unsigned gpr, fpr, stack;       /* registers taken; stack words taken */
	unsigned nref;                  /* by-reference aggregates so far */
	uint8_t ref_ptr[FSIG_MAX_REFS], ref_words[FSIG_MAX_REFS];
};

/* The next integer-class word: a register while any is left, else a stack
 * slot (the event's words: registers, then stack words). */
static struct place one_word(struct planner *pl)
{
	if (pl->gpr < pl->abi->gprs)
		return (struct place){ PLACE_WORDS, (uint8_t)pl->gpr++, 1, 0 };
	return (struct place){ PLACE_WORDS, (uint8_t)(pl->abi->gprs + pl->stack++), 1, 0 };
}

/* Parameter type t by the calling convention: AAPCS64 (abi->big_byref,
 * pair_even, split_stops) or SysV x86-64 (none of them).  Integer-class
 * words only: aggregates are taken as integer class (one with floating-
 * point members, an HFA or an SSE-class struct, is not told apart). */
static struct place place_of(struct planner *pl, struct fsig_type t)
{
	const struct fsig_abi *abi = pl->abi;
	if (t.kind == FSIG_FLOAT) {
		/* In an FP/SIMD register, or on the stack once they run out
		 * (its slot still counts for what follows). */
		if (pl->fpr < abi->fprs)
			pl->fpr++;
		else
			pl->stack += t.size > WORD ? 2 : 1;
		return (struct place){ PLACE_FLOAT, 0, 0, 0 };
	}
	if (is_aggregate(t) && t.size > 2 * WORD) {
		unsigned n = (t.size + WORD - 1) / WORD;
		unsigned show = n < FSIG_AGG_WORDS ? n : FSIG_AGG_WORDS;
		if (abi->big_byref) {           /* its address, in a register or a slot */
			struct place ptr = one_word(pl);
			if (pl->nref == FSIG_MAX_REFS)
				return (struct place){ PLACE_NONE, 0, 0, 0 };
			pl->ref_ptr[pl->nref] = ptr.word;
			pl->ref_words[pl->nref++] = (uint8_t)show;
			return (struct place){ PLACE_REF, 0, (uint8_t)show, ptr.word };
		}
		struct place p = { PLACE_WORDS, (uint8_t)(abi->gprs + pl->stack), (uint8_t)show, 0 };
		pl->stack += n;                 /* in memory, on the stack */
		return p;
	}
	if (is_aggregate(t) && t.size > WORD) {
		bool align16 = t.kind == FSIG_OTHER && t.size == 2 * WORD;   /* __int128 */
		if (abi->pair_even && align16)
			pl->gpr += pl->gpr & 1;
		if (pl->gpr + 2 <= abi->gprs) {
			pl->gpr += 2;
			return (struct place){ PLACE_WORDS, (uint8_t)(pl->gpr - 2), 2, 0 };
		}
		if (abi->split_stops)
			pl->gpr = abi->gprs;
		if (align16)
			pl->stack += pl->stack & 1;
		pl->stack += 2;                 /* wholly on the stack */
		return (struct place){ PLACE_WORDS, (uint8_t)(abi->gprs + pl->stack - 2), 2, 0 };
	}
	return one_word(pl);
}

/* Every parameter's place (out[0..s->nparams)), the stack words the call
 * used and the by-reference aggregates; what lies past FSIG_MAX_WORDS
 * event words is PLACE_NONE.  Ref contents follow the stack words. */
static void plan(const struct fsig *s, const struct fsig_abi *abi, struct place *out,
		 struct planner *pl)
{
	*pl = (struct planner){ .abi = abi };
	for (unsigned i = 0; i < s->nparams; i++)
		out[i] = place_of(pl, s->params[i].type);
	unsigned base = abi->gprs + pl->stack, at = 0;
	for (unsigned i = 0; i < s->nparams; i++) {
		struct place *p = &out[i];
		if (p->how == PLACE_REF) {
			p->word = (uint8_t)(base + at < 255 ? base + at : 255);
			at += p->nwords;
		}
		if (p->how != PLACE_FLOAT && p->word + p->nwords > FSIG_MAX_WORDS)
			p->how = PLACE_NONE;
	}
}

/* Parameters before a trailing "..." (capped). */
static unsigned proto_params(const struct btf_type *proto)
{
	unsigned n = BTF_INFO_VLEN(proto->info);
	const struct btf_param *p = btf_type_data(proto);
	if (n && p[n - 1].type == 0)
		n--;
	return n > MAX_PARAMS ? MAX_PARAMS : n;
}

/* ---- building a table ---- */

struct build {
	const struct btf *b;
	const struct btf_func_addr *addrs;   /* the address table, ascending ip */
	size_t naddrs;
	size_t n, nparams, names, ncap; /* what the table will hold */
	unsigned ambiguous, by_addr;
	struct fsig_table *t;           /* pass 2 only */
	struct fsig_param *params;
	struct fsig_capture *cap;
	char *strs;
};

/* What the entry copies for s besides its registers; false if nothing. */
static bool capture_of(const struct fsig *s, struct fsig_capture *c)
{
	struct place pl[MAX_PARAMS];
	struct planner p;
	plan(s, &fsig_abi, pl, &p);
	*c = (struct fsig_capture){ .ip = s->ip };
	for (unsigned i = 0; i < s->nparams; i++)
		if (s->params[i].type.kind == FSIG_STR && pl[i].how == PLACE_WORDS)
			c->strs |= 1u << pl[i].word;
	unsigned room = FSIG_MAX_WORDS - fsig_abi.gprs;
	c->nstack = (uint8_t)(p.stack < room ? p.stack : room);
	room -= c->nstack;
	for (unsigned k = 0; k < p.nref && p.ref_words[k] <= room; k++) {
		c->ref_ptr[c->nref] = p.ref_ptr[k];
		c->ref_words[c->nref++] = p.ref_words[k];
		room -= p.ref_words[k];
	}
	return c->strs || c->nstack || c->nref;
}

static const char *copy_name(struct build *bd, const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = bd->strs;
	memcpy(d, s, len);
	bd->strs += len;
	return d;
}

/* FUNC f's signature at ip: pass 1 (bd->t NULL) counts it, pass 2 fills it. */
static void add_sig(struct build *bd, const struct btf_type *f, uintptr_t ip)
{
	const struct btf *b = bd->b;
	const char *name = btf_name(b, f->name_off);
	const struct btf_type *proto = btf_type_by_id(b, f->size_or_type);
	const struct btf_param *bp = btf_type_data(proto);
	unsigned np = proto_params(proto);
	if (!bd->t) {
		bd->n++;
		bd->ncap++;       /* at most one each; counted exactly in pass 2 */
		bd->nparams += np;
		bd->names += strlen(name) + 1;
		for (unsigned i = 0; i < np; i++)
			bd->names += strlen(btf_name(b, bp[i].name_off)) + 1;
		return;
	}
	struct fsig *s = &bd->t->sigs[bd->t->n++];
	s->ip = ip;
	s->name = copy_name(bd, name);
	s->nparams = (uint8_t)np;
	s->ret = map_type(b, proto->size_or_type);
	s->params = bd->params;
	for (unsigned i = 0; i < np; i++, bd->params++) {
		bd->params->name = copy_name(bd, btf_name(b, bp[i].name_off));
		bd->params->type = map_type(b, bp[i].type);
	}
	if (capture_of(s, bd->cap))
		bd->cap++;
}

/* The FUNC the address table gives for ip, or NULL. */
static const struct btf_type *table_func(const struct build *bd, const struct btf_func_addr *e)
{
	if (e->id == 0 || e->id > bd->b->ntypes)
		return NULL;
	const struct btf_type *f = btf_type_by_id(bd->b, e->id);
	return BTF_INFO_KIND(f->info) == BTF_KIND_FUNC ? f : NULL;
}

static bool table_has_ip(const struct build *bd, uintptr_t ip)
{
	size_t lo = 0, hi = bd->naddrs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bd->addrs[mid].ip == ip)
			return table_func(bd, &bd->addrs[mid]) != NULL;
		if (bd->addrs[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool table_has_id(const struct build *bd, uint32_t id)
{
	for (size_t i = 0; i < bd->naddrs; i++)
		if (bd->addrs[i].id == id)
			return true;
	return false;
}

/* Pass 1 (bd->t NULL): count what fits; pass 2: fill.  The address table
 * first, then the FUNCs by name. */
static void walk_funcs(struct build *bd)
{
	const struct btf *b = bd->b;
	for (size_t i = 0; i < bd->naddrs; i++) {
		const struct btf_type *f = table_func(bd, &bd->addrs[i]);
		if (f) {
			add_sig(bd, f, (uintptr_t)bd->addrs[i].ip);
			if (!bd->t)
				bd->by_addr++;
		}
	}
	for (uint32_t id = 1; id <= b->ntypes; id++) {
		const struct btf_type *f = btf_type_by_id(b, id);
		if (BTF_INFO_KIND(f->info) != BTF_KIND_FUNC)
			continue;
		const char *name = btf_name(b, f->name_off);
		uintptr_t ip;
		int rc = *name ? fsig_port_address(name, &ip) : -ENOENT;
		if (rc == -EEXIST && !bd->t && !table_has_id(bd, id))
			bd->ambiguous++;
		if (rc || table_has_ip(bd, ip))
			continue;
		add_sig(bd, f, ip);
	}
}

static int cap_by_ip(const void *a, const void *b)
{
	uintptr_t x = ((const struct fsig_capture *)a)->ip;
	uintptr_t y = ((const struct fsig_capture *)b)->ip;
	return x < y ? -1 : x > y;
}

static const struct fsig *fsig_find_in(const struct fsig_table *t, uintptr_t ip);

static int by_ip(const void *a, const void *b)
{
	uintptr_t x = ((const struct fsig *)a)->ip, y = ((const struct fsig *)b)->ip;
	return x < y ? -1 : x > y;
}

static struct fsig_table *build_table(const struct btf *b, const struct btf_func_addr *addrs,
				      size_t naddrs)
{
	struct build bd = { .b = b, .addrs = addrs, .naddrs = naddrs };
	walk_funcs(&bd);
	size_t size = sizeof(struct fsig_table) + bd.n * sizeof(struct fsig) +
		      bd.nparams * sizeof(struct fsig_param) +
		      bd.ncap * sizeof(struct fsig_capture) + bd.names;
	struct fsig_table *t = malloc(size);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->ntypes = b->ntypes;
	t->ambiguous = bd.ambiguous;
	t->by_addr = bd.by_addr;
	bd.t = t;
	bd.params = (struct fsig_param *)(t->sigs + bd.n);
	struct fsig_capture *caps = (struct fsig_capture *)(bd.params + bd.nparams);
	bd.cap = caps;
	bd.strs = (char *)(caps + bd.ncap);
	walk_funcs(&bd);
	qsort(t->sigs, t->n, sizeof(t->sigs[0]), by_ip);
	/* Two FUNCs at one address (a name encoded twice, a table entry
	 * repeated): keep one. */
	size_t w = 0;
	for (size_t r = 0; r < t->n; r++)
		if (w == 0 || t->sigs[r].ip != t->sigs[w - 1].ip)
			t->sigs[w++] = t->sigs[r];
	t->n = w;
	/* The same for the captures, made again from the sigs kept. */
	size_t ncap = (size_t)(bd.cap - caps);
	qsort(caps, ncap, sizeof(caps[0]), cap_by_ip);
	w = 0;
	for (size_t r = 0; r < ncap; r++)
		if (w == 0 || caps[r].ip != caps[w - 1].ip)
			caps[w++] = caps[r];
	for (size_t r = 0; r < w; r++)
		capture_of(fsig_find_in(t, caps[r].ip), &caps[r]);
	t->caps = caps;
	t->ncap = w;
	return t;
}

/* Under fsig_lock(): t's functions with stack or by-reference words get
 * their bytes in fsig_filter (a new mark, 1..255: the bytes of older
 * tables keep theirs until filter_sweep), before t is published. */
static void filter_mark_table(struct fsig_table *t)
{
	filter_mark = (uint8_t)(filter_mark % 255 + 1);
	t->mark = filter_mark;
	for (size_t r = 0; r < t->ncap; r++)
		if (t->caps[r].nstack || t->caps[r].nref)
			__atomic_store_n(&fsig_filter[fsig_filter_slot(t->caps[r].ip)], t->mark,
					 __ATOMIC_RELAXED);
}

/* Under fsig_lock(), once no reader can hold an older table: clear every
 * byte but mark's (0: every byte; a byte of an older table that bears
 * the same mark after 255 loads stays, a look-up for nothing). */
static void filter_sweep(uint8_t mark)
{
	for (size_t i = 0; i < FSIG_FILTER_SLOTS; i++)
		if (fsig_filter[i] && fsig_filter[i] != mark)
			__atomic_store_n(&fsig_filter[i], 0, __ATOMIC_RELAXED);
}

/* ---- load / unload / status ---- */

static void log_line(const char *fmt, const char *source, const char *reason)
{
	char line[BTF_ERR_SIZE + 64];
	ksnprintf(line, sizeof(line), fmt, source, reason);
	fsig_port_log(line);
}

int btf_load(const void *blob, size_t size, const char *source)
{
	return btf_load_addrs(blob, size, source, NULL, NULL, 0);
}

int btf_load_as(const void *blob, size_t size, const char *source, const struct btf_ident *want)
{
	return btf_load_addrs(blob, size, source, want, NULL, 0);
}

/* Parse first, so that a malformed blob is reported as such; the identity
 * check is for blobs that are well-formed but not this image's. */
int btf_load_addrs(const void *blob, size_t size, const char *source,
		   const struct btf_ident *want, const struct btf_func_addr *addrs, size_t naddrs)
{
	struct btf b;
	char err[BTF_ERR_SIZE];
	int rc = btf_parse(&b, blob, size, err, sizeof(err));
	if (rc) {
		log_line("btf: %s: rejected: %s", source, err);
		return rc;
	}
	uint32_t crc = want ? btf_crc32(blob, size) : 0;
	if (want && (size != want->size || crc != want->crc)) {
		btf_release(&b);
		ksnprintf(err, sizeof(err),
			  "not this image's BTF (%zu bytes, CRC-32 0x%08x; the image's: %llu bytes, "
			  "CRC-32 0x%08x)", size, (unsigned)crc, (unsigned long long)want->size,
			  (unsigned)want->crc);
		log_line("btf: %s: rejected: %s", source, err);
		return -EINVAL;
	}
	struct fsig_table *t = build_table(&b, addrs, naddrs);
	btf_release(&b);
	if (!t) {
		log_line("btf: %s: rejected: %s", source, "out of memory for the signature table");
		return -ENOMEM;
	}
	ksnprintf(t->source, sizeof(t->source), "%s", source);
	char line[192];
	ksnprintf(line, sizeof(line),
		  "btf: %s: %u types, %zu functions with signatures (%u by address, "
		  "%u ambiguous names skipped)", source, t->ntypes, t->n, t->by_addr, t->ambiguous);
	fsig_port_log(line);

	fsig_lock();
	struct fsig_table *old = cur;
	filter_mark_table(t);              /* old's bytes and t's, then t's */
	__atomic_store_n(&cur, t, __ATOMIC_RELEASE);
	fsig_unlock();
	fsig_port_retire(old);
	fsig_lock();
	if (cur == t)
		filter_sweep(t->mark);
	fsig_unlock();
	return 0;
}

void btf_unload(void)
{
	fsig_lock();
	struct fsig_table *old = cur;
	__atomic_store_n(&cur, NULL, __ATOMIC_RELEASE);
	filter_sweep(0);
	fsig_unlock();
	fsig_port_retire(old);
}

void btf_status(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[96];
	fsig_lock();
	if (cur)
		ksnprintf(line, sizeof(line), "%s: %u types, %zu functions", cur->source,
			  cur->ntypes, cur->n);
	else
		ksnprintf(line, sizeof(line), "none");
	fsig_unlock();
	out(ctx, line);
}

const struct fsig *fsig_find(uintptr_t ip)
{
	return fsig_find_in(cur, ip);
}

static const struct fsig *fsig_find_in(const struct fsig_table *t, uintptr_t ip)
{
	if (!t)
		return NULL;
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->sigs[mid].ip == ip)
			return &t->sigs[mid];
		if (t->sigs[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct fsig_capture *fsig_capture_find(uintptr_t ip)
{
	/* ACQUIRE: pairs with the loader's RELEASE, the table is complete. */
	const struct fsig_table *t = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	if (!t)
		return NULL;
	size_t lo = 0, hi = t->ncap;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t at = t->caps[mid].ip;
		if (at == ip)
			return &t->caps[mid];
		if (at < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

uint32_t fsig_str_words(uintptr_t ip)
{
	const struct fsig_capture *c = fsig_capture_find(ip);
	return c ? c->strs : 0;
}

unsigned fsig_capture_words(const struct fsig_capture *c, uint64_t *words, uintptr_t sp)
{
	unsigned n = fsig_abi.gprs;
	if (c->nstack) {
		if (!fsig_port_ram(sp, (size_t)c->nstack * WORD))
			return n;
		for (unsigned i = 0; i < c->nstack; i++)
			words[n++] = ((const volatile uint64_t *)sp)[i];
	}
	for (unsigned k = 0; k < c->nref; k++) {
		uintptr_t p = (uintptr_t)words[c->ref_ptr[k]];
		if (c->ref_ptr[k] >= n || !fsig_port_ram(p, (size_t)c->ref_words[k] * WORD))
			return n;               /* its words and what follows: not recorded */
		for (unsigned i = 0; i < c->ref_words[k]; i++)
			words[n++] = ((const volatile uint64_t *)p)[i];
	}
	return n;
}

size_t fsig_capture_strs(uint8_t *dst, uint32_t mask, const uint64_t *words, unsigned nwords)
{
	size_t n = 0;
	if (nwords < 32)
		mask &= (1u << nwords) - 1;
	for (unsigned k = 0; mask && k < FSIG_MAX_STRS; mask &= mask - 1, k++) {
		unsigned w = (unsigned)__builtin_ctz(mask);
		size_t len = 0;
		char *text = (char *)dst + n + 2;
		if (fsig_port_read_str(text, (uintptr_t)words[w], STR_MAX, &len) != 0 ||
		    len > STR_MAX)
			continue;                 /* not readable: printed as the pointer */
		bool cut_off = len == 0 || text[len - 1] != '\0';
		if (!cut_off)
			len--;                    /* the NUL is not kept */
		dst[n] = (uint8_t)w;
		dst[n + 1] = (uint8_t)(len | (cut_off ? FSIG_STR_CUT : 0));
		n += 2 + len;
	}
	return n;
}

bool fsig_loaded(void)
{
	return __atomic_load_n(&cur, __ATOMIC_RELAXED) != NULL;
}

/* ---- text ---- */

static void put_hex(struct outbuf *o, uint64_t v)
{
	char d[16];
	int n = 0;
	do
		d[n++] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	outbuf_puts(o, "0x");
	while (n)
		outbuf_putc(o, d[--n]);
}

static void put_dec(struct outbuf *o, int64_t sv)
{
	char d[20];
	int n = 0;
	uint64_t v = sv < 0 ? -(uint64_t)sv : (uint64_t)sv;
	if (sv < 0)
		outbuf_putc(o, '-');
	do
		d[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		outbuf_putc(o, d[--n]);
}

static uint64_t cut(uint64_t v, unsigned size)
{
	return size && size < WORD ? v & ((1ull << (size * 8)) - 1) : v;
}

static int64_t cut_signed(uint64_t v, unsigned size)
{
	if (!size || size >= WORD)
		return (int64_t)v;
	unsigned shift = 64 - size * 8;
	return (int64_t)(v << shift) >> shift;
}

/* The captured string of argument word w (fsig_capture_strs' records), or
 * NULL; *len its bytes, *cut_off whether it went on past them. */
static const uint8_t *find_str(const uint8_t *strs, size_t n, unsigned w, size_t *len,
			       bool *cut_off)
{
	size_t at = 0;
	while (at + 2 <= n) {
		size_t l = strs[at + 1] & ~FSIG_STR_CUT;
		if (at + 2 + l > n)
			break;                    /* a record cut short: not ours */
		if (strs[at] == w) {
			*len = l;
			*cut_off = (strs[at + 1] & FSIG_STR_CUT) != 0;
			return strs + at + 2;
		}
		at += 2 + l;
	}
	return NULL;
}

/* `"text"`, `...` after it if the string went on; non-printables, `"` and
 * `\` as \xNN. */
static void put_str(struct outbuf *o, const uint8_t *text, size_t len, bool cut_off)
{
	outbuf_putc(o, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = text[i];
		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
			outbuf_puts(o, "\\x");
			outbuf_putc(o, "0123456789abcdef"[c >> 4]);
			outbuf_putc(o, "0123456789abcdef"[c & 15]);
		} else {
			outbuf_putc(o, (char)c);
		}
	}
	outbuf_putc(o, '"');
	if (cut_off)
		outbuf_puts(o, "...");
}


struct strs {
	const uint8_t *p;
	size_t n;
};

static void put_value(struct outbuf *o, struct fsig_type t, const uint64_t *w, unsigned word,
		      unsigned nwords, const struct strs *strs)
{
	switch (t.kind) {
	case FSIG_INT: case FSIG_ENUM:
		put_dec(o, cut_signed(w[0], t.size));
		break;
	case FSIG_UINT: case FSIG_BOOL:           /* Linux: not BTF_INT_SIGNED, hex */
		put_hex(o, cut(w[0], t.size));
		break;
	case FSIG_STR: {
		size_t len;
		bool cut_off;
		const uint8_t *text = find_str(strs->p, strs->n, word, &len, &cut_off);
		if (text)
			put_str(o, text, len, cut_off);
		else
			put_hex(o, w[0]);
		break;
	}
	case FSIG_FLOAT:
		outbuf_puts(o, "(float)");
		break;
	case FSIG_STRUCT: case FSIG_UNION: case FSIG_OTHER:
		/* Linux's raw form for aggregates: (KIND)[w0:w1], KIND its
		 * BTF kind's name; OTHER (__int128...) has no such name. */
		if (t.kind != FSIG_OTHER)
			outbuf_puts(o, t.kind == FSIG_STRUCT ? "(STRUCT)" : "(UNION)");
		outbuf_putc(o, '[');
		put_hex(o, t.size <= WORD ? cut(w[0], t.size) : w[0]);
		for (unsigned i = 1; i < nwords; i++) {
			outbuf_putc(o, ':');
			put_hex(o, w[i]);
		}
		if (t.size > nwords * WORD)     /* more than FSIG_AGG_WORDS shown */
			outbuf_puts(o, ":...");
		outbuf_putc(o, ']');
		break;
	default:                  /* FSIG_PTR */
		put_hex(o, w[0]);
		break;
	}
}

size_t fsig_format_args(char *buf, size_t size, const struct fsig *s, const uint64_t *words,
			unsigned nwords, const uint8_t *strs, size_t strs_len)
{
	struct outbuf o = { buf, size, 0 };
	struct strs st = { strs, strs ? strs_len : 0 };
	if (!s) {
		for (unsigned i = 0; i < nwords; i++) {
			if (i)
				outbuf_puts(&o, ", ");
			put_hex(&o, words[i]);
		}
		return outbuf_end(&o);
	}
	struct place pl[MAX_PARAMS];
	struct planner planner;
	plan(s, &fsig_abi, pl, &planner);
	for (unsigned i = 0; i < s->nparams; i++) {
		const struct fsig_param *p = &s->params[i];
		struct place at = pl[i];
		if (i)
			outbuf_puts(&o, ", ");
		if (at.how == PLACE_NONE ||
		    (at.how != PLACE_FLOAT && (unsigned)at.word + at.nwords > nwords)) {
			outbuf_puts(&o, "...");
			break;
		}
		if (p->name[0]) {
			outbuf_puts(&o, p->name);
			outbuf_putc(&o, '=');
		}
		put_value(&o, p->type, words + at.word, at.word, at.nwords, &st);
	}
	return outbuf_end(&o);
}

size_t fsig_format_ret(char *buf, size_t size, const struct fsig *s, uint64_t raw, bool hex)
{
	struct outbuf o = { buf, size, 0 };
	if (s && s->ret.kind == FSIG_VOID)
		return outbuf_end(&o);
	outbuf_puts(&o, "ret=");
	if (!s) {
		/* Linux's guess for an untyped register: a set bit 31 with
		 * the upper half clear is an int, sign-extended. */
		int64_t v = (raw >> 31) == 1 ? (int64_t)(int32_t)(uint32_t)raw : (int64_t)raw;
		if (!hex && v >= -4095 && v <= -1)
			put_dec(&o, v);
		else
			put_hex(&o, raw);
		return outbuf_end(&o);
	}
	struct fsig_type t = s->ret;
	if (t.kind == FSIG_FLOAT) {
		outbuf_puts(&o, "(float)");
		return outbuf_end(&o);
	}
	bool can_err = t.kind == FSIG_INT || t.kind == FSIG_ENUM || t.size == WORD;
	int64_t sv = t.kind == FSIG_INT || t.kind == FSIG_ENUM ? cut_signed(raw, t.size)
							       : (int64_t)cut(raw, t.size);
	if (!hex && can_err && sv >= -4095 && sv <= -1)
		put_dec(&o, sv);
	else
		put_hex(&o, cut(raw, t.size));
	return outbuf_end(&o);
}

#ifndef FSIG_HOST
/* ---- the kernel's side ---- */

#include "boot/boot_info.h"
#include "boot/cmdline.h"
#include "boot/ksyms.h"
#include "boot/sched.h"
#include "patch/tramp.h"
#include "trace/tracefs/tracefs.h"

static struct mutex fsig_mutex = MUTEX_INIT;

/* During a panic nothing else runs (other CPUs are stopped) and the dump
 * may print from interrupt context, where a mutex cannot be taken. */
void fsig_lock(void)
{
	if (!panic_in_progress())
		mutex_lock(&fsig_mutex);
}

void fsig_unlock(void)
{
	if (!panic_in_progress())
		mutex_unlock(&fsig_mutex);
}

void fsig_port_log(const char *line)
{
	kprintf("%s\n", line);
}

/* ksyms' own by-name index (built with the image) answers it. */
int fsig_port_address(const char *name, uintptr_t *addr)
{
	return ksym_address_unique(name, addr);
}

/*
 * Called from the tracing callbacks (any context, preemption off): no
 * fault handler can be armed there, so nothing is read that could fault.
 * Only RAM is read (the image and the heap, mapped whole on both arches;
 * an MMIO register could have side effects on a read), and the whole range
 * read is checked, not only its start: a string that runs into the end of
 * RAM before its NUL and before max is refused, never read past it.
 */
int fsig_port_read_str(char *dst, uintptr_t src, size_t max, size_t *len)
{
	uintptr_t lo = boot_info.ram_start, hi = boot_info.heap_end;
	if (src < lo || src >= hi)
		return -EFAULT;
	size_t room = hi - src, n = 0;
	const volatile char *p = (const volatile char *)src;
	while (n < max) {
		if (n == room)
			return -EFAULT;
		char c = p[n];
		dst[n++] = c;
		if (!c)
			break;
	}
	*len = n;
	return 0;
}

bool fsig_port_ram(uintptr_t addr, size_t len)
{
	return addr >= boot_info.ram_start && addr < boot_info.heap_end &&
	       len <= boot_info.heap_end - addr;
}

/* The callbacks read the table lock-free with preemption off: once every
 * CPU has passed a quiescent state, none still does. */
void fsig_port_retire(void *old)
{
	if (!old)
		return;
	tramp_grace_period();
	free(old);
}

/* The build's records (tools/btfaddr.py): the blob's identity and the
 * address table of the functions whose name several symbols share. */
extern const char __btf_start[], __btf_end[];
extern const struct btf_ident btf_image_ident;
extern const uint64_t btf_func_count;
extern const struct btf_func_addr btf_funcs[];

int btf_load_embedded(void)
{
	size_t size = (size_t)((uintptr_t)__btf_end - (uintptr_t)__btf_start);
	if (!size) {
		kprintf("btf: embedded: none in this image\n");
		return -ENOENT;
	}
	return btf_load_addrs(__btf_start, size, "embedded", NULL, btf_funcs,
			      (size_t)btf_func_count);
}

int btf_load_initrd(void)
{
	if (!boot_info.initrd_start || !boot_info.initrd_size) {
		kprintf("btf: initrd: none (boot with QEMU's -initrd FILE)\n");
		return -ENOENT;
	}
	return btf_load_addrs((const void *)boot_info.initrd_start, boot_info.initrd_size,
			      "initrd", &btf_image_ident, btf_funcs, (size_t)btf_func_count);
}

static enum { BTF_EMBEDDED, BTF_INITRD, BTF_OFF } btf_source;

static int opt_btf(const char *v)
{
	if (v && strcmp(v, "embedded") == 0)
		btf_source = BTF_EMBEDDED;
	else if (v && strcmp(v, "initrd") == 0)
		btf_source = BTF_INITRD;
	else if (v && strcmp(v, "off") == 0)
		btf_source = BTF_OFF;
	else
		return -1;        /* cmdline reports it; the default stays */
	return 0;
}
BT_PARAM("btf", opt_btf, "function signatures: embedded (default), initrd, off");

void btf_boot_init(void)
{
	switch (btf_source) {
	case BTF_EMBEDDED: btf_load_embedded(); break;
	case BTF_INITRD: btf_load_initrd(); break;
	case BTF_OFF: kprintf("btf: off (btf=off): no function signatures\n"); break;
	}
}

/* ---- the file: btf (ours) ---- */

static int cat_btf(const char *arg)
{
	btf_status(tracefs_print_line, NULL);
	return 0;
}

/* "embedded" / "initrd" load that blob (a bad one is refused and the
 * current signatures stay); "unload" drops them. */
static int set_btf(const char *arg, const char *value, bool append)
{
	int err;
	if (!strcmp(value, "unload")) {
		btf_unload();
		return 0;
	}
	if (!strcmp(value, "embedded"))
		err = btf_load_embedded();
	else if (!strcmp(value, "initrd"))
		err = btf_load_initrd();
	else
		return tracefs_write_error(-EINVAL, "btf takes embedded, initrd or unload");
	/* The loader has said why on its line.  (Not -ENOENT back: that
	 * would read as "no such file" for btf itself.) */
	if (err == -ENOENT)
		return tracefs_write_error(-EINVAL, !strcmp(value, "initrd") ? "no initrd" : "none in this image");
	if (err == -ENOMEM)
		return tracefs_write_error(err, NULL);   /* "Cannot allocate memory" */
	return err ? tracefs_write_error(err, "blob rejected") : 0;
}

TRACEFS_FILE(210, "btf", .cat = cat_btf, .write = set_btf);
#endif
