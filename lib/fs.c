/*
 * fs.c — the console and the in-memory file system behind newlib's file
 * calls (lib/fs.h for what each call does and the limits).
 *
 * A name (struct dentry) points to an inode; link() gives an inode a
 * second name, unlink() takes one away, and an inode goes when it has no
 * name and no open file.  An inode from the archive borrows its bytes from
 * the initrd (which the heap never covers) until its first write or
 * truncation copies them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/console.h"
#include "lib/fs.h"
#include "lib/initrd.h"
#include "lib/spinlock.h"
#include "lib/timekeeping.h"

#define CONSOLE_FDS 3
/* read/write return newlib's _READ_WRITE_RETURN_TYPE (int): a call moves
 * at most INT_MAX bytes, and says so by its count. */
#define RW_MAX INT_MAX

struct inode {
	char *data;              /* size bytes; inside the initrd while borrowed */
	size_t size;
	size_t cap;              /* bytes allocated at data; 0 while borrowed */
	bool borrowed;
	unsigned nlink;          /* names */
	unsigned opens;          /* open files */
	unsigned ino;
	uint32_t mode;           /* permission bits */
	int64_t mtime;           /* seconds since the epoch */
};

struct dentry {
	char *name;              /* NULL: free slot */
	struct inode *ip;
};

struct ofile {
	struct inode *ip;        /* NULL: free slot */
	off_t pos;
	int flags;               /* open()'s */
};

/* Everything below: fs_lock. */
static spinlock_t fs_lock = SPINLOCK_INIT;
static struct dentry names[FS_MAX_FILES];
static struct ofile files[FS_MAX_OPEN];
static unsigned next_ino = 1;

static int fail(int err)
{
	errno = err;
	return -1;
}

/* "/a", "./a", "//./a" are all "a". */
static const char *norm(const char *path)
{
	for (;;) {
		if (path[0] == '/')
			path++;
		else if (path[0] == '.' && path[1] == '/')
			path += 2;
		else
			return path;
	}
}

/* 0, or the errno a path is refused with. */
static int check_name(const char *name)
{
	if (!*name)
		return ENOENT;
	if (strnlen(name, FS_NAME_MAX + 1) > FS_NAME_MAX)
		return ENAMETOOLONG;
	return 0;
}

static struct dentry *lookup(const char *name)
{
	for (unsigned i = 0; i < FS_MAX_FILES; i++)
		if (names[i].name && strcmp(names[i].name, name) == 0)
			return &names[i];
	return NULL;
}

static struct dentry *free_dentry(void)
{
	for (unsigned i = 0; i < FS_MAX_FILES; i++)
		if (!names[i].name)
			return &names[i];
	return NULL;
}

static void inode_put(struct inode *ip)
{
	if (ip->nlink || ip->opens)
		return;
	if (!ip->borrowed)
		free(ip->data);
	free(ip);
}

/* Give name to a new inode in d; ENOMEM if memory runs out. */
static int create(struct dentry *d, const char *name, uint32_t mode, const void *data,
		  size_t size, int64_t mtime)
{
	struct inode *ip = calloc(1, sizeof(*ip));
	char *copy = strdup(name);
	if (!ip || !copy) {
		free(ip);
		free(copy);
		return ENOMEM;
	}
	*ip = (struct inode){ .data = (char *)data, .size = size, .borrowed = data != NULL,
			      .nlink = 1, .ino = next_ino++, .mode = mode & 07777,
			      .mtime = mtime };
	d->name = copy;
	d->ip = ip;
	return 0;
}

void fs_init(void)
{
	size_t size, off = 0;
	const uint8_t *a = initrd_archive(&size);
	struct cpio_member m;
	const char *why;
	unsigned n = 0;
	while (a && cpio_next(a, size, &off, &m, &why) == 1) {
		const char *name = norm(m.name);
		if (!S_ISREG(m.mode) || strcmp(m.name, INITRD_BTF_MEMBER) == 0)
			continue;              /* directories have no entry of their own */
		struct dentry *d = free_dentry();
		int err = check_name(name);
		if (!err && lookup(name))
			err = EEXIST;
		if (!err && !d)
			err = ENOSPC;
		/* An empty member borrows nothing: its first write allocates. */
		if (!err)
			err = create(d, name, m.mode, m.size ? m.data : NULL, m.size, m.mtime);
		if (err)
			kprintf("fs: initrd file '%s' left out: %s\n", m.name, strerror(err));
		else
			n++;
	}
	if (a)
		kprintf("fs: %u files from the initrd\n", n);
}

/* ---- the calls ---- */

static struct ofile *ofile(int fd)
{
	if (fd < CONSOLE_FDS || fd >= CONSOLE_FDS + FS_MAX_OPEN || !files[fd - CONSOLE_FDS].ip)
		return NULL;
	return &files[fd - CONSOLE_FDS];
}

static int open_locked(const char *name, int flags, mode_t mode)
{
	int acc = flags & O_ACCMODE;
	if (acc != O_RDONLY && acc != O_WRONLY && acc != O_RDWR)
		return -EINVAL;
	struct ofile *of = NULL;
	for (unsigned i = 0; i < FS_MAX_OPEN && !of; i++)
		if (!files[i].ip)
			of = &files[i];
	if (!of)
		return -EMFILE;
	struct dentry *d = lookup(name);
	if (d && (flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	if (!d) {
		if (!(flags & O_CREAT))
			return -ENOENT;
		if (!(d = free_dentry()))
			return -ENOSPC;
		int err = create(d, name, mode, NULL, 0, wallclock_ns() / 1000000000);
		if (err)
			return -err;
	}
	struct inode *ip = d->ip;
	if ((flags & O_TRUNC) && acc != O_RDONLY) {
		if (!ip->borrowed)
			free(ip->data);
		*ip = (struct inode){ .nlink = ip->nlink, .opens = ip->opens, .ino = ip->ino,
				      .mode = ip->mode, .mtime = wallclock_ns() / 1000000000 };
	}
	ip->opens++;
	*of = (struct ofile){ .ip = ip, .pos = 0, .flags = flags };
	return CONSOLE_FDS + (int)(of - files);
}

int _open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (!path)
		return fail(EFAULT);
	const char *name = norm(path);
	int err = check_name(name);
	if (err)
		return fail(err);
	unsigned long f = spin_lock_irqsave(&fs_lock);
	int r = open_locked(name, flags, mode);
	spin_unlock_irqrestore(&fs_lock, f);
	return r < 0 ? fail(-r) : r;
}

int _close(int fd)
{
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct ofile *of = ofile(fd);
	if (of) {
		struct inode *ip = of->ip;
		of->ip = NULL;
		ip->opens--;
		inode_put(ip);
	}
	spin_unlock_irqrestore(&fs_lock, f);
	return of ? 0 : fail(EBADF);
}

/* Line-at-a-time console input with echo, as a terminal would give it. */
static int console_read(char *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		char c = (char)console_getc();
		if (c == '\r')
			c = '\n';
		console_write(&c, 1);
		buf[got++] = c;
		if (c == '\n')
			break;
	}
	return (int)got;
}

_READ_WRITE_RETURN_TYPE _read(int fd, void *buf, size_t n)
{
	if (n > RW_MAX)
		n = RW_MAX;
	if (fd == 0)
		return console_read(buf, n);
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct ofile *of = ofile(fd);
	int r = -EBADF;
	if (of && (of->flags & O_ACCMODE) != O_WRONLY) {
		struct inode *ip = of->ip;
		size_t left = (size_t)of->pos < ip->size ? ip->size - (size_t)of->pos : 0;
		size_t k = n < left ? n : left;
		memcpy(buf, ip->data + of->pos, k);
		of->pos += (off_t)k;
		r = (int)k;
	}
	spin_unlock_irqrestore(&fs_lock, f);
	return r < 0 ? fail(-r) : r;
}

/* Room for `end` bytes at ip->data, owned; false if memory runs out. */
static bool reserve(struct inode *ip, size_t end)
{
	if (!ip->borrowed && end <= ip->cap)
		return true;
	size_t cap = ip->cap * 2 > end ? ip->cap * 2 : end;
	if (cap < 64)
		cap = 64;
	char *p = ip->borrowed ? malloc(cap) : realloc(ip->data, cap);
	if (!p)
		return false;
	if (ip->borrowed)
		memcpy(p, ip->data, ip->size);
	ip->data = p;
	ip->cap = cap;
	ip->borrowed = false;
	return true;
}

static int write_locked(struct ofile *of, const void *buf, size_t n)
{
	struct inode *ip = of->ip;
	size_t pos = (of->flags & O_APPEND) ? ip->size : (size_t)of->pos;
	if (n > (size_t)INT64_MAX - pos)
		return -EFBIG;
	size_t end = pos + n;
	if (n == 0)
		return 0;
	if (!reserve(ip, end))
		return -ENOSPC;
	if (pos > ip->size)
		memset(ip->data + ip->size, 0, pos - ip->size);
	memcpy(ip->data + pos, buf, n);
	if (end > ip->size)
		ip->size = end;
	ip->mtime = wallclock_ns() / 1000000000;
	of->pos = (off_t)end;
	return (int)n;
}

_READ_WRITE_RETURN_TYPE _write(int fd, const void *buf, size_t n)
{
	if (n > RW_MAX)
		n = RW_MAX;
	if (fd == 1 || fd == 2) {
		console_write(buf, n);
		return (int)n;
	}
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct ofile *of = ofile(fd);
	int r = -EBADF;
	if (of && (of->flags & O_ACCMODE) != O_RDONLY)
		r = write_locked(of, buf, n);
	spin_unlock_irqrestore(&fs_lock, f);
	return r < 0 ? fail(-r) : r;
}

off_t _lseek(int fd, off_t off, int whence)
{
	if (fd >= 0 && fd < CONSOLE_FDS)
		return fail(ESPIPE);
	unsigned long fl = spin_lock_irqsave(&fs_lock);
	struct ofile *of = ofile(fd);
	off_t r = -EBADF;
	if (of) {
		off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? of->pos :
			     whence == SEEK_END ? (off_t)of->ip->size : -1;
		if (base < 0 || (off < 0 && base + off < 0) || (off > 0 && off > INT64_MAX - base))
			r = -EINVAL;
		else
			r = of->pos = base + off;
	}
	spin_unlock_irqrestore(&fs_lock, fl);
	return r < 0 ? fail((int)-r) : r;
}

static void fill_stat(const struct inode *ip, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = 1;
	st->st_ino = ip->ino;
	st->st_mode = S_IFREG | ip->mode;
	st->st_nlink = ip->nlink;
	st->st_size = (off_t)ip->size;
	st->st_blksize = 1024;
	st->st_blocks = (blkcnt_t)((ip->size + 511) / 512);
	st->st_atime = st->st_mtime = st->st_ctime = ip->mtime;
}

int _fstat(int fd, struct stat *st)
{
	if (fd >= 0 && fd < CONSOLE_FDS) {
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFCHR;
		return 0;
	}
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct ofile *of = ofile(fd);
	if (of)
		fill_stat(of->ip, st);
	spin_unlock_irqrestore(&fs_lock, f);
	return of ? 0 : fail(EBADF);
}

int _stat(const char *path, struct stat *st)
{
	const char *name = norm(path);
	int err = check_name(name);
	if (err)
		return fail(err);
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct dentry *d = lookup(name);
	if (d)
		fill_stat(d->ip, st);
	spin_unlock_irqrestore(&fs_lock, f);
	return d ? 0 : fail(ENOENT);
}

int _unlink(const char *path)
{
	const char *name = norm(path);
	int err = check_name(name);
	if (err)
		return fail(err);
	unsigned long f = spin_lock_irqsave(&fs_lock);
	struct dentry *d = lookup(name);
	if (d) {
		struct inode *ip = d->ip;
		free(d->name);
		*d = (struct dentry){ 0 };
		ip->nlink--;
		inode_put(ip);
	}
	spin_unlock_irqrestore(&fs_lock, f);
	return d ? 0 : fail(ENOENT);
}

static int link_locked(const char *old, const char *new)
{
	struct dentry *o = lookup(old), *n;
	if (!o)
		return ENOENT;
	if (lookup(new))
		return EEXIST;
	if (!(n = free_dentry()))
		return ENOSPC;
	if (!(n->name = strdup(new)))
		return ENOMEM;
	n->ip = o->ip;
	n->ip->nlink++;
	return 0;
}

int _link(const char *oldpath, const char *newpath)
{
	const char *old = norm(oldpath), *new = norm(newpath);
	int err = check_name(old);
	if (!err)
		err = check_name(new);
	if (err)
		return fail(err);
	unsigned long f = spin_lock_irqsave(&fs_lock);
	err = link_locked(old, new);
	spin_unlock_irqrestore(&fs_lock, f);
	return err ? fail(err) : 0;
}

int _isatty(int fd)
{
	if (fd >= 0 && fd < CONSOLE_FDS)
		return 1;
	unsigned long f = spin_lock_irqsave(&fs_lock);
	bool open = ofile(fd) != NULL;
	spin_unlock_irqrestore(&fs_lock, f);
	errno = open ? ENOTTY : EBADF;
	return 0;
}

/* Some newlib targets (x86_64-elf) call the plain names. */
int open(const char *path, int flags, ...) __attribute__((alias("_open")));
int close(int fd) __attribute__((alias("_close")));
_READ_WRITE_RETURN_TYPE read(int fd, void *buf, size_t n) __attribute__((alias("_read")));
_READ_WRITE_RETURN_TYPE write(int fd, const void *buf, size_t n) __attribute__((alias("_write")));
off_t lseek(int fd, off_t off, int whence) __attribute__((alias("_lseek")));
int fstat(int fd, struct stat *st) __attribute__((alias("_fstat")));
int stat(const char *path, struct stat *st) __attribute__((alias("_stat")));
int unlink(const char *path) __attribute__((alias("_unlink")));
int link(const char *oldpath, const char *newpath) __attribute__((alias("_link")));
int isatty(int fd) __attribute__((alias("_isatty")));
