/*
 * btf.c — the bounds-checked BTF reader (interface and rules in btf.h).
 *
 * btf_parse() works in four passes over the type section, so that nothing
 * is read before it has been checked:
 *   1. header and sections against the blob;
 *   2. walk the records: each kind known, each record (vlen array
 *      included) inside the type section; count them;
 *   3. index the records by id (the only allocation), then check every
 *      record's contents: name offsets, referenced ids, sizes;
 *   4. follow every reference chain (and array element types) with a hop
 *      bound: no cycles.
 * All arithmetic on offsets from the blob is done in 64 bits, so a huge
 * offset or length cannot wrap.  No host or kernel dependency but
 * malloc/free, memchr and ksnprintf.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "trace/btf/btf.h"

struct ctx {
	struct btf *b;
	char *err;
	size_t errsize;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (c->errsize)
		kvsnprintf(c->err, c->errsize, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Bytes of kind-specific data after the 12-byte record; -1: unknown kind. */
static long kind_extra(unsigned kind, unsigned vlen)
{
	switch (kind) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return 4;
	case BTF_KIND_DATASEC: return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return 4;
	case BTF_KIND_ENUM64: return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

static bool has_vlen(unsigned kind)
{
	return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION || kind == BTF_KIND_ENUM ||
	       kind == BTF_KIND_FUNC_PROTO || kind == BTF_KIND_DATASEC || kind == BTF_KIND_ENUM64;
}

/* Kinds whose size_or_type is a type id that a chain follows. */
static bool is_ref(unsigned kind)
{
	return kind == BTF_KIND_PTR || kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_CONST || kind == BTF_KIND_RESTRICT || kind == BTF_KIND_TYPE_TAG;
}

static bool is_modifier(unsigned kind)
{
	return is_ref(kind) && kind != BTF_KIND_PTR;
}

/* ---- pass 1: header and sections ---- */

static int check_section(struct ctx *c, const char *what, uint64_t start, uint32_t len,
			 size_t size)
{
	if (start + len > size)
		return fail(c, "%s section [%llu, %llu) runs past the end of the blob (%zu bytes)",
			    what, (unsigned long long)start, (unsigned long long)(start + len), size);
	return 0;
}

static int check_header(struct ctx *c, const uint8_t *blob, size_t size)
{
	struct btf_header h;
	if (size < sizeof(h))
		return fail(c, "truncated header: %zu bytes, need %zu", size, sizeof(h));
	if ((uintptr_t)blob % 4)
		return fail(c, "blob at %p is not 4-byte aligned", (const void *)blob);
	memcpy(&h, blob, sizeof(h));
	if (h.magic == 0x9feb)
		return fail(c, "big-endian BTF (magic bytes eb 9f) is not supported");
	if (h.magic != BTF_MAGIC)
		return fail(c, "bad magic 0x%04x (expected 0x%04x)", h.magic, BTF_MAGIC);
	if (h.version != BTF_VERSION)
		return fail(c, "unsupported version %u (expected %u)", h.version, BTF_VERSION);
	if (h.hdr_len < sizeof(h))
		return fail(c, "header length %u is shorter than %zu", h.hdr_len, sizeof(h));
	if (h.hdr_len > size)
		return fail(c, "header length %u exceeds the blob (%zu bytes)", h.hdr_len, size);

	uint64_t ts = (uint64_t)h.hdr_len + h.type_off, ss = (uint64_t)h.hdr_len + h.str_off;
	if (check_section(c, "type", ts, h.type_len, size) ||
	    check_section(c, "string", ss, h.str_len, size))
		return -EINVAL;
	if (ts % 4)
		return fail(c, "type section at offset %llu is not 4-byte aligned",
			    (unsigned long long)ts);
	if (h.type_len && h.str_len && ts < ss + h.str_len && ss < ts + h.type_len)
		return fail(c, "type and string sections overlap");
	if (h.str_len == 0 || blob[ss] != '\0')
		return fail(c, "string section does not start with the empty string");

	c->b->types = blob + ts;
	c->b->types_len = h.type_len;
	c->b->strs = (const char *)blob + ss;
	c->b->strs_len = h.str_len;
	return 0;
}

/* ---- pass 2: record sizes ---- */

static int count_types(struct ctx *c)
{
	struct btf *b = c->b;
	uint32_t pos = 0, id = 1;
	while (pos < b->types_len) {
		if (b->types_len - pos < sizeof(struct btf_type))
			return fail(c, "type %u: record runs past the end of the type section", id);
		const struct btf_type *t = (const void *)(b->types + pos);
		unsigned kind = BTF_INFO_KIND(t->info), vlen = BTF_INFO_VLEN(t->info);
		long extra = kind_extra(kind, vlen);
		if (extra < 0)
			return fail(c, "type %u: unknown kind %u", id, kind);
		if ((uint64_t)extra > b->types_len - pos - sizeof(*t)) {
			if (has_vlen(kind))
				return fail(c, "type %u: vlen %u runs past the end of the type section",
					    id, vlen);
			return fail(c, "type %u: record runs past the end of the type section", id);
		}
		pos += sizeof(*t) + (uint32_t)extra;
		id++;
	}
	b->ntypes = id - 1;
	return 0;
}

/* ---- pass 3: contents ---- */

static int check_name(struct ctx *c, uint32_t id, uint32_t off)
{
	const struct btf *b = c->b;
	if (off >= b->strs_len)
		return fail(c, "type %u: name offset %u is outside the string section (%u bytes)",
			    id, off, b->strs_len);
	if (!memchr(b->strs + off, '\0', b->strs_len - off))
		return fail(c, "type %u: name at offset %u is not NUL-terminated in the string section",
			    id, off);
	return 0;
}

static int check_ref(struct ctx *c, uint32_t id, uint32_t ref)
{
	if (ref > c->b->ntypes)
		return fail(c, "type %u: references type %u, but there are only %u types", id, ref,
			    c->b->ntypes);
	return 0;
}

static bool valid_size(uint32_t size, uint32_t mask)
{
	return size <= 16 && ((mask >> size) & 1);
}
#define SIZES_INT   ((1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16))
#define SIZES_ENUM  ((1u << 1) | (1u << 2) | (1u << 4) | (1u << 8))
#define SIZES_FLOAT ((1u << 2) | (1u << 4) | (1u << 8) | (1u << 12) | (1u << 16))

static int check_int(struct ctx *c, uint32_t id, const struct btf_type *t)
{
	uint32_t v = *(const uint32_t *)btf_type_data(t), enc = BTF_INT_ENCODING(v);
	if (!valid_size(t->size_or_type, SIZES_INT))
		return fail(c, "type %u: int size %u is not 1, 2, 4, 8 or 16", id, t->size_or_type);
	if (BTF_INT_OFFSET(v) + BTF_INT_BITS(v) > t->size_or_type * 8)
		return fail(c, "type %u: int of %u bits at bit %u does not fit in %u bytes", id,
			    BTF_INT_BITS(v), BTF_INT_OFFSET(v), t->size_or_type);
	if (enc & (enc - 1) || enc > BTF_INT_BOOL)
		return fail(c, "type %u: bad int encoding 0x%x", id, enc);
	return 0;
}

static int check_members(struct ctx *c, uint32_t id, const struct btf_type *t)
{
	unsigned kind = BTF_INFO_KIND(t->info), vlen = BTF_INFO_VLEN(t->info);
	const void *data = btf_type_data(t);
	for (unsigned i = 0; i < vlen; i++) {
		int rc = 0;
		switch (kind) {
		case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
			const struct btf_member *m = (const struct btf_member *)data + i;
			rc = check_name(c, id, m->name_off) ?: check_ref(c, id, m->type);
			break;
		}
		case BTF_KIND_ENUM:
			rc = check_name(c, id, ((const struct btf_enum *)data)[i].name_off);
			break;
		case BTF_KIND_ENUM64:
			rc = check_name(c, id, ((const struct btf_enum64 *)data)[i].name_off);
			break;
		case BTF_KIND_DATASEC:
			rc = check_ref(c, id, ((const struct btf_var_secinfo *)data)[i].type);
			break;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *p = (const struct btf_param *)data + i;
			rc = check_name(c, id, p->name_off) ?: check_ref(c, id, p->type);
			if (!rc && p->type == 0 && (i + 1 < vlen || p->name_off))
				rc = fail(c, "type %u: parameter %u has type void", id, i + 1);
			break;
		}
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int check_type(struct ctx *c, uint32_t id)
{
	const struct btf *b = c->b;
	const struct btf_type *t = btf_type_by_id(b, id);
	unsigned kind = BTF_INFO_KIND(t->info);
	int rc = check_name(c, id, t->name_off);
	if (rc)
		return rc;
	switch (kind) {
	case BTF_KIND_INT:
		return check_int(c, id, t);
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		if (!valid_size(t->size_or_type, SIZES_ENUM))
			return fail(c, "type %u: enum size %u is not 1, 2, 4 or 8", id, t->size_or_type);
		return check_members(c, id, t);
	case BTF_KIND_FLOAT:
		if (!valid_size(t->size_or_type, SIZES_FLOAT))
			return fail(c, "type %u: float size %u is not 2, 4, 8, 12 or 16", id,
				    t->size_or_type);
		return 0;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_type_data(t);
		return check_ref(c, id, a->type) ?: check_ref(c, id, a->index_type);
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
		return check_members(c, id, t);
	case BTF_KIND_FUNC_PROTO:
		return check_ref(c, id, t->size_or_type) ?: check_members(c, id, t);
	case BTF_KIND_FUNC: {
		if ((rc = check_ref(c, id, t->size_or_type)))
			return rc;
		const struct btf_type *p = btf_type_by_id(b, t->size_or_type);
		if (!p || BTF_INFO_KIND(p->info) != BTF_KIND_FUNC_PROTO)
			return fail(c, "type %u: function '%s' has type %u, not a function prototype",
				    id, btf_name(b, t->name_off), t->size_or_type);
		return 0;
	}
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return check_ref(c, id, t->size_or_type);
	case BTF_KIND_FWD:
		return 0;
	default:                  /* is_ref() */
		return check_ref(c, id, t->size_or_type);
	}
}

/* ---- pass 4: chains ---- */

/* Arrays are followed too (to their element type): users that size an
 * array from its element may then recurse without a bound of their own. */
static int check_chain(struct ctx *c, uint32_t id)
{
	uint32_t cur = id;
	for (unsigned hops = 0;; hops++) {
		const struct btf_type *t = btf_type_by_id(c->b, cur);
		unsigned kind = t ? BTF_INFO_KIND(t->info) : BTF_KIND_UNKN;
		if (!is_ref(kind) && kind != BTF_KIND_ARRAY)
			return 0;
		if (hops == BTF_MAX_HOPS)
			return fail(c, "type %u: reference chain longer than %u hops (a cycle?)", id,
				    BTF_MAX_HOPS);
		cur = kind == BTF_KIND_ARRAY ? ((const struct btf_array *)btf_type_data(t))->type
					     : t->size_or_type;
	}
}

int btf_parse(struct btf *b, const void *blob, size_t size, char *err, size_t errsize)
{
	struct ctx c = { b, err, errsize };
	int rc;
	memset(b, 0, sizeof(*b));
	if (errsize)
		err[0] = '\0';
	if (!blob)
		return fail(&c, "no blob");
	if ((rc = check_header(&c, blob, size)) || (rc = count_types(&c)))
		return rc;
	if (b->ntypes) {
		b->offs = malloc(b->ntypes * sizeof(*b->offs));
		if (!b->offs) {
			fail(&c, "out of memory for %u types", b->ntypes);
			return -ENOMEM;
		}
	}
	uint32_t pos = 0;
	for (uint32_t i = 0; i < b->ntypes; i++) {   /* pass 2 proved every step */
		const struct btf_type *t = (const void *)(b->types + pos);
		b->offs[i] = pos;
		pos += sizeof(*t) + kind_extra(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
	}
	for (uint32_t id = 1; id <= b->ntypes && !rc; id++)
		rc = check_type(&c, id);
	for (uint32_t id = 1; id <= b->ntypes && !rc; id++)
		rc = check_chain(&c, id);
	if (rc)
		btf_release(b);
	return rc;
}

void btf_release(struct btf *b)
{
	free(b->offs);
	memset(b, 0, sizeof(*b));
}

const struct btf_type *btf_type_by_id(const struct btf *b, uint32_t id)
{
	if (id == 0 || id > b->ntypes)
		return NULL;
	return (const void *)(b->types + b->offs[id - 1]);
}

const char *btf_name(const struct btf *b, uint32_t name_off)
{
	return name_off < b->strs_len ? b->strs + name_off : "";
}

uint32_t btf_skip_modifiers(const struct btf *b, uint32_t id)
{
	for (unsigned hops = 0; hops <= BTF_MAX_HOPS; hops++) {
		const struct btf_type *t = btf_type_by_id(b, id);
		if (!t || !is_modifier(BTF_INFO_KIND(t->info)))
			return id;
		id = t->size_or_type;
	}
	return id;                /* unreachable after btf_parse's pass 4 */
}

/* Bitwise, not table-driven: it runs once per module load, and this file
 * also builds for the host tests (trace/dump.c has the kernel's fast one). */
uint32_t btf_crc32(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *b++;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return ~c;
}
