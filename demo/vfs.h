/*
 * vfs.h — the demo's in-memory file system (demo/vfs.c), shared by the
 * kernel demo and the host comparison benchmark.
 */
#ifndef DEMO_VFS_H
#define DEMO_VFS_H

enum file_kind { FILE_REGULAR, FILE_DIR, FILE_SYMLINK };

struct inode {
	const char *name;
	enum file_kind kind;
	int size;                       /* bytes, for regular files */
	const char *target;             /* symlinks */
	struct inode *child[4];
};

extern struct inode vfs_root;
extern const char *const vfs_paths[8];
extern const int vfs_expect[8];         /* what vfs_stat() returns for each path */

const char *kind_name(enum file_kind k);
int vfs_stat(const char *path);         /* size, or a negative errno */
long tree_bytes(const struct inode *i); /* recursion */
long demo_lookups(int n);               /* n lookups; the bytes found */

#endif
