/*
 * fuzz_btf.c — libFuzzer target over trace/btf/btf.c and trace/btf/fsig.c (built
 * with FSIG_HOST; clang -fsanitize=fuzzer,address,undefined).
 *
 * Each input is copied to an aligned buffer of exactly its size (ASan sees
 * any read past it) and loaded with btf_load(): parse, every check, the
 * signature table.  If it loads, every signature found is printed with
 * arguments (strings on, through a reader that fakes faults) and return
 * values into a small buffer, then the table is dropped.  Every name gets
 * an address from a hash; names hashing to 0 mod 7 are "ambiguous".
 * Seeds: the BTF of tests/host/btf_sample.c and the kernel's blobs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/btf/btf.h"
#include "trace/btf/fsig.h"

/* ksnprintf, kvsnprintf: host_snprintf.c */

void fsig_lock(void) {}
void fsig_unlock(void) {}
void fsig_port_log(const char *line) { (void)line; }

#define MAX_SEEN 256
static uintptr_t seen[MAX_SEEN];
static unsigned nseen;

int fsig_port_address(const char *name, uintptr_t *addr)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	if (h % 7 == 0)
		return -EEXIST;
	if (h % 11 == 0)
		return -ENOENT;
	*addr = (uintptr_t)(h | 1);
	if (nseen < MAX_SEEN)
		seen[nseen++] = *addr;
	return 0;
}

/* Odd addresses fault; even ones read a fixed text without a NUL. */
int fsig_port_read_str(char *dst, uintptr_t src, size_t max, size_t *len)
{
	static const char text[] = "fuzz \"quoted\" \\ \x01\xff and more than 32 bytes";
	if (src & 1)
		return -EFAULT;
	size_t n = max < sizeof(text) - 1 ? max : sizeof(text) - 1;   /* no NUL */
	memcpy(dst, text, n);
	*len = n;
	return 0;
}

bool fsig_port_ram(uintptr_t addr, size_t len)
{
	(void)addr;
	(void)len;
	return false;                     /* nothing to read on the host */
}

void fsig_port_retire(void *old)
{
	free(old);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *blob = malloc(size ? size : 1);
	if (!blob)
		return 0;
	memcpy(blob, data, size);
	nseen = 0;
	if (btf_load(blob, size, "fuzz") == 0) {
		/* The table must not point into the blob: poison it first. */
		memset(blob, 0xa5, size);
		static const uint64_t words[8] = { 0, 1, (uint64_t)-22, 0x1000, 0x1001,
						   0xffffffff, 0x8000000000000000ull, 7 };
		char buf[96];
		uint8_t strs[FSIG_STRS_SIZE(8)];
		fsig_lock();
		for (unsigned i = 0; i < nseen; i++) {
			const struct fsig *s = fsig_find(seen[i]);
			if (!s)
				continue;
			(void)strlen(s->name);
			for (unsigned n = 0; n <= 8; n += 3) {
				size_t len = fsig_capture_strs(strs, fsig_str_words(s->ip), words, n);
				fsig_format_args(buf, sizeof(buf), s, words, n, strs, len);
				fsig_format_args(buf, sizeof(buf), s, words + 1, n, NULL, 0);
				/* The input itself as string records: malformed ones. */
				fsig_format_args(buf, sizeof(buf), s, words, n, data, size);
			}
			fsig_format_ret(buf, sizeof(buf), s, words[i % 8], i & 1);
		}
		fsig_unlock();
		btf_unload();
	}
	free(blob);
	return 0;
}
