/*
 * ksyms.c — lookups in the table emitted by tools/gen-ksyms.py (see its
 * header for the layout).  Both lookups are binary searches.
 */
#include <errno.h>
#include <string.h>

#include "boot/console.h"
#include "boot/ksyms.h"

extern const uint64_t ksyms_count, ksyms_text_end;
extern const uint64_t ksyms_addr[];
extern const uint32_t ksyms_name[], ksyms_by_name[];
extern const char ksyms_strings[];

size_t ksym_count(void) { return ksyms_count; }
uintptr_t ksym_addr_at(size_t i) { return ksyms_addr[i]; }
const char *ksym_name_at(size_t i) { return ksyms_strings + ksyms_name[i]; }

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size)
{
	size_t lo = 0, hi = ksyms_count;
	if (hi == 0 || addr < ksyms_addr[0] || addr >= ksyms_text_end)
		return NULL;
	while (hi - lo > 1) {               /* invariant: addr_at(lo) <= addr */
		size_t mid = lo + (hi - lo) / 2;
		if (ksyms_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* Aliases share an address: report the last one's end as the next
	 * distinct address. */
	size_t next = lo + 1;
	while (next < ksyms_count && ksyms_addr[next] == ksyms_addr[lo])
		next++;
	uintptr_t end = next < ksyms_count ? ksyms_addr[next] : ksyms_text_end;
	if (offset)
		*offset = addr - ksyms_addr[lo];
	if (size)
		*size = end - ksyms_addr[lo];
	return ksym_name_at(lo);
}

uintptr_t ksym_address(const char *name)
{
	size_t lo = 0, hi = ksyms_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t i = ksyms_by_name[mid];
		int c = strcmp(ksym_name_at(i), name);
		if (c == 0)
			return ksyms_addr[i];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int ksym_address_unique(const char *name, uintptr_t *addr)
{
	size_t lo = 0, hi = ksyms_count;               /* first name >= name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ksym_name_at(ksyms_by_name[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ksyms_count || strcmp(ksym_name_at(ksyms_by_name[lo]), name) != 0)
		return -ENOENT;
	if (lo + 1 < ksyms_count && strcmp(ksym_name_at(ksyms_by_name[lo + 1]), name) == 0)
		return -EEXIST;
	*addr = ksyms_addr[ksyms_by_name[lo]];
	return 0;
}

int ksym_format(char *buf, size_t size, uintptr_t addr)
{
	uintptr_t off, len;
	const char *name = ksym_lookup(addr, &off, &len);
	if (!name)
		return ksnprintf(buf, size, "0x%lx", (unsigned long)addr);
	return ksnprintf(buf, size, "%s+0x%lx/0x%lx", name, (unsigned long)off,
			 (unsigned long)len);
}
