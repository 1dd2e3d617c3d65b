/*
 * demo.c — the default workload: a small in-memory file system looked up by
 * several threads on several CPUs, plus accounting work in the timer
 * interrupt.  It is built with patchable entries like any kernel code and is
 * shaped to exercise a tracer: call chains more than six deep, recursion,
 * tail calls (`return f(x);` compiled to a jump), functions taking and
 * returning ints, pointers, enums and strings, and negative error codes.
 *
 * The result is deterministic: demo_main() checks its totals against the
 * values computed from the tree and returns 0 only if they match.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "boot/console.h"
#include "boot/irq.h"
#include "boot/main.h"
#include "boot/sched.h"

#define NOINLINE __attribute__((noinline))
#define WORKERS 4
#define ROUNDS 50

enum file_kind { FILE_REGULAR, FILE_DIR, FILE_SYMLINK };

struct inode {
	const char *name;
	enum file_kind kind;
	int size;                       /* bytes, for regular files */
	const char *target;             /* symlinks */
	struct inode *child[4];
};

static struct inode f_passwd = { "passwd", FILE_REGULAR, 1210 };
static struct inode f_hosts = { "hosts", FILE_REGULAR, 187 };
static struct inode l_motd = { "motd", FILE_SYMLINK, 0, "/usr/share/motd" };
static struct inode d_etc = { "etc", FILE_DIR, 0, 0, { &f_passwd, &f_hosts, &l_motd } };
static struct inode f_motd = { "motd", FILE_REGULAR, 64 };
static struct inode f_bt = { "baretrace.txt", FILE_REGULAR, 4096 };
static struct inode d_share = { "share", FILE_DIR, 0, 0, { &f_motd, &f_bt } };
static struct inode l_loop = { "loop", FILE_SYMLINK, 0, "/usr/loop" };
static struct inode d_usr = { "usr", FILE_DIR, 0, 0, { &d_share, &l_loop } };
static struct inode root = { "", FILE_DIR, 0, 0, { &d_etc, &d_usr } };

static const char *const paths[] = {
	"/etc/passwd", "/etc/hosts", "/etc/motd", "/usr/share/baretrace.txt",
	"/etc/shadow", "/etc/passwd/x", "/usr/loop", "/usr/share",
};
/* What vfs_stat() must return for each path above. */
static const int expect[] = { 1210, 187, 64, 4096, -ENOENT, -ENOTDIR, -ELOOP, 0 };

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
	return path_walk(&root, link->target, depth + 1, out);
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
	int err = path_walk(&root, path, 0, &i);
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

struct worker {
	int id;
	long found_bytes;
	int errors, mismatches;
	enum file_kind last_kind;
};

NOINLINE int worker_main(void *arg)
{
	struct worker *w = arg;
	for (int r = 0; r < ROUNDS; r++) {
		for (unsigned p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			int rc = vfs_stat(paths[(p + w->id) % 8]);
			if (rc != expect[(p + w->id) % 8])
				w->mismatches++;
			if (rc < 0)
				w->errors++;
			else
				w->found_bytes += rc;
		}
		if (r % 10 == 0)
			thread_yield();
	}
	w->last_kind = root.child[w->id % 2]->kind;
	return w->mismatches ? -EIO : 0;
}

/* Interrupt work: every timer tick on every CPU during the run. */
static unsigned long irq_lookups;          /* atomic */
NOINLINE void demo_tick(void)
{
	if (vfs_stat("/etc/hosts") == 187)
		__atomic_fetch_add(&irq_lookups, 1, __ATOMIC_RELAXED);
}

/* The demo's work without threads: n lookups; returns the bytes found. */
long demo_lookups(int n)
{
	long bytes = 0;
	for (int i = 0; i < n; i++) {
		int rc = vfs_stat(paths[i % 8]);
		bytes += rc > 0 ? rc : 0;
	}
	return bytes;
}

int demo_main(void)
{
	struct worker w[WORKERS];
	struct thread *t[WORKERS];
	timer_hook = demo_tick;
	for (int i = 0; i < WORKERS; i++) {
		w[i] = (struct worker){ .id = i };
		t[i] = thread_create("demo-worker", worker_main, &w[i], i % (int)ncpus);
	}
	int failed = 0;
	long bytes = 0;
	for (int i = 0; i < WORKERS; i++) {
		failed |= thread_join(t[i]) != 0;
		bytes += w[i].found_bytes;
	}
	timer_hook = NULL;
	long per_pass = 0;
	for (int p = 0; p < 8; p++)
		per_pass += expect[p] > 0 ? expect[p] : 0;
	long want = per_pass * ROUNDS * WORKERS;
	kprintf("demo: %d workers x %d rounds of 8 lookups: %ld bytes found (expected %ld), "
		"tree holds %ld bytes in a %s, %lu lookups from the timer interrupt\n",
		WORKERS, ROUNDS, bytes, want, tree_bytes(&root), kind_name(root.kind),
		irq_lookups);
	return failed || bytes != want || tree_bytes(&root) != 5557 ? 1 : 0;
}
