/*
 * btf.h — a bounds-checked reader of raw BTF (the BPF Type Format, the
 * blob `pahole -J --btf_encode_detached` writes), and loading one as the
 * function signature table of trace/fsig.h.
 *
 * Reader (trace/btf.c, also built for the host):
 *   btf_parse() checks a whole blob before anything uses it: the header,
 *   both sections against the blob, every type record's size (vlen arrays
 *   included), every type id referenced, every name offset (inside the
 *   string section and NUL-terminated there), and that no reference chain
 *   (ptr/typedef/const/volatile/restrict/type_tag, array element) loops.  Unknown kinds
 *   and big-endian blobs are rejected.  On failure it writes one line
 *   saying what is wrong and where ("type 1234: vlen 70000 runs past the
 *   end of the type section") and allocates nothing; on success the only
 *   allocation is the id -> record index, freed by btf_release().  The
 *   accessors below may then be used without further checks; the blob must
 *   stay in place until btf_release().
 *
 * Loading (trace/fsig.c): btf_load() parses a blob, builds a new signature
 * table from its functions and replaces the current one only if all of
 * that succeeded; the blob is not referenced afterwards.  Thread context
 * only (it allocates and takes fsig_lock()).
 *
 * Identity: BTF names types, not addresses — signatures are tied to
 * functions by name, and by the image's address table (below) — so a
 * well-formed blob of another image (the other arch's, an older build's,
 * Linux's) would parse and give wrong prototypes.  The build records the
 * size and CRC-32 of the image's own blob in the image (btf_image_ident,
 * tools/btfaddr.py); a module (-initrd) must match them or it is rejected
 * like a malformed one.
 *
 * Addresses: a name several functions share (static functions of two
 * files, an APP's `panic` and the kernel's) has one FUNC per prototype in
 * the image's blob, and the image's table btf_funcs[] (tools/btfaddr.py,
 * from the DWARF of the first link pass) says which FUNC each of those
 * functions' addresses is.  It is used with the image's own blob only (the
 * embedded one, or a module that passed the identity check).
 */
#ifndef TRACE_BTF_H
#define TRACE_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the format (Linux's include/uapi/linux/btf.h, little-endian) ---- */

#define BTF_MAGIC   0xeb9f
#define BTF_VERSION 1

enum btf_kind {
	BTF_KIND_UNKN, BTF_KIND_INT, BTF_KIND_PTR, BTF_KIND_ARRAY, BTF_KIND_STRUCT,
	BTF_KIND_UNION, BTF_KIND_ENUM, BTF_KIND_FWD, BTF_KIND_TYPEDEF, BTF_KIND_VOLATILE,
	BTF_KIND_CONST, BTF_KIND_RESTRICT, BTF_KIND_FUNC, BTF_KIND_FUNC_PROTO, BTF_KIND_VAR,
	BTF_KIND_DATASEC, BTF_KIND_FLOAT, BTF_KIND_DECL_TAG, BTF_KIND_TYPE_TAG, BTF_KIND_ENUM64,
	BTF_KIND_MAX = BTF_KIND_ENUM64,
};

struct btf_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;         /* the sections' offsets count from here */
	uint32_t type_off, type_len;
	uint32_t str_off, str_len;
};

/* Every type record starts with this; kind-specific data follows it. */
struct btf_type {
	uint32_t name_off;
	uint32_t info;            /* vlen 0-15, kind 24-28, kind_flag 31 */
	uint32_t size_or_type;    /* size for int/enum/struct/union/float/datasec, else a type id */
};

#define BTF_INFO_KIND(info)  (((info) >> 24) & 0x1f)
#define BTF_INFO_VLEN(info)  ((info) & 0xffff)
#define BTF_INFO_KFLAG(info) ((info) >> 31)

/* BTF_KIND_INT's u32 after the record */
#define BTF_INT_ENCODING(v) (((v) >> 24) & 0x0f)
#define BTF_INT_OFFSET(v)   (((v) >> 16) & 0xff)
#define BTF_INT_BITS(v)     ((v) & 0xff)
#define BTF_INT_SIGNED 1u
#define BTF_INT_CHAR   2u
#define BTF_INT_BOOL   4u

struct btf_array { uint32_t type, index_type, nelems; };
struct btf_member { uint32_t name_off, type, offset; };
struct btf_enum { uint32_t name_off; int32_t val; };
struct btf_enum64 { uint32_t name_off, val_lo32, val_hi32; };
struct btf_param { uint32_t name_off, type; };   /* last one {0, 0}: "..." */
struct btf_var_secinfo { uint32_t type, offset, size; };

/* ---- the reader ---- */

#define BTF_ERR_SIZE 128          /* enough for any message of btf_parse() */
#define BTF_MAX_HOPS 32           /* longest reference chain accepted */

struct btf {
	const uint8_t *types;     /* type section (4-byte aligned) */
	const char *strs;         /* string section */
	uint32_t types_len, strs_len;
	uint32_t ntypes;          /* valid ids are 1..ntypes; 0 is void */
	uint32_t *offs;           /* offs[id - 1]: record offset in the type section */
};

/* CRC-32 (IEEE 802.3, zlib's crc32()) of p[0, n). */
uint32_t btf_crc32(const void *p, size_t n);

/* Parse and check blob[0, size); 0, -EINVAL (message in err) or -ENOMEM. */
int btf_parse(struct btf *b, const void *blob, size_t size, char *err, size_t errsize);
void btf_release(struct btf *b);

/* Record of type id, NULL for 0 (void). id must be <= ntypes. */
const struct btf_type *btf_type_by_id(const struct btf *b, uint32_t id);
/* The string at a checked name offset. */
const char *btf_name(const struct btf *b, uint32_t name_off);
/* id with typedef/const/volatile/restrict/type_tag skipped (not ptr). */
uint32_t btf_skip_modifiers(const struct btf *b, uint32_t id);
/* The kind-specific data after a record (int word, members, params...). */
static inline const void *btf_type_data(const struct btf_type *t) { return t + 1; }

/* ---- loading as signatures (trace/fsig.c) ---- */

/* Parse, build the table, replace the current one.  0, -EINVAL or -ENOMEM;
 * prints one line either way:
 *   "btf: <source>: <N> types, <M> functions with signatures (0 by address,
 *    <K> ambiguous names skipped)" (one line)
 *   "btf: <source>: rejected: <reason>"
 * A rejected blob leaves the current table in place. */
int btf_load(const void *blob, size_t size, const char *source);
/* A blob's identity: its size and btf_crc32() (8-byte aligned, as the
 * build emits btf_image_ident). */
struct btf_ident {
	uint64_t size;
	uint32_t crc;
	uint32_t zero;
};
/* btf_load(), and once the blob parsed, reject it unless it is exactly
 * `want` (NULL: any): "rejected: not this image's BTF (N bytes, CRC-32
 * 0x...; the image's: M bytes, CRC-32 0x...)", -EINVAL, nothing changed. */
int btf_load_as(const void *blob, size_t size, const char *source, const struct btf_ident *want);
/* One entry of an address table: the function at ip is FUNC type id
 * (tools/btfaddr.py writes the image's, btf_funcs[], ascending ip). */
struct btf_func_addr {
	uint64_t ip;
	uint32_t id;
	uint32_t zero;
};
/* btf_load_as(), with an address table addrs[0, n) for this blob: each
 * entry whose id is a FUNC gives the function at its ip that FUNC's
 * signature (an entry of another kind, or past the types, is ignored);
 * then every other FUNC goes by its name as btf_load() says, except at an
 * address the table gives.  The load line says how many came by address:
 *   "btf: <source>: <N> types, <M> functions with signatures (<A> by address,
 *    <K> ambiguous names skipped)"
 * A name is "ambiguous" if several function symbols have it and no table
 * entry names its FUNC. */
int btf_load_addrs(const void *blob, size_t size, const char *source,
		   const struct btf_ident *want, const struct btf_func_addr *addrs, size_t n);
int btf_load_embedded(void);      /* [__btf_start, __btf_end) of the image, with
				   * its btf_funcs[] */
int btf_load_initrd(void);        /* QEMU's -initrd, if it is btf_image_ident's blob
				   * (then with btf_funcs[]); -ENOENT if none */
void btf_unload(void);            /* no signatures from now on */
/* One line: "<source>: N types, M functions", or "none". */
void btf_status(void (*out)(void *ctx, const char *line), void *ctx);
/* At boot, before the tracer starts: what btf= (embedded, initrd, off) says. */
void btf_boot_init(void);

/*
 * The environment fsig.c runs in.  The kernel's versions are at the end of
 * fsig.c; a host build defines FSIG_HOST and provides its own.
 *   fsig_port_address: 0 and *addr if exactly one function symbol has this
 *       name, -ENOENT if none, -EEXIST if several (static functions).
 *   fsig_port_read_str: copy at most max bytes from src, stopping after a
 *       NUL; *len = bytes copied.  -EFAULT if a byte it would read is not
 *       ordinary memory (checked before it is read: it never faults).
 *       Called from tracing callbacks: any context, no lock, no fault.
 *   fsig_port_ram: whether [addr, addr + len) is ordinary memory that can be
 *       read without a fault (RAM); any context.
 *   fsig_port_retire: free a replaced table once no tracing callback can
 *       still read it (NULL: nothing); thread context.
 *   fsig_port_log: print one line (no newline in it).
 */
int fsig_port_address(const char *name, uintptr_t *addr);
int fsig_port_read_str(char *dst, uintptr_t src, size_t max, size_t *len);
bool fsig_port_ram(uintptr_t addr, size_t len);
void fsig_port_retire(void *old);
void fsig_port_log(const char *line);

#endif
