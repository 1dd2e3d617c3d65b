/*
 * initrd.h — what QEMU's -initrd holds, and the cpio "newc" reader.
 *
 * The initrd is either a raw BTF blob (the module btf=initrd loads, as
 * before: `INITRD=build/ARCH/kernel.btf`) or a cpio "newc" archive
 * (tools/mkinitrd.py, APP_DATA=): its member `kernel.btf` is the BTF
 * module and its other members are the APP's files (lib/fs.h).  They are
 * told apart by magic: a cpio archive starts with "070701", a BTF blob
 * with 0xeB9F.
 *
 * initrd_init() runs once on the boot CPU in kernel_main, before the
 * tracer starts and before any file is opened.  It allocates nothing.
 * For an archive it points boot_info.initrd_start / initrd_size at the
 * kernel.btf member (0 if there is none), so btf=initrd finds the module
 * in either form, and keeps the archive for initrd_archive().  Written once
 * there, read-only afterwards.
 *
 * The cpio format (the one Linux's initramfs reads): each member is a
 * 110-byte header of ASCII "070701" and 13 fields of 8 hex digits (ino,
 * mode, uid, gid, nlink, mtime, filesize, devmajor, devminor, rdevmajor,
 * rdevminor, namesize with the NUL, check), the NUL-terminated name padded
 * to a multiple of 4 bytes counted from the header's start, then the data
 * padded to 4; a member named "TRAILER!!!" ends the archive.
 */
#ifndef LIB_INITRD_H
#define LIB_INITRD_H

#include <stddef.h>
#include <stdint.h>

#define INITRD_BTF_MEMBER "kernel.btf"

struct cpio_member {
	const char *name;          /* NUL-terminated, inside the archive */
	const void *data;          /* inside the archive */
	size_t size;
	uint32_t mode;             /* st_mode bits as written (S_IFREG | 0644, ...) */
	uint32_t mtime;            /* seconds since the epoch */
};

/*
 * The member at byte *off of the archive [base, base + size): returns 1
 * and fills *m, moving *off to the next member; 0 at the trailer; -1 if
 * the archive is malformed there (*why says what: bad magic, a bad hex
 * digit, a name or data running past the end, a name without its NUL).
 * Never reads outside the archive.
 */
int cpio_next(const uint8_t *base, size_t size, size_t *off, struct cpio_member *m,
	      const char **why);

/* Boot CPU, once, before trace_init() (see above).  Says on the console
 * when an archive is malformed; then no member of it is used. */
void initrd_init(void);

/* The cpio archive QEMU loaded, or NULL (none, a raw BTF blob, malformed). */
const uint8_t *initrd_archive(size_t *size);

#endif
