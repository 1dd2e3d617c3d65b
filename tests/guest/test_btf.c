/*
 * test_btf.c — suite `btf`: function signatures from the image's own BTF
 * (trace/btf.h, trace/fsig.h).
 *
 * The embedded blob loads; demo/vfs.c functions and a local probe with a
 * prototype of every kind get their exact signatures and text; corrupted
 * and truncated heap copies are rejected and leave the table in place, and
 * so is a well-formed blob that is not this image's (btf_image_ident);
 * unload drops it, a reload brings it back.  Two static functions named
 * btf_twin (here and in btf_twin.c) of different prototypes each get their
 * own signature, from the image's address table (tools/btfaddr.py); a blob
 * loaded without it leaves both without one.  With QEMU's -initrd holding
 * build/ARCH/kernel.btf, the initrd case loads that too (skipped without),
 * with the same table.
 * Cases run in order and leave the embedded table loaded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_info.h"
#include "boot/console.h"
#include "boot/test.h"
#include "demo/vfs.h"
#include "lib/noipa.h"
#include "trace/btf.h"
#include "trace/fsig.h"

int path_walk(struct inode *start, const char *path, int depth, struct inode **out);

enum btf_probe_mode { PROBE_NEG = -3, PROBE_POS = 7 };
struct btf_probe_pair { long a, b; };     /* 16 bytes: two argument words */

/* Every kind fsig knows, in one prototype; noipa keeps it a plain,
 * uncloned function whose symbol BTF can name. */
__attribute__((noinline)) noipa long btf_probe(int a, unsigned long flags, const char *s,
						 enum btf_probe_mode m, void *p, _Bool ok,
						 struct btf_probe_pair pr, double d)
{
	return a + (long)flags + (s ? 1 : 0) + m + (p ? 1 : 0) + ok + pr.a + (long)d;
}

/* The first of the two btf_twin (btf_twin.c has the other). */
static noipa long btf_twin(int a, const char *s)
{
	return 2L * a + (s ? 1 : 0);
}

uintptr_t btf_twin_other_ip(void);
unsigned btf_twin_other_call(unsigned long x, short y, bool z);

static char status[96];

static void save_status(void *ctx, const char *line)
{
	strncpy(status, line, sizeof(status) - 1);
}

static const char *btf_status_line(void)
{
	memset(status, 0, sizeof(status));
	btf_status(save_status, NULL);
	return status;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void expect_param(const struct fsig *s, unsigned i, const char *name, unsigned kind,
			 unsigned size)
{
	if (i >= s->nparams) {
		test_fail(__FILE__, __LINE__, "%s: no parameter %u", s->name, i);
		return;
	}
	const struct fsig_param *p = &s->params[i];
	if (strcmp(p->name, name) || p->type.kind != kind || p->type.size != size)
		test_fail(__FILE__, __LINE__, "%s param %u: %s kind %u size %u, expected %s %u %u",
			  s->name, i, p->name, p->type.kind, p->type.size, name, kind, size);
}

TEST_CASE(btf, embedded_loads)
{
	ASSERT_EQ(btf_load_embedded(), 0);
	EXPECT_TRUE(fsig_loaded());
	EXPECT_TRUE(starts_with(btf_status_line(), "embedded: "));
}

TEST_CASE(btf, demo_signatures)
{
	fsig_lock();
	const struct fsig *s = fsig_find((uintptr_t)path_walk);
	const struct fsig *k = fsig_find((uintptr_t)kind_name);
	if (s) {
		EXPECT_STREQ(s->name, "path_walk");
		EXPECT_EQ(s->nparams, 4);
		expect_param(s, 0, "start", FSIG_PTR, 8);
		expect_param(s, 1, "path", FSIG_STR, 8);
		expect_param(s, 2, "depth", FSIG_INT, 4);
		expect_param(s, 3, "out", FSIG_PTR, 8);
		EXPECT_EQ(s->ret.kind, FSIG_INT);
		EXPECT_EQ(s->ret.size, 4);
	}
	if (k) {
		EXPECT_EQ(k->nparams, 1);
		expect_param(k, 0, "k", FSIG_ENUM, 4);
		EXPECT_EQ(k->ret.kind, FSIG_STR);
	}
	fsig_unlock();
	EXPECT_TRUE(s != NULL);
	EXPECT_TRUE(k != NULL);
}

TEST_CASE(btf, probe_signature_and_text)
{
	char buf[256];
	/* a=-22 as a 32-bit register write leaves it: upper half clear */
	const uint64_t w[8] = { 0xffffffea, 0x3, 0x40001000, (uint64_t)-3, 0xdead0000,
				1, 0x11, 0x22 };
	fsig_lock();
	const struct fsig *s = fsig_find((uintptr_t)btf_probe);
	if (!s) {
		fsig_unlock();
		ASSERT_TRUE(s != NULL);
	}
	EXPECT_EQ(s->nparams, 8);
	expect_param(s, 0, "a", FSIG_INT, 4);
	expect_param(s, 1, "flags", FSIG_UINT, 8);
	expect_param(s, 2, "s", FSIG_STR, 8);
	expect_param(s, 3, "m", FSIG_ENUM, 4);
	expect_param(s, 4, "p", FSIG_PTR, 8);
	expect_param(s, 5, "ok", FSIG_BOOL, 1);
	expect_param(s, 6, "pr", FSIG_STRUCT, 16);
	expect_param(s, 7, "d", FSIG_FLOAT, 8);
	EXPECT_EQ(s->ret.kind, FSIG_INT);
	EXPECT_EQ(s->ret.size, 8);

	fsig_format_args(buf, sizeof(buf), s, w, 8, NULL, 0);
	/* As Linux prints them: bool (not BTF_INT_SIGNED) in hex, a struct
	 * by value as its raw words with its kind. */
	EXPECT_STREQ(buf, "a=-22, flags=0x3, s=0x40001000, m=-3, p=0xdead0000, ok=0x1, "
			  "pr=(STRUCT)[0x11:0x22], d=(float)");
	fsig_format_args(buf, sizeof(buf), s, w, 6, NULL, 0);   /* x86-64's six words */
	EXPECT_STREQ(buf, "a=-22, flags=0x3, s=0x40001000, m=-3, p=0xdead0000, ok=0x1, ...");
	fsig_format_ret(buf, sizeof(buf), s, (uint64_t)-22, false);
	EXPECT_STREQ(buf, "ret=-22");
	fsig_format_ret(buf, sizeof(buf), s, 0, false);
	EXPECT_STREQ(buf, "ret=0x0");
	fsig_format_ret(buf, sizeof(buf), s, (uint64_t)-22, true);
	EXPECT_STREQ(buf, "ret=0xffffffffffffffea");
	fsig_unlock();
	EXPECT_EQ(btf_probe(1, 2, "x", PROBE_POS, buf, 1, (struct btf_probe_pair){ 3, 4 }, 5.0),
		  1 + 2 + 1 + 7 + 1 + 1 + 3 + 5);
}

/* s is a btf_twin of nparams parameters returning (ret_kind, ret_size),
 * whose words w[0, nparams) print as text. */
static void expect_twin(const struct fsig *s, unsigned nparams, unsigned ret_kind,
			unsigned ret_size, const uint64_t *w, const char *text)
{
	char buf[128];
	EXPECT_STREQ(s->name, "btf_twin");
	EXPECT_EQ(s->nparams, nparams);
	EXPECT_EQ(s->ret.kind, ret_kind);
	EXPECT_EQ(s->ret.size, ret_size);
	fsig_format_args(buf, sizeof(buf), s, w, nparams, NULL, 0);
	EXPECT_STREQ(buf, text);
}

/* Each btf_twin's own signature and text, or (want false) neither. */
static void expect_twins(bool want)
{
	char buf[32];
	const uint64_t w1[2] = { 0xfffffffb, 0x40001000 }, w2[3] = { 0x2a, 0xfffd, 1 };
	fsig_lock();
	const struct fsig *s1 = fsig_find((uintptr_t)btf_twin);
	const struct fsig *s2 = fsig_find(btf_twin_other_ip());
	if (!want) {
		fsig_unlock();
		EXPECT_TRUE(s1 == NULL);
		EXPECT_TRUE(s2 == NULL);
		return;
	}
	if (!s1 || !s2) {
		fsig_unlock();
		ASSERT_TRUE(s1 != NULL && s2 != NULL);
	}
	expect_twin(s1, 2, FSIG_INT, 8, w1, "a=-5, s=0x40001000");
	expect_param(s1, 0, "a", FSIG_INT, 4);
	expect_param(s1, 1, "s", FSIG_STR, 8);
	expect_twin(s2, 3, FSIG_UINT, 2, w2, "x=0x2a, y=-3, z=0x1");
	expect_param(s2, 0, "x", FSIG_UINT, 8);
	expect_param(s2, 1, "y", FSIG_INT, 2);
	expect_param(s2, 2, "z", FSIG_BOOL, 1);
	fsig_format_ret(buf, sizeof(buf), s2, 0xffff0027, false);
	EXPECT_STREQ(buf, "ret=0x27");
	fsig_unlock();
}

/* Two static functions named btf_twin: by address, each its own
 * signature; the same blob without the table (a heap copy, btf_load):
 * the name is ambiguous, neither has one. */
TEST_CASE(btf, twins_by_address)
{
	EXPECT_EQ(btf_twin(-5, "x"), -9);
	EXPECT_EQ(btf_twin_other_call(0x2a, -3, true), 0x28u);
	ASSERT_EQ(btf_load_embedded(), 0);
	EXPECT_TRUE(starts_with(btf_status_line(), "embedded: "));
	expect_twins(true);
	extern const char __btf_start[], __btf_end[];
	size_t size = (size_t)(__btf_end - __btf_start);
	char *copy = malloc(size);
	ASSERT_TRUE(copy != NULL);
	memcpy(copy, __btf_start, size);
	EXPECT_EQ(btf_load(copy, size, "copy"), 0);
	expect_twins(false);
	free(copy);
	ASSERT_EQ(btf_load_embedded(), 0);
	expect_twins(true);
}

/* path_walk's arguments w[0..n) as the tracer records them with
 * funcgraph-args-string: the strings captured now (fsig_str_words,
 * fsig_capture_strs, the calls the entry callback makes), then printed. */
static const char *captured(char *buf, size_t size, const struct fsig *s, const uint64_t *w,
			    unsigned n)
{
	uint8_t strs[FSIG_STRS_SIZE(4)];
	size_t len = fsig_capture_strs(strs, fsig_str_words((uintptr_t)path_walk), w, n);
	fsig_format_args(buf, size, s, w, n, strs, len);
	return buf;
}

/*
 * Bounded and fault-safe: a string longer than FSIG_STR_MAX is cut and
 * marked; NULL, a pointer below RAM, one far outside it, and strings that
 * run into the end of RAM (heap_end) before their NUL print as pointers
 * (nothing past RAM is read: a read there would fault on arm64, where
 * nothing is mapped above RAM); one whose NUL is RAM's last byte prints.
 * The captured copy is the text: changing the source afterwards changes
 * nothing.
 */
TEST_CASE(btf, strings_fault_safe)
{
	static const char long_str[] = "0123456789abcdef0123456789abcdef-and-more";
	char buf[160], want[160];
	char src[16] = "etc/passwd";
	uint64_t w[4] = { 0, 0, 0, 0 };
	volatile char *end = (volatile char *)boot_info.heap_end;
	char saved[4];
	for (int i = 0; i < 4; i++)
		saved[i] = end[i - 4];
	fsig_lock();
	const struct fsig *s = fsig_find((uintptr_t)path_walk);
	if (!s) {
		fsig_unlock();
		ASSERT_TRUE(s != NULL);
	}
	EXPECT_EQ(fsig_str_words((uintptr_t)path_walk), 1u << 1);
	EXPECT_EQ(fsig_str_words((uintptr_t)btf_probe), 1u << 2);
	EXPECT_EQ(fsig_str_words((uintptr_t)kind_name), 0);   /* enum only */
	w[1] = (uintptr_t)src;
	uint8_t strs[FSIG_STRS_SIZE(4)];
	size_t len = fsig_capture_strs(strs, fsig_str_words((uintptr_t)path_walk), w, 4);
	EXPECT_EQ(len, 2 + 10);
	strcpy(src, "@&<");                        /* reused after the call */
	fsig_format_args(buf, sizeof(buf), s, w, 4, strs, len);
	EXPECT_STREQ(buf, "start=0x0, path=\"etc/passwd\", depth=0, out=0x0");
	w[1] = (uintptr_t)long_str;
	EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2),
		     "start=0x0, path=\"0123456789abcdef0123456789abcdef\"..., ...");
	w[1] = 0;
	EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2), "start=0x0, path=0x0, ...");
	w[1] = boot_info.ram_start - 1;            /* below RAM */
	ksnprintf(want, sizeof(want), "start=0x0, path=0x%lx, ...", (unsigned long)w[1]);
	EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2), want);
	w[1] = 0xdead000000000000ull;              /* unmapped */
	EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2), "start=0x0, path=0xdead000000000000, ...");
	/* RAM's last four bytes: "abcd" straddles its end, from any start. */
	for (int i = 0; i < 4; i++)
		end[i - 4] = (char)('a' + i);
	for (int back = 1; back <= 4; back++) {
		w[1] = boot_info.heap_end - back;
		ksnprintf(want, sizeof(want), "start=0x0, path=0x%lx, ...", (unsigned long)w[1]);
		EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2), want);
	}
	end[-1] = '\0';                            /* "abc" ends at RAM's last byte */
	w[1] = boot_info.heap_end - 4;
	EXPECT_STREQ(captured(buf, sizeof(buf), s, w, 2), "start=0x0, path=\"abc\", ...");
	fsig_unlock();
	for (int i = 0; i < 4; i++)
		end[i - 4] = saved[i];
}

static uintptr_t path_walk_sig_ip(void)
{
	fsig_lock();
	const struct fsig *s = fsig_find((uintptr_t)path_walk);
	uintptr_t ip = s ? s->ip : 0;
	fsig_unlock();
	return ip;
}

TEST_CASE(btf, corrupt_copy_rejected)
{
	extern const char __btf_start[], __btf_end[];
	size_t size = (size_t)(__btf_end - __btf_start);
	char before[96];
	strcpy(before, btf_status_line());
	unsigned char *copy = malloc(size);
	ASSERT_TRUE(copy != NULL);

	memcpy(copy, __btf_start, size);
	copy[0] ^= 0xff;                           /* magic */
	EXPECT_EQ(btf_load(copy, size, "corrupt"), -EINVAL);
	memcpy(copy, __btf_start, size);
	copy[sizeof(struct btf_header) + 4 + 3] = 0x7f;   /* type 1's kind: 31 */
	EXPECT_EQ(btf_load(copy, size, "corrupt"), -EINVAL);
	memcpy(copy, __btf_start, size);
	EXPECT_EQ(btf_load(copy, size / 2, "truncated"), -EINVAL);
	free(copy);

	EXPECT_STREQ(btf_status_line(), before);
	EXPECT_EQ(path_walk_sig_ip(), (uintptr_t)path_walk);
}

/*
 * A well-formed blob that is not this image's (one byte of a name changed:
 * it parses, and matching by name alone would take it) is rejected by the
 * identity the build recorded (btf_image_ident), with its reason, and the
 * table stays; the image's own blob matches that record.
 */
TEST_CASE(btf, other_image_rejected)
{
	extern const char __btf_start[], __btf_end[];
	extern const struct btf_ident btf_image_ident;
	size_t size = (size_t)(__btf_end - __btf_start);
	char before[96];
	strcpy(before, btf_status_line());
	EXPECT_EQ(btf_image_ident.size, size);
	EXPECT_EQ(btf_image_ident.crc, btf_crc32(__btf_start, size));
	unsigned char *copy = malloc(size);
	ASSERT_TRUE(copy != NULL);
	memcpy(copy, __btf_start, size);
	copy[size - 2] ^= 0x01;            /* the last name's last character */
	EXPECT_EQ(btf_load(copy, size, "renamed"), 0);      /* well-formed */
	ASSERT_EQ(btf_load_embedded(), 0);
	strcpy(before, btf_status_line());
	EXPECT_EQ(btf_load_as(copy, size, "renamed", &btf_image_ident), -EINVAL);
	EXPECT_EQ(btf_load_as(copy, size - 1, "short", &btf_image_ident), -EINVAL);
	EXPECT_STREQ(btf_status_line(), before);
	EXPECT_EQ(path_walk_sig_ip(), (uintptr_t)path_walk);
	memcpy(copy, __btf_start, size);
	EXPECT_EQ(btf_load_as(copy, size, "copy", &btf_image_ident), 0);
	EXPECT_TRUE(starts_with(btf_status_line(), "copy: "));
	free(copy);
	ASSERT_EQ(btf_load_embedded(), 0);
}

TEST_CASE(btf, unload_and_reload)
{
	btf_unload();
	EXPECT_TRUE(!fsig_loaded());
	EXPECT_EQ(path_walk_sig_ip(), 0);
	EXPECT_STREQ(btf_status_line(), "none");
	ASSERT_EQ(btf_load_embedded(), 0);
	EXPECT_EQ(path_walk_sig_ip(), (uintptr_t)path_walk);
}

/* QEMU -initrd build/ARCH/kernel.btf: the module form loads the same. */
TEST_CASE(btf, initrd_module)
{
	if (!boot_info.initrd_size)
		TEST_SKIP("no -initrd");
	ASSERT_EQ(btf_load_initrd(), 0);
	EXPECT_TRUE(starts_with(btf_status_line(), "initrd: "));
	EXPECT_EQ(path_walk_sig_ip(), (uintptr_t)path_walk);
	expect_twins(true);
	ASSERT_EQ(btf_load_embedded(), 0);
}
