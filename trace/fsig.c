/*
 * fsig.c — the function signature table (trace/fsig.h) built from BTF
 * (trace/btf.h), and its text: Linux's funcgraph-args / funcgraph-retval.
 *
 * Table: one allocation holding the header, the struct fsig array sorted by
 * address, every struct fsig_param, and copies of the names, so that the
 * blob it came from may go away.  `cur` points at the table in use; it is
 * read and replaced under fsig_lock() only, and a load builds the whole new
 * table before it takes the lock to swap it in (a rejected blob changes
 * nothing).
 *
 * Which functions get a signature: every BTF FUNC with a prototype whose
 * name is exactly one function symbol of the image (fsig_port_address);
 * a name several static functions share is skipped and counted.
 *
 * Argument words (the entry event's copy of the integer argument
 * registers, x0-x7 / rdi..r9) map to parameters in order:
 *   - a parameter of at most 8 bytes that is not floating point takes the
 *     next word;
 *   - a struct/union of 9..16 bytes takes two words: both ABIs (AAPCS64,
 *     SysV x86-64) pass such an integer-class aggregate in two registers
 *     (or, if only one is left, wholly on the stack: then we stop);
 *   - a larger aggregate takes one word, as AAPCS64 passes it: by
 *     reference.  SysV x86-64 passes it on the stack instead, taking no
 *     register, so on x86-64 the words after one are misattributed; such
 *     parameters are rare in this kernel, and the raw value printed for it
 *     is bracketed ("(STRUCT)[0x...]") so it is not mistaken for a scalar;
 *   - floating point takes no integer word and prints as "(float)".
 * Printing stops at the first parameter whose words are not all recorded
 * and prints "..." for it, as Linux does past its recorded registers (a
 * two-word aggregate with one register left goes wholly on the stack, so
 * it gets "..." too, where Linux would print the stray register).
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
#include "trace/btf.h"
#include "trace/fsig.h"

#define MAX_PARAMS  255           /* nparams is a uint8_t */
#define STR_MAX     FSIG_STR_MAX
#define WORD        8

/* A function with char * parameters: which argument words hold them. */
struct fsig_strword {
	uintptr_t ip;
	uint32_t mask;                  /* bit w: argument word w is a char * */
};

struct fsig_table {
	size_t n;                       /* sigs[0..n), ascending ip */
	size_t nstr;                    /* strs[0..nstr), ascending ip */
	const struct fsig_strword *strs;
	uint32_t ntypes;
	unsigned ambiguous;
	char source[24];
	struct fsig sigs[];
	/* then the params, then strs, then the names */
};

/* Replaced under fsig_lock(); also read lock-free by the tracing callbacks
 * (fsig_str_words), so an old table is freed only after a grace period
 * (fsig_port_retire). */
static struct fsig_table *cur;

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
	size_t n, nparams, names, nstr; /* what the table will hold */
	unsigned ambiguous;
	struct fsig_table *t;           /* pass 2 only */
	struct fsig_param *params;
	struct fsig_strword *strword;
	char *strs;
};

static unsigned words_for(struct fsig_type t);

/* Argument words of s's char * parameters, as fsig_format_args maps them. */
static uint32_t str_mask(const struct fsig *s)
{
	uint32_t mask = 0;
	unsigned w = 0;
	for (unsigned i = 0; i < s->nparams && w < 32; i++) {
		if (s->params[i].type.kind == FSIG_STR)
			mask |= 1u << w;
		w += words_for(s->params[i].type);
	}
	return mask;
}

static const char *copy_name(struct build *bd, const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = bd->strs;
	memcpy(d, s, len);
	bd->strs += len;
	return d;
}

/* Pass 1 (bd->t NULL): count what fits; pass 2: fill. */
static void walk_funcs(struct build *bd)
{
	const struct btf *b = bd->b;
	for (uint32_t id = 1; id <= b->ntypes; id++) {
		const struct btf_type *f = btf_type_by_id(b, id);
		if (BTF_INFO_KIND(f->info) != BTF_KIND_FUNC)
			continue;
		const char *name = btf_name(b, f->name_off);
		uintptr_t ip;
		int rc = *name ? fsig_port_address(name, &ip) : -ENOENT;
		if (rc == -EEXIST && !bd->t)
			bd->ambiguous++;
		if (rc)
			continue;
		const struct btf_type *proto = btf_type_by_id(b, f->size_or_type);
		const struct btf_param *bp = btf_type_data(proto);
		unsigned np = proto_params(proto);
		if (!bd->t) {
			bd->n++;
			bd->nstr++;       /* at most one each; counted exactly in pass 2 */
			bd->nparams += np;
			bd->names += strlen(name) + 1;
			for (unsigned i = 0; i < np; i++)
				bd->names += strlen(btf_name(b, bp[i].name_off)) + 1;
			continue;
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
		uint32_t mask = str_mask(s);
		if (mask)
			*bd->strword++ = (struct fsig_strword){ ip, mask };
	}
}

static int strword_by_ip(const void *a, const void *b)
{
	uintptr_t x = ((const struct fsig_strword *)a)->ip;
	uintptr_t y = ((const struct fsig_strword *)b)->ip;
	return x < y ? -1 : x > y;
}

static const struct fsig *fsig_find_in(const struct fsig_table *t, uintptr_t ip);

static int by_ip(const void *a, const void *b)
{
	uintptr_t x = ((const struct fsig *)a)->ip, y = ((const struct fsig *)b)->ip;
	return x < y ? -1 : x > y;
}

static struct fsig_table *build_table(const struct btf *b)
{
	struct build bd = { .b = b };
	walk_funcs(&bd);
	size_t size = sizeof(struct fsig_table) + bd.n * sizeof(struct fsig) +
		      bd.nparams * sizeof(struct fsig_param) +
		      bd.nstr * sizeof(struct fsig_strword) + bd.names;
	struct fsig_table *t = malloc(size);
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->ntypes = b->ntypes;
	t->ambiguous = bd.ambiguous;
	bd.t = t;
	bd.params = (struct fsig_param *)(t->sigs + bd.n);
	struct fsig_strword *strs = (struct fsig_strword *)(bd.params + bd.nparams);
	bd.strword = strs;
	bd.strs = (char *)(strs + bd.nstr);
	walk_funcs(&bd);
	qsort(t->sigs, t->n, sizeof(t->sigs[0]), by_ip);
	/* Two FUNCs at one address (a name encoded twice): keep the first. */
	size_t w = 0;
	for (size_t r = 0; r < t->n; r++)
		if (w == 0 || t->sigs[r].ip != t->sigs[w - 1].ip)
			t->sigs[w++] = t->sigs[r];
	t->n = w;
	/* The same for the string words, kept in step with the sigs kept. */
	size_t nstr = (size_t)(bd.strword - strs);
	qsort(strs, nstr, sizeof(strs[0]), strword_by_ip);
	w = 0;
	for (size_t r = 0; r < nstr; r++)
		if (w == 0 || strs[r].ip != strs[w - 1].ip)
			strs[w++] = strs[r];
	for (size_t r = 0; r < w; r++)
		strs[r].mask = str_mask(fsig_find_in(t, strs[r].ip));
	t->strs = strs;
	t->nstr = w;
	return t;
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
	return btf_load_as(blob, size, source, NULL);
}

/* Parse first, so that a malformed blob is reported as such; the identity
 * check is for blobs that are well-formed but not this image's. */
int btf_load_as(const void *blob, size_t size, const char *source, const struct btf_ident *want)
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
	struct fsig_table *t = build_table(&b);
	btf_release(&b);
	if (!t) {
		log_line("btf: %s: rejected: %s", source, "out of memory for the signature table");
		return -ENOMEM;
	}
	ksnprintf(t->source, sizeof(t->source), "%s", source);
	char line[160];
	ksnprintf(line, sizeof(line),
		  "btf: %s: %u types, %zu functions with signatures (%u ambiguous names skipped)",
		  source, t->ntypes, t->n, t->ambiguous);
	fsig_port_log(line);

	fsig_lock();
	struct fsig_table *old = cur;
	__atomic_store_n(&cur, t, __ATOMIC_RELEASE);
	fsig_unlock();
	fsig_port_retire(old);
	return 0;
}

void btf_unload(void)
{
	fsig_lock();
	struct fsig_table *old = cur;
	__atomic_store_n(&cur, NULL, __ATOMIC_RELEASE);
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

uint32_t fsig_str_words(uintptr_t ip)
{
	/* ACQUIRE: pairs with the loader's RELEASE, the table is complete. */
	const struct fsig_table *t = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	if (!t)
		return 0;
	size_t lo = 0, hi = t->nstr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t at = t->strs[mid].ip;
		if (at == ip)
			return t->strs[mid].mask;
		if (at < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

size_t fsig_capture_strs(uint8_t *dst, uint32_t mask, const uint64_t *words, unsigned nwords)
{
	size_t n = 0;
	if (nwords < 32)
		mask &= (1u << nwords) - 1;
	for (; mask; mask &= mask - 1) {
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

static bool is_aggregate(struct fsig_type t)
{
	return t.kind == FSIG_OTHER || t.kind == FSIG_STRUCT || t.kind == FSIG_UNION;
}

static unsigned words_for(struct fsig_type t)
{
	if (t.kind == FSIG_FLOAT)
		return 0;
	if (is_aggregate(t) && t.size > WORD && t.size <= 2 * WORD)
		return 2;
	return 1;
}

struct strs {
	const uint8_t *p;
	size_t n;
};

static void put_value(struct outbuf *o, struct fsig_type t, const uint64_t *w, unsigned word,
		      const struct strs *strs)
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
		for (unsigned i = 1; i < words_for(t); i++) {
			outbuf_putc(o, ':');
			put_hex(o, w[i]);
		}
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
	unsigned w = 0;
	for (unsigned i = 0; i < s->nparams; i++) {
		const struct fsig_param *p = &s->params[i];
		unsigned need = words_for(p->type);
		if (i)
			outbuf_puts(&o, ", ");
		if (need > nwords - w) {
			outbuf_puts(&o, "...");
			break;
		}
		if (p->name[0]) {
			outbuf_puts(&o, p->name);
			outbuf_putc(&o, '=');
		}
		put_value(&o, p->type, words + w, w, &st);
		w += need;
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

/* The callbacks read the table lock-free with preemption off: once every
 * CPU has passed a quiescent state, none still does. */
void fsig_port_retire(void *old)
{
	if (!old)
		return;
	tramp_grace_period();
	free(old);
}

extern const char __btf_start[], __btf_end[];
extern const struct btf_ident btf_image_ident;   /* the build's record (Makefile) */

int btf_load_embedded(void)
{
	size_t size = (size_t)((uintptr_t)__btf_end - (uintptr_t)__btf_start);
	if (!size) {
		kprintf("btf: embedded: none in this image\n");
		return -ENOENT;
	}
	return btf_load(__btf_start, size, "embedded");
}

int btf_load_initrd(void)
{
	if (!boot_info.initrd_start || !boot_info.initrd_size) {
		kprintf("btf: initrd: none (boot with QEMU's -initrd FILE)\n");
		return -ENOENT;
	}
	return btf_load_as((const void *)boot_info.initrd_start, boot_info.initrd_size, "initrd",
			   &btf_image_ident);
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
#endif
