/*
 * test_btf.c — host tests of trace/btf.c and trace/fsig.c (built with
 * FSIG_HOST: this file is their environment, fsig_port_*).
 *
 *   test_btf SAMPLE.btf [KERNEL.btf...]
 *
 * SAMPLE.btf is pahole's BTF of btf_sample.c (tests/host/Makefile): every
 * function's decoded signature is checked field by field.  KERNEL.btf
 * files (build/ARCH/kernel.btf, skipped if absent) must load and give the
 * demo's path_walk() its exact signature.  The rest needs no file: the
 * text of every kind, return values, strings (with a reader that can fake
 * faults), and hand-made malformed blobs, each rejected with its exact
 * message while the loaded table stays.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "trace/btf.h"
#include "trace/fsig.h"
#include "host_read_str.h"

/* ---- the environment (kernel: boot/kprintf.c, the end of fsig.c) ---- */

/* ksnprintf, kvsnprintf: host_snprintf.c */

void fsig_lock(void) {}
void fsig_unlock(void) {}

static char last_log[256];
void fsig_port_log(const char *line)
{
	snprintf(last_log, sizeof(last_log), "%s", line);
}

/* Symbols: "ambiguous_name" is two functions, "not_in_ksyms" none; every
 * other name has a made-up address (FNV-1a of the name, never 0). */
static uintptr_t fake_address(const char *name)
{
	uint64_t h = 1469598103934665603ull;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return (uintptr_t)(h | 1);
}

int fsig_port_address(const char *name, uintptr_t *addr)
{
	if (strcmp(name, "ambiguous_name") == 0)
		return -EEXIST;
	if (strcmp(name, "not_in_ksyms") == 0)
		return -ENOENT;
	*addr = fake_address(name);
	return 0;
}

/* fsig_port_read_str: host_read_str.c. */
#define FAULT_AT HOST_FAULT_AT

/* ---- helpers ---- */

static const char **blob_paths;
static int nblob_paths;

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static const struct fsig *sig(const char *name)
{
	return fsig_find(fake_address(name));
}

static void check_param(const struct fsig *s, unsigned i, const char *name, unsigned kind,
			unsigned size)
{
	assert_non_null(s);
	assert_true(i < s->nparams);
	assert_string_equal(s->params[i].name, name);
	assert_int_equal(s->params[i].type.kind, kind);
	assert_int_equal(s->params[i].type.size, size);
}

static void check_ret(const struct fsig *s, unsigned kind, unsigned size)
{
	assert_non_null(s);
	assert_int_equal(s->ret.kind, kind);
	assert_int_equal(s->ret.size, size);
}

static char out[512];
static char status_line[96];

static void save_line(void *ctx, const char *line)
{
	snprintf(ctx, sizeof(status_line), "%s", line);
}

/* strings: as funcgraph-args-string records them, captured from w first
 * (fsig_str_words, fsig_capture_strs) and printed from the copy. */
static const char *args(const struct fsig *s, const uint64_t *w, unsigned n, bool strings)
{
	uint8_t strs[FSIG_STRS_SIZE(FSIG_MAX_STRS)];
	size_t nstrs = 0;
	if (strings && s)
		nstrs = fsig_capture_strs(strs, fsig_str_words(s->ip), w, n);
	size_t len = fsig_format_args(out, sizeof(out), s, w, n, strings ? strs : NULL, nstrs);
	assert_int_equal(len, strlen(out));
	return out;
}

static const char *ret(const struct fsig *s, uint64_t raw, bool hex)
{
	size_t len = fsig_format_ret(out, sizeof(out), s, raw, hex);
	assert_int_equal(len, strlen(out));
	return out;
}

static void load_sample(void)
{
	size_t size;
	void *blob = read_file(blob_paths[0], &size);
	assert_non_null(blob);
	assert_int_equal(btf_load(blob, size, "sample"), 0);
	free(blob);                       /* the table keeps no pointer into it */
}

/* ---- the sample: every decoded field ---- */

/* The sample parsed into b; its blob, to free after btf_release(b). */
static void *sample_parse(struct btf *b)
{
	size_t size;
	char err[BTF_ERR_SIZE];
	void *blob = read_file(blob_paths[0], &size);
	assert_non_null(blob);
	assert_int_equal(btf_parse(b, blob, size, err, sizeof(err)), 0);
	return blob;
}

static uint32_t sample_types(void)
{
	struct btf b;
	void *blob = sample_parse(&b);
	uint32_t n = b.ntypes;
	btf_release(&b);
	free(blob);
	return n;
}

/* ---- an address table (btf_load_addrs) ---- */

/* The id of the sample's FUNC `name`, and of some type that is not a FUNC. */
static uint32_t sample_id(const char *name, bool func)
{
	struct btf b;
	void *blob = sample_parse(&b);
	uint32_t found = 0;
	for (uint32_t id = 1; id <= b.ntypes && !found; id++) {
		const struct btf_type *t = btf_type_by_id(&b, id);
		bool is_func = BTF_INFO_KIND(t->info) == BTF_KIND_FUNC;
		if (func ? is_func && strcmp(btf_name(&b, t->name_off), name) == 0 : !is_func)
			found = id;
	}
	btf_release(&b);
	free(blob);
	assert_int_not_equal(found, 0);
	return found;
}

/* The table's entries come first: ambiguous_name gets a signature at its
 * entry's address (and is not counted ambiguous), f's address takes nothing()'s
 * FUNC from the table, not f's by name; entries whose id is not a FUNC or
 * past the types are ignored. */
static void address_table(void **state __attribute__((unused)))
{
	size_t size;
	void *blob = read_file(blob_paths[0], &size);
	assert_non_null(blob);
	uint32_t ntypes = sample_types();
	const struct btf_func_addr t[] = {
		{ 0x1000, sample_id("ambiguous_name", true), 0 },
		{ 0x2000, sample_id("", false), 0 },
		{ 0x3000, ntypes + 1, 0 },
		{ fake_address("f") < 0x3000 ? 0x3001 : fake_address("f"), sample_id("nothing", true), 0 },
	};
	assert_true(fake_address("f") > 0x3000);
	assert_int_equal(btf_load_addrs(blob, size, "table", NULL, t, 4), 0);
	free(blob);
	char expect[160];
	snprintf(expect, sizeof(expect),
		 "btf: table: %u types, 17 functions with signatures (2 by address, "
		 "0 ambiguous names skipped)", ntypes);
	assert_string_equal(last_log, expect);
	fsig_lock();
	const struct fsig *a = fsig_find(0x1000);
	assert_non_null(a);
	assert_string_equal(a->name, "ambiguous_name");
	check_param(a, 0, "x", FSIG_INT, 4);
	assert_null(fsig_find(0x2000));
	assert_null(fsig_find(0x3000));
	const struct fsig *f = sig("f");
	assert_non_null(f);
	assert_string_equal(f->name, "nothing");
	assert_int_equal(f->nparams, 0);
	fsig_unlock();
	btf_unload();
}

static void sample_signatures(void **state __attribute__((unused)))
{
	load_sample();
	/* 16 functions with an address; ambiguous_name counted, not_in_ksyms not */
	char expect[128];
	snprintf(expect, sizeof(expect),
		 "btf: sample: %u types, 16 functions with signatures (0 by address, "
		 "1 ambiguous names skipped)",
		 sample_types());
	assert_string_equal(last_log, expect);
	assert_true(fsig_loaded());
	assert_null(sig("ambiguous_name"));
	assert_null(sig("not_in_ksyms"));

	const struct fsig *s = sig("f");
	assert_non_null(s);
	assert_string_equal(s->name, "f");
	assert_int_equal(s->ip, fake_address("f"));
	assert_int_equal(s->nparams, 5);
	check_param(s, 0, "a", FSIG_INT, 4);
	check_param(s, 1, "flags", FSIG_UINT, 8);
	check_param(s, 2, "s", FSIG_STR, 8);
	check_param(s, 3, "v", FSIG_ENUM, 4);
	check_param(s, 4, "p", FSIG_PTR, 8);
	check_ret(s, FSIG_INT, 4);

	s = sig("kinds");
	assert_int_equal(s->nparams, 7);
	check_param(s, 0, "b", FSIG_BOOL, 1);
	check_param(s, 1, "c", FSIG_INT, 1);
	check_param(s, 2, "h", FSIG_INT, 2);
	check_param(s, 3, "uc", FSIG_UINT, 1);
	check_param(s, 4, "ll", FSIG_INT, 8);
	check_param(s, 5, "us", FSIG_UINT, 2);
	check_param(s, 6, "e", FSIG_ENUM, 1);
	check_ret(s, FSIG_BOOL, 1);

	s = sig("nothing");
	assert_int_equal(s->nparams, 0);
	check_ret(s, FSIG_VOID, 0);

	s = sig("typedefs");             /* typedefs, const, volatile resolved */
	assert_int_equal(s->nparams, 5);
	check_param(s, 0, "x", FSIG_UINT, 8);
	check_param(s, 1, "s", FSIG_STR, 8);
	check_param(s, 2, "vp", FSIG_PTR, 8);
	check_param(s, 3, "cs", FSIG_STR, 8);
	check_param(s, 4, "cvs", FSIG_STR, 8);
	check_ret(s, FSIG_UINT, 8);

	s = sig("varargs");              /* stops at the ... */
	assert_int_equal(s->nparams, 1);
	check_param(s, 0, "n", FSIG_INT, 4);

	s = sig("aggregates");
	assert_int_equal(s->nparams, 6);
	check_param(s, 0, "p", FSIG_STRUCT, 16);
	check_param(s, 1, "b", FSIG_STRUCT, 32);
	check_param(s, 2, "d", FSIG_FLOAT, 8);
	check_param(s, 3, "after", FSIG_INT, 4);
	check_param(s, 4, "u", FSIG_UNION, 4);
	check_param(s, 5, "x", FSIG_FLOAT, 4);
	check_ret(s, FSIG_INT, 8);

	check_ret(sig("ret_float"), FSIG_FLOAT, 4);
	check_ret(sig("ret_uint"), FSIG_UINT, 4);
	check_ret(sig("ret_ptr"), FSIG_PTR, 8);
	check_ret(sig("ret_enum"), FSIG_ENUM, 4);
	check_ret(sig("ret_char"), FSIG_INT, 1);     /* x86-64 host: char is signed */
	check_ret(sig("ret_ulong"), FSIG_UINT, 8);
	check_ret(sig("ret_bool"), FSIG_BOOL, 1);
	check_ret(sig("ret_pair"), FSIG_STRUCT, 16);

	btf_status(save_line, status_line);
	assert_true(strncmp(status_line, "sample: ", 8) == 0);
	assert_non_null(strstr(status_line, " types, 16 functions"));
}

/* ---- text of every kind ---- */

static void args_text(void **state __attribute__((unused)))
{
	load_sample();
	const struct fsig *f = sig("f");
	uint64_t w[8] = { (uint64_t)-5, 0x3, 0x1000, 1, 0xffff000040001000ull };
	assert_string_equal(args(f, w, 5, false),
			    "a=-5, flags=0x3, s=0x1000, v=1, p=0xffff000040001000");
	w[0] = 0xfffffffb;                 /* an int as a 32-bit register write leaves it */
	w[3] = 0xfffffffe;                 /* MODE_NEG */
	assert_string_equal(args(f, w, 5, false),
			    "a=-5, flags=0x3, s=0x1000, v=-2, p=0xffff000040001000");
	/* words run out: "..." for the first parameter left (Linux's mark) */
	assert_string_equal(args(f, w, 2, false), "a=-5, flags=0x3, ...");
	assert_string_equal(args(f, w, 0, false), "...");
	assert_string_equal(args(NULL, w, 3, false), "0xfffffffb, 0x3, 0x1000");  /* no BTF */
	assert_string_equal(args(NULL, w, 0, false), "");

	uint64_t k[7] = { 1, 0xff, 0xfffe, 0xff, (uint64_t)-7, 0xffff, 1 };
	/* bool is not BTF_INT_SIGNED: hex, as Linux prints it */
	assert_string_equal(args(sig("kinds"), k, 7, false),
			    "b=0x1, c=-1, h=-2, uc=0xff, ll=-7, us=0xffff, e=1");
	k[0] = 0x100;                      /* bool: only its byte counts */
	assert_string_equal(args(sig("kinds"), k, 1, false), "b=0x0, ...");

	const struct fsig *g = sig("aggregates");
	/* Linux's raw aggregates: "(KIND)[w0:w1]"; the 32-byte b by the ABI:
	 * AAPCS64 passes its address (x2) and the entry copies its words after
	 * the registers; SysV x86-64 passes it on the stack (words 6..9), and
	 * `after` takes the next register. */
	const char *full = "p=(STRUCT)[0x11:0x22], b=(STRUCT)[0x33:0x34:0x35:0x36], d=(float), "
			   "after=7, u=(UNION)[0x44], x=(float)";
	uint64_t a[12] = { 0x11, 0x22, 0x1000, 7, 0x44, 0, 0, 0, 0x33, 0x34, 0x35, 0x36 };
	assert_string_equal(args(g, a, 12, false), full);
	assert_string_equal(args(g, a, 8, false), "p=(STRUCT)[0x11:0x22], ...");  /* b not copied */
	assert_string_equal(args(g, a, 1, false), "...");   /* p needs two words */
	fsig_abi = (struct fsig_abi)FSIG_ABI_SYSV;
	uint64_t x[10] = { 0x11, 0x22, 7, 0x44, 0, 0, 0x33, 0x34, 0x35, 0x36 };
	assert_string_equal(args(g, x, 10, false), full);
	assert_string_equal(args(g, x, 6, false), "p=(STRUCT)[0x11:0x22], ...");
	fsig_abi = (struct fsig_abi)FSIG_ABI_AAPCS64;

	/* Past the registers: the stack words follow them (AAPCS64: x0-x7, the
	 * ninth on; SysV: six registers, the seventh on); a char * there too. */
	uint64_t m[11] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, (uint64_t)-10, (uintptr_t)"eleven" };
	const char *many = "a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=-10, k=\"eleven\"";
	assert_string_equal(args(sig("many"), m, 11, true), many);
	assert_int_equal(fsig_str_words(fake_address("many")), 1u << 10);
	assert_string_equal(args(sig("many"), m, 8, false),
			    "a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, ...");
	uint64_t sp[8] = { 1, 2, 3, 4, 5, 0x11, 0x22, 7 };
	assert_string_equal(args(sig("split"), sp, 8, false),
			    "a=1, b=2, c=3, d=4, e=5, p=(STRUCT)[0x11:0x22], z=7");
	fsig_abi = (struct fsig_abi)FSIG_ABI_SYSV;
	m[10] = 0x1234;
	assert_string_equal(args(sig("many"), m, 11, false),
			    "a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=-10, k=0x1234");
	assert_string_equal(args(sig("many"), m, 6, false),
			    "a=1, b=2, c=3, d=4, e=5, f=6, ...");
	uint64_t sx[8] = { 1, 2, 3, 4, 5, 7, 0x11, 0x22 };   /* p on the stack, z in r9 */
	assert_string_equal(args(sig("split"), sx, 8, false),
			    "a=1, b=2, c=3, d=4, e=5, p=(STRUCT)[0x11:0x22], z=7");
	assert_string_equal(args(sig("split"), sx, 6, false), "a=1, b=2, c=3, d=4, e=5, ...");
	fsig_abi = (struct fsig_abi)FSIG_ABI_AAPCS64;

	uint64_t v[3] = { 3, 4, 5 };
	assert_string_equal(args(sig("varargs"), v, 3, false), "n=3");
	assert_string_equal(args(sig("nothing"), v, 3, false), "");
	assert_string_equal(args(sig("nothing"), v, 0, false), "");       /* nothing missing */
	assert_string_equal(args(sig("typedefs"), v, 2, false), "x=0x3, s=0x4, ...");
}

static void string_args(void **state __attribute__((unused)))
{
	load_sample();
	const struct fsig *f = sig("f");
	char expect[160];
	const char *odd = "a\"b\\c\n\xff";
	const char *s31 = "0123456789abcdef0123456789abcde";
	const char *s32 = "0123456789abcdef0123456789abcdef";
	const char *s40 = "0123456789abcdef0123456789abcdef01234567";
	uint64_t w[5] = { 1, 2, (uintptr_t)"hello", 3, 0x1000 };

	assert_string_equal(args(f, w, 5, true), "a=1, flags=0x2, s=\"hello\", v=3, p=0x1000");
	snprintf(expect, sizeof(expect), "a=1, flags=0x2, s=0x%lx, v=3, p=0x1000",
		 (unsigned long)w[2]);
	assert_string_equal(args(f, w, 5, false), expect);   /* char * as a pointer */
	w[2] = (uintptr_t)odd;
	assert_string_equal(args(f, w, 3, true), "a=1, flags=0x2, s=\"a\\x22b\\x5cc\\x0a\\xff\", ...");
	w[2] = (uintptr_t)s31;
	assert_string_equal(args(f, w, 3, true),
			    "a=1, flags=0x2, s=\"0123456789abcdef0123456789abcde\", ...");
	w[2] = (uintptr_t)s32;             /* no NUL in the 32 bytes read */
	assert_string_equal(args(f, w, 3, true),
			    "a=1, flags=0x2, s=\"0123456789abcdef0123456789abcdef\"..., ...");
	w[2] = (uintptr_t)s40;
	assert_string_equal(args(f, w, 3, true),
			    "a=1, flags=0x2, s=\"0123456789abcdef0123456789abcdef\"..., ...");
	w[2] = (uintptr_t)"";
	assert_string_equal(args(f, w, 3, true), "a=1, flags=0x2, s=\"\", ...");
	w[2] = FAULT_AT + 0x10;            /* the read faults: the pointer */
	assert_string_equal(args(f, w, 3, true), "a=1, flags=0x2, s=0xfff0000000000010, ...");
	w[2] = 0;
	assert_string_equal(args(f, w, 3, true), "a=1, flags=0x2, s=0x0, ...");
	uint64_t t[5] = { 9, (uintptr_t)"x", 0, (uintptr_t)"cs", (uintptr_t)"cvs" };
	assert_string_equal(args(sig("typedefs"), t, 5, true),
			    "x=0x9, s=\"x\", vp=0x0, cs=\"cs\", cvs=\"cvs\"");
}

static void bounded_output(void **state __attribute__((unused)))
{
	load_sample();
	uint64_t w[5] = { 1, 2, 3, 4, 5 };
	char small[8];
	memset(small, 'z', sizeof(small));
	size_t n = fsig_format_args(small, sizeof(small), sig("f"), w, 5, NULL, 0);
	assert_int_equal(n, strlen("a=1, flags=0x2, s=0x3, v=4, p=0x5"));
	assert_string_equal(small, "a=1, fl");
	small[0] = 'q';
	n = fsig_format_args(small, 0, sig("f"), w, 5, NULL, 0);   /* writes nothing */
	assert_int_equal(small[0], 'q');
	assert_int_equal(n, strlen("a=1, flags=0x2, s=0x3, v=4, p=0x5"));
	n = fsig_format_ret(small, 4, sig("f"), (uint64_t)-22, false);
	assert_int_equal(n, 7);
	assert_string_equal(small, "ret");
}

static void ret_text(void **state __attribute__((unused)))
{
	load_sample();
	const struct fsig *f = sig("f");
	assert_string_equal(ret(f, (uint64_t)-22, false), "ret=-22");
	assert_string_equal(ret(f, 0xffffffea, false), "ret=-22");      /* cut to int */
	assert_string_equal(ret(f, 0, false), "ret=0x0");
	assert_string_equal(ret(f, 5, false), "ret=0x5");
	assert_string_equal(ret(f, (uint64_t)-4095, false), "ret=-4095");
	assert_string_equal(ret(f, (uint64_t)-4096, false), "ret=0xfffff000");
	assert_string_equal(ret(f, (uint64_t)-22, true), "ret=0xffffffea");  /* hex forced */
	assert_string_equal(ret(sig("nothing"), 0x1234, false), "");         /* void */
	assert_string_equal(ret(sig("ret_uint"), 0xffffffea, false), "ret=0xffffffea");
	assert_string_equal(ret(sig("ret_uint"), 0x1234500000005ull, false), "ret=0x5");
	assert_string_equal(ret(sig("ret_ulong"), (uint64_t)-22, false), "ret=-22");
	assert_string_equal(ret(sig("ret_ptr"), (uint64_t)-12, false), "ret=-12");
	assert_string_equal(ret(sig("ret_ptr"), 0xffff000040001000ull, false),
			    "ret=0xffff000040001000");
	assert_string_equal(ret(sig("ret_bool"), 0x101, false), "ret=0x1");
	assert_string_equal(ret(sig("ret_char"), 0xff, false), "ret=-1");
	assert_string_equal(ret(sig("ret_enum"), 0xfffffffe, false), "ret=-2");
	assert_string_equal(ret(sig("ret_float"), 0x3f800000, false), "ret=(float)");
	assert_string_equal(ret(sig("ret_pair"), 0x11, false), "ret=0x11");
	/* No signature: Linux's rule for an untyped register (an error is
	 * -4095..-1, whole or as an int whose upper half is clear). */
	assert_string_equal(ret(NULL, (uint64_t)-22, false), "ret=-22");
	assert_string_equal(ret(NULL, 0xfffffffe, false), "ret=-2");
	assert_string_equal(ret(NULL, 0xfffff001, false), "ret=-4095");
	assert_string_equal(ret(NULL, 0xfffff000, false), "ret=0xfffff000");
	assert_string_equal(ret(NULL, (uint64_t)-4096, false), "ret=0xfffffffffffff000");
	assert_string_equal(ret(NULL, 0x1fffffffe, false), "ret=0x1fffffffe");
	assert_string_equal(ret(NULL, 0xfffffffe, true), "ret=0xfffffffe");
	assert_string_equal(ret(NULL, 0, false), "ret=0x0");
}

static void unload(void **state __attribute__((unused)))
{
	load_sample();
	assert_non_null(sig("f"));
	btf_unload();
	assert_false(fsig_loaded());
	assert_null(sig("f"));
	btf_status(save_line, status_line);
	assert_string_equal(status_line, "none");
	btf_unload();                      /* twice is harmless */
	load_sample();
	assert_non_null(sig("f"));
}

/* ---- hand-made blobs ---- */

enum variant {
	V_GOOD, V_UNNAMED, V_BAD_MAGIC, V_BIG_ENDIAN, V_VERSION, V_HDR_BIG, V_HDR_SMALL,
	V_TYPES_OUT, V_STRS_OUT, V_OVERLAP, V_STR0, V_NAME_OUT, V_UNTERMINATED, V_REF_OUT,
	V_CYCLE, V_PTR_SELF, V_VLEN, V_CUT_RECORD, V_KIND, V_KIND0, V_FUNC_NOT_PROTO,
	V_VOID_PARAM, V_INT_SIZE, V_ENUM_SIZE, V_MEMBER_REF, V_ARRAY_CYCLE,
};

struct bb {
	uint32_t blob[256];                /* the result, 4-byte aligned */
	uint8_t types[512];
	char strs[128];
	uint32_t tlen, slen;
};

static uint32_t bb_str(struct bb *b, const char *s)
{
	if (!*s)
		return 0;
	uint32_t off = b->slen;
	memcpy(b->strs + off, s, strlen(s) + 1);
	b->slen += (uint32_t)strlen(s) + 1;
	return off;
}

static void bb_u32(struct bb *b, uint32_t v)
{
	memcpy(b->types + b->tlen, &v, 4);
	b->tlen += 4;
}

static void bb_type(struct bb *b, const char *name, unsigned kind, unsigned vlen, uint32_t st)
{
	bb_u32(b, bb_str(b, name));
	bb_u32(b, (kind << 24) | vlen);
	bb_u32(b, st);
}

/*
 * The good blob: 1 int, 2 ptr -> 3, 3 const -> 4, 4 char,
 * 5 proto int (int a, const char *s), 6 func "good" -> 5; each variant
 * breaks one thing.  Returns the blob's size.
 */
static size_t build(struct bb *b, enum variant v)
{
	memset(b, 0, sizeof(*b));
	b->slen = 1;
	bb_type(b, "int", v == V_KIND ? 25 : v == V_KIND0 ? 0 : BTF_KIND_INT, 0,
		v == V_INT_SIZE ? 3 : 4);
	bb_u32(b, (BTF_INT_SIGNED << 24) | 32);
	bb_type(b, "", BTF_KIND_PTR, 0, v == V_REF_OUT ? 99 : v == V_PTR_SELF ? 2 : 3);
	bb_type(b, "", BTF_KIND_CONST, 0, 4);
	bb_type(b, "char", BTF_KIND_INT, 0, 1);
	bb_u32(b, 8);
	bb_type(b, "", BTF_KIND_FUNC_PROTO, v == V_VLEN ? 0xffff : 2, 1);
	bb_u32(b, v == V_UNNAMED ? 0 : bb_str(b, "a"));
	bb_u32(b, v == V_VOID_PARAM ? 0 : 1);
	bb_u32(b, v == V_UNNAMED ? 0 : bb_str(b, "s"));
	bb_u32(b, 2);
	bb_type(b, "good", BTF_KIND_FUNC, 0, v == V_FUNC_NOT_PROTO ? 1 : 5);
	if (v == V_CYCLE) {
		bb_type(b, "t1", BTF_KIND_TYPEDEF, 0, 8);
		bb_type(b, "t2", BTF_KIND_TYPEDEF, 0, 7);
	}
	if (v == V_ENUM_SIZE) {
		bb_type(b, "e", BTF_KIND_ENUM, 1, 3);
		bb_u32(b, bb_str(b, "E0"));
		bb_u32(b, 0);
	}
	if (v == V_ARRAY_CYCLE) {          /* an array of itself */
		bb_type(b, "", BTF_KIND_ARRAY, 0, 0);
		bb_u32(b, 7);
		bb_u32(b, 1);
		bb_u32(b, 2);
	}
	if (v == V_MEMBER_REF) {
		bb_type(b, "st", BTF_KIND_STRUCT, 1, 4);
		bb_u32(b, bb_str(b, "m"));
		bb_u32(b, 1000);
		bb_u32(b, 0);
	}
	if (v == V_NAME_OUT)
		memcpy(b->types + b->tlen - 12, &(uint32_t){ 5000 }, 4);   /* type 6's name */
	if (v == V_UNTERMINATED)
		b->strs[b->slen - 1] = 'x';        /* "good" runs into the end */
	if (v == V_STR0)
		b->strs[0] = 'x';

	struct btf_header h = { BTF_MAGIC, BTF_VERSION, 0, sizeof(h), 0, b->tlen, b->tlen, b->slen };
	if (v == V_CUT_RECORD)
		h.type_len -= 8;
	if (v == V_BAD_MAGIC)
		h.magic = 0x1234;
	if (v == V_BIG_ENDIAN)
		h.magic = 0x9feb;
	if (v == V_VERSION)
		h.version = 2;
	if (v == V_HDR_BIG)
		h.hdr_len = 4096;
	if (v == V_HDR_SMALL)
		h.hdr_len = 8;
	if (v == V_TYPES_OUT)
		h.type_len = 4000;
	if (v == V_STRS_OUT)
		h.str_off = 0xfffffff0u;
	if (v == V_OVERLAP)
		h.str_off = 8;
	uint8_t *p = (uint8_t *)b->blob;
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), b->types, b->tlen);
	memcpy(p + sizeof(h) + b->tlen, b->strs, b->slen);
	return sizeof(h) + b->tlen + b->slen;
}

static const struct { enum variant v; const char *msg; } bad[] = {
	{ V_BAD_MAGIC, "bad magic 0x1234 (expected 0xeb9f)" },
	{ V_BIG_ENDIAN, "big-endian BTF (magic bytes eb 9f) is not supported" },
	{ V_VERSION, "unsupported version 2 (expected 1)" },
	{ V_HDR_BIG, "header length 4096 exceeds the blob (139 bytes)" },
	{ V_HDR_SMALL, "header length 8 is shorter than 24" },
	{ V_TYPES_OUT, "type section [24, 4024) runs past the end of the blob (139 bytes)" },
	{ V_STRS_OUT, "string section [4294967304, 4294967323) runs past the end of the blob (139 bytes)" },
	{ V_OVERLAP, "type and string sections overlap" },
	{ V_STR0, "string section does not start with the empty string" },
	{ V_NAME_OUT, "type 6: name offset 5000 is outside the string section (19 bytes)" },
	{ V_UNTERMINATED, "type 6: name at offset 14 is not NUL-terminated in the string section" },
	{ V_REF_OUT, "type 2: references type 99, but there are only 6 types" },
	{ V_CYCLE, "type 7: reference chain longer than 32 hops (a cycle?)" },
	{ V_PTR_SELF, "type 2: reference chain longer than 32 hops (a cycle?)" },
	{ V_VLEN, "type 5: vlen 65535 runs past the end of the type section" },
	{ V_CUT_RECORD, "type 6: record runs past the end of the type section" },
	{ V_KIND, "type 1: unknown kind 25" },
	{ V_KIND0, "type 1: unknown kind 0" },
	{ V_FUNC_NOT_PROTO, "type 6: function 'good' has type 1, not a function prototype" },
	{ V_VOID_PARAM, "type 5: parameter 1 has type void" },
	{ V_INT_SIZE, "type 1: int size 3 is not 1, 2, 4, 8 or 16" },
	{ V_ENUM_SIZE, "type 7: enum size 3 is not 1, 2, 4 or 8" },
	{ V_MEMBER_REF, "type 7: references type 1000, but there are only 7 types" },
	{ V_ARRAY_CYCLE, "type 7: reference chain longer than 32 hops (a cycle?)" },
};

static void handmade_good(void **state __attribute__((unused)))
{
	struct bb b;
	struct btf parsed;
	char err[BTF_ERR_SIZE];
	size_t size = build(&b, V_GOOD);
	assert_int_equal(size, 139);
	assert_int_equal(btf_parse(&parsed, b.blob, size, err, sizeof(err)), 0);
	assert_int_equal(parsed.ntypes, 6);
	assert_string_equal(btf_name(&parsed, btf_type_by_id(&parsed, 6)->name_off), "good");
	assert_int_equal(btf_skip_modifiers(&parsed, 3), 4);
	assert_null(btf_type_by_id(&parsed, 0));
	btf_release(&parsed);

	assert_int_equal(btf_load(b.blob, size, "good"), 0);
	assert_string_equal(last_log,
			    "btf: good: 6 types, 1 functions with signatures (0 by address, 0 ambiguous names skipped)");
	uint64_t w[2] = { (uint64_t)-1, 0x2000 };
	assert_string_equal(args(sig("good"), w, 2, false), "a=-1, s=0x2000");

	size = build(&b, V_UNNAMED);       /* no parameter names: values only */
	assert_int_equal(btf_load(b.blob, size, "unnamed"), 0);
	assert_string_equal(args(sig("good"), w, 2, false), "-1, 0x2000");

	/* header only, empty sections but the empty string */
	struct btf_header h = { BTF_MAGIC, BTF_VERSION, 0, sizeof(h), 0, 0, 0, 1 };
	memset(b.blob, 0, 32);
	memcpy(b.blob, &h, sizeof(h));
	assert_int_equal(btf_load(b.blob, sizeof(h) + 1, "empty"), 0);
	assert_string_equal(last_log,
			    "btf: empty: 0 types, 0 functions with signatures (0 by address, 0 ambiguous names skipped)");
}

static void handmade_bad(void **state __attribute__((unused)))
{
	char line[256], err[BTF_ERR_SIZE];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bb b;
		struct btf parsed;
		load_sample();
		size_t size = build(&b, bad[i].v);
		int rc = btf_parse(&parsed, b.blob, size, err, sizeof(err));
		if (rc != -EINVAL || strcmp(err, bad[i].msg) != 0)
			fail_msg("variant %d: rc %d, \"%s\", expected \"%s\"", bad[i].v, rc, err,
				 bad[i].msg);
		assert_null(parsed.offs);          /* nothing left allocated */
		assert_int_equal(btf_load(b.blob, size, "bad"), -EINVAL);
		snprintf(line, sizeof(line), "btf: bad: rejected: %s", bad[i].msg);
		assert_string_equal(last_log, line);
		assert_non_null(sig("f"));         /* the sample's table stays */
	}
}

/* btf_load_as: a blob that parses but is not the expected one (size or
 * CRC-32) is rejected with both identities, and the table stays. */
static void identity(void **state __attribute__((unused)))
{
	struct bb b;
	char line[256];
	assert_int_equal(btf_crc32("123456789", 9), 0xcbf43926);   /* zlib's check value */
	assert_int_equal(btf_crc32("", 0), 0);
	size_t size = build(&b, V_GOOD);
	struct btf_ident want = { size, btf_crc32(b.blob, size), 0 };
	load_sample();
	((char *)b.blob)[size - 2] ^= 1;   /* "good" -> "gooe": still well-formed */
	uint32_t crc = btf_crc32(b.blob, size);
	assert_int_equal(btf_load_as(b.blob, size, "other", &want), -EINVAL);
	snprintf(line, sizeof(line), "btf: other: rejected: not this image's BTF (%zu bytes, CRC-32 "
		 "0x%08x; the image's: %zu bytes, CRC-32 0x%08x)", size, crc, size, want.crc);
	assert_string_equal(last_log, line);
	assert_non_null(sig("f"));         /* the sample's table stays */
	want.size++;
	((char *)b.blob)[size - 2] ^= 1;   /* the right bytes, the wrong size */
	assert_int_equal(btf_load_as(b.blob, size, "other", &want), -EINVAL);
	assert_non_null(sig("f"));
	want.size--;
	assert_int_equal(btf_load_as(b.blob, size, "same", &want), 0);
	assert_non_null(sig("good"));
	assert_null(sig("f"));
	/* a malformed blob is reported as such, whatever the identity */
	size = build(&b, V_BAD_MAGIC);
	assert_int_equal(btf_load_as(b.blob, size, "bad", &want), -EINVAL);
	assert_string_equal(last_log, "btf: bad: rejected: bad magic 0x1234 (expected 0xeb9f)");
}

static void truncated_and_misaligned(void **state __attribute__((unused)))
{
	struct bb b;
	char err[BTF_ERR_SIZE];
	struct btf parsed;
	size_t size = build(&b, V_GOOD);
	assert_int_equal(btf_parse(&parsed, b.blob, 10, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "truncated header: 10 bytes, need 24");
	assert_int_equal(btf_parse(&parsed, NULL, 0, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "no blob");
	/* every shorter length is rejected, never read past (ASan in the fuzzer) */
	for (size_t n = 0; n < size; n++) {
		void *copy = malloc(n ? n : 1);
		memcpy(copy, b.blob, n);
		assert_int_equal(btf_parse(&parsed, copy, n, err, sizeof(err)), -EINVAL);
		free(copy);
	}
	uint8_t *shifted = malloc(size + 1);
	memcpy(shifted + 1, b.blob, size);
	assert_int_equal(btf_parse(&parsed, shifted + 1, size, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not 4-byte aligned"));
	free(shifted);
	/* a short error buffer is still terminated */
	char tiny[8];
	assert_int_equal(btf_parse(&parsed, b.blob, 10, tiny, sizeof(tiny)), -EINVAL);
	assert_string_equal(tiny, "truncat");
}

/* ---- the kernel's own blobs ---- */

static void kernel_blobs(void **state __attribute__((unused)))
{
	int tested = 0;
	for (int i = 1; i < nblob_paths; i++) {
		size_t size;
		void *blob = read_file(blob_paths[i], &size);
		if (!blob)
			continue;
		struct btf parsed;
		char err[BTF_ERR_SIZE], expect[128];
		assert_int_equal(btf_parse(&parsed, blob, size, err, sizeof(err)), 0);
		uint32_t ntypes = parsed.ntypes;
		btf_release(&parsed);
		assert_int_equal(btf_load(blob, size, "kernel"), 0);
		snprintf(expect, sizeof(expect), "btf: kernel: %u types, ", ntypes);
		assert_true(strncmp(last_log, expect, strlen(expect)) == 0);
		free(blob);

		const struct fsig *s = sig("path_walk");
		assert_non_null(s);
		assert_int_equal(s->nparams, 4);
		check_param(s, 0, "start", FSIG_PTR, 8);
		check_param(s, 1, "path", FSIG_STR, 8);
		check_param(s, 2, "depth", FSIG_INT, 4);
		check_param(s, 3, "out", FSIG_PTR, 8);
		check_ret(s, FSIG_INT, 4);
		s = sig("kind_name");
		check_param(s, 0, "k", FSIG_ENUM, 4);
		check_ret(s, FSIG_STR, 8);
		tested++;
	}
	if (!tested)
		skip();
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SAMPLE.btf [KERNEL.btf...]\n", argv[0]);
		return 2;
	}
	blob_paths = (const char **)argv + 1;
	nblob_paths = argc - 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_signatures),
		cmocka_unit_test(address_table),
		cmocka_unit_test(args_text),
		cmocka_unit_test(string_args),
		cmocka_unit_test(bounded_output),
		cmocka_unit_test(ret_text),
		cmocka_unit_test(unload),
		cmocka_unit_test(handmade_good),
		cmocka_unit_test(handmade_bad),
		cmocka_unit_test(identity),
		cmocka_unit_test(truncated_and_misaligned),
		cmocka_unit_test(kernel_blobs),
	};
	cmocka_set_message_output(CM_OUTPUT_TAP);
	/* The kernels' blobs exist once they are built (make test builds them
	 * first); without them that case is left out, not failed. */
	size_t n = sizeof(tests) / sizeof(tests[0]) - (nblob_paths > 1 ? 0 : 1);
	return _cmocka_run_group_tests("btf", tests, n, NULL, NULL);
}
