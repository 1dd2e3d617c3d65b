/*
 * vfs.c — the demo's work: a small in-memory file system and path lookups.
 *
 * Pure C with no kernel dependency, so the same source also builds for the
 * host (tools/bench-uftrace.py compares uftrace on it).  Shaped to exercise
 * a tracer: call chains more than six deep, recursion (tree_bytes), a tail
 * call (follow_link: `return path_walk(...)`), ints, pointers, enums,
 * strings and negative error codes.
 */
#include <errno.h>
#include <string.h>

#include "demo/vfs.h"

#define NOINLINE __attribute__((noinline))

static struct inode f_passwd = { "passwd", FILE_REGULAR, 1210 };
static struct inode f_hosts = { "hosts", FILE_REGULAR, 187 };
static struct inode l_motd = { "motd", FILE_SYMLINK, 0, "/usr/share/motd" };
static struct inode d_etc = { "etc", FILE_DIR, 0, 0, { &f_passwd, &f_hosts, &l_motd } };
static struct inode f_motd = { "motd", FILE_REGULAR, 64 };
static struct inode f_bt = { "baretrace.txt", FILE_REGULAR, 4096 };
static struct inode d_share = { "share", FILE_DIR, 0, 0, { &f_motd, &f_bt } };
static struct inode l_loop = { "loop", FILE_SYMLINK, 0, "/usr/loop" };
static struct inode d_usr = { "usr", FILE_DIR, 0, 0, { &d_share, &l_loop } };
struct inode vfs_root = { "", FILE_DIR, 0, 0, { &d_etc, &d_usr } };

const char *const vfs_paths[] = {
	"/etc/passwd", "/etc/hosts", "/etc/motd", "/usr/share/baretrace.txt",
	"/etc/shadow", "/etc/passwd/x", "/usr/loop", "/usr/share",
};
/* What vfs_stat() must return for each path above. */
const int vfs_expect[] = { 1210, 187, 64, 4096, -ENOENT, -ENOTDIR, -ELOOP, 0 };

NOINLINE const char *kind_name(enum file_kind k)
{
	switch (k) {
	case FILE_REGULAR: return "file";
	case FILE_DIR: return "dir";
	case FILE_SYMLINK: return "symlink";
	}
	return "?";
}

NOINLINE unsigned name_hash(const char *s, int len)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

NOINLINE int name_eq(const struct inode *i, const char *s, int len)
{
	return (int)strlen(i->name) == len && memcmp(i->name, s, len) == 0;
}

NOINLINE struct inode *dir_lookup(struct inode *dir, const char *s, int len)
{
	unsigned want = name_hash(s, len);
	for (int i = 0; i < 4 && dir->child[i]; i++)
		if (name_hash(dir->child[i]->name, strlen(dir->child[i]->name)) == want &&
		    name_eq(dir->child[i], s, len))
			return dir->child[i];
	return NULL;
}

NOINLINE int path_walk(struct inode *start, const char *path, int depth,
		       struct inode **out);

/* Tail call: the symlink's target is walked with `return path_walk(...)`. */
NOINLINE int follow_link(struct inode *link, int depth, struct inode **out)
{
	if (depth >= 2)
		return -ELOOP;
	return path_walk(&vfs_root, link->target, depth + 1, out);
}

NOINLINE int walk_component(struct inode **cur, const char *s, int len, int depth)
{
	if ((*cur)->kind != FILE_DIR)
		return -ENOTDIR;
	struct inode *next = dir_lookup(*cur, s, len);
	if (!next)
		return -ENOENT;
	if (next->kind == FILE_SYMLINK) {
		int err = follow_link(next, depth, &next);
		if (err)
			return err;
	}
	*cur = next;
	return 0;
}

NOINLINE int path_walk(struct inode *start, const char *path, int depth,
		       struct inode **out)
{
	struct inode *cur = start;
	while (*path) {
		while (*path == '/')
			path++;
		int len = (int)strcspn(path, "/");
		if (!len)
			break;
		int err = walk_component(&cur, path, len, depth);
		if (err)
			return err;
		path += len;
	}
	*out = cur;
	return 0;
}

NOINLINE int inode_size(const struct inode *i)
{
	return i->kind == FILE_REGULAR ? i->size : 0;
}

/* Returns the file's size, or a negative errno. */
NOINLINE int vfs_stat(const char *path)
{
	struct inode *i;
	int err = path_walk(&vfs_root, path, 0, &i);
	if (err)
		return err;
	return inode_size(i);
}

/* Recursion: total size of a tree (symlinks count 0). */
NOINLINE long tree_bytes(const struct inode *i)
{
	long sum = inode_size(i);
	for (int c = 0; c < 4 && i->child[c]; c++)
		sum += tree_bytes(i->child[c]);
	return sum;
}

/* The demo's work without threads: n lookups; returns the bytes found. */
long demo_lookups(int n)
{
	long bytes = 0;
	for (int i = 0; i < n; i++) {
		int rc = vfs_stat(vfs_paths[i % 8]);
		bytes += rc > 0 ? rc : 0;
	}
	return bytes;
}

