/*
 * fs.h — file descriptors for newlib (lib/fs.c): the console and a flat
 * in-memory file system.
 *
 * fds 0, 1 and 2 are the console: 0 reads a line at a time with echo, 1
 * and 2 write; they are always open (close() says EBADF) and isatty().
 * Files: the members of the initrd's cpio archive but kernel.btf (the
 * APP's data directory, lib/initrd.h), read in place until first written,
 * and files created since boot.  Everything is in memory and gone at
 * power-off; writes are seen by every later open in the same boot.
 *
 * The calls (each also under its plain name): _open (O_RDONLY, O_WRONLY,
 * O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND), _close, _read, _write,
 * _lseek (SEEK_SET/CUR/END, past the end too: a write there fills the gap
 * with zeros), _fstat, _stat, _unlink, _link (so rename() works), _isatty.
 * Errors, in errno: ENOENT (no such name, an empty one), EEXIST (O_CREAT |
 * O_EXCL, link to an existing name), ENAMETOOLONG, EMFILE (no free fd),
 * ENOSPC (name table full, or no memory for a write), ENOMEM (no memory
 * for a new file), EBADF (not open, or not open for that direction),
 * EINVAL (bad flags, whence or resulting offset), ESPIPE (lseek on the
 * console), EFBIG (a write past what an offset holds), ENOTTY (isatty of
 * a file).
 *
 * Names: paths as the archive wrote them ("sub/x.txt"); leading "/" and
 * "./" are ignored; there are no directories (no mkdir, opendir, ".."),
 * a name may contain "/".  Modes are kept and shown by stat, not enforced.
 *
 * Context: thread context or interrupt handlers for the console fds (no
 * lock here: stdio's and the console's serialise them); files from thread
 * context, serialised by one interrupt-safe spinlock (fs_lock).
 */
#ifndef LIB_FS_H
#define LIB_FS_H

#define FS_MAX_FILES 256     /* names in the file system (tools/mkinitrd.py) */
#define FS_NAME_MAX  127     /* bytes in a name, without the NUL (tools/mkinitrd.py) */
#define FS_MAX_OPEN  64      /* open files beside the console: fds 3..66 */

/* Boot CPU, once, after the scheduler is set up (allocates) and
 * initrd_init(): the archive's files become names. */
void fs_init(void);

#endif
