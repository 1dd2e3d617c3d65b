/*
 * initrd.c — tell a raw BTF blob from a cpio archive, and read the archive
 * (lib/initrd.h for the format and the rules).
 */
#include <string.h>

#include "boot/boot_info.h"
#include "boot/console.h"
#include "lib/initrd.h"

#define CPIO_HDR 110
#define CPIO_FIELDS 13

enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_DEVMAJOR, F_DEVMINOR,
       F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK };

static const uint8_t *archive;     /* initrd_init(), then read-only */
static size_t archive_size;

static int hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 8; i++) {
		unsigned c = p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

int cpio_next(const uint8_t *base, size_t size, size_t *off, struct cpio_member *m,
	      const char **why)
{
	size_t at = *off;
	uint32_t f[CPIO_FIELDS];
	if (at > size || size - at < CPIO_HDR) {
		*why = "archive ends inside a header (no TRAILER!!!)";
		return -1;
	}
	const uint8_t *h = base + at;
	if (memcmp(h, "070701", 6) != 0) {
		*why = "bad header magic (not 070701)";
		return -1;
	}
	for (int i = 0; i < CPIO_FIELDS; i++)
		if (hex8(h + 6 + 8 * i, &f[i]) < 0) {
			*why = "bad hex digit in a header";
			return -1;
		}
	size_t name_end = CPIO_HDR + (size_t)f[F_NAMESIZE];
	if (f[F_NAMESIZE] == 0 || name_end > size - at) {
		*why = "name runs past the end";
		return -1;
	}
	if (h[name_end - 1] != 0) {
		*why = "name without its NUL";
		return -1;
	}
	size_t data_at = pad4(name_end);
	if (data_at > size - at || f[F_FILESIZE] > size - at - data_at) {
		*why = "data runs past the end";
		return -1;
	}
	m->name = (const char *)h + CPIO_HDR;
	m->data = h + data_at;
	m->size = f[F_FILESIZE];
	m->mode = f[F_MODE];
	m->mtime = f[F_MTIME];
	if (strcmp(m->name, "TRAILER!!!") == 0)
		return 0;
	*off = at + pad4(data_at + f[F_FILESIZE]);
	return 1;
}

void initrd_init(void)
{
	const uint8_t *p = (const uint8_t *)boot_info.initrd_start;
	size_t size = boot_info.initrd_size;
	if (!p || size < 6 || memcmp(p, "070701", 6) != 0)
		return;               /* none, or a raw blob: btf=initrd judges it */
	/* Walk it all once: a malformed archive is refused whole. */
	const void *btf = NULL;
	size_t btf_size = 0, off = 0, files = 0;
	struct cpio_member m;
	const char *why = NULL;
	int r;
	while ((r = cpio_next(p, size, &off, &m, &why)) == 1) {
		if (strcmp(m.name, INITRD_BTF_MEMBER) == 0 && !btf) {
			btf = m.data;
			btf_size = m.size;
		} else {
			files++;
		}
	}
	if (r < 0) {
		kprintf("initrd: cpio archive malformed at byte %lu: %s; none of it is used\n",
			(unsigned long)off, why);
		btf = NULL;
		btf_size = 0;
	} else {
		archive = p;
		archive_size = size;
		kprintf("initrd: cpio archive, %lu bytes: %s, %lu other members\n",
			(unsigned long)size, btf ? "kernel.btf" : "no kernel.btf", (unsigned long)files);
	}
	boot_info.initrd_start = (uintptr_t)btf;
	boot_info.initrd_size = btf_size;
}

const uint8_t *initrd_archive(size_t *size)
{
	*size = archive_size;
	return archive;
}
