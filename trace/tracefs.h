/*
 * tracefs.h — the tracefs files, each registered by the file that owns
 * its subsystem, and the helpers their readers and writers share.
 *
 *   static int cat_foo(const char *arg) { ... }
 *   static int set_foo(const char *arg, const char *value, bool append) { ... }
 *   TRACEFS_FILE(250, "foo", .cat = cat_foo, .write = set_foo);
 *
 * trace/tracefs.c finds a file by name for `cat`, `echo` and `ls`, prints
 * what a shell prints for a file it cannot use, and lists the files in
 * order of their key (`ls`, `help`): a three-digit number, unique; the
 * shell's session test compares that order (`grep -rn 'TRACEFS_FILE('
 * trace` shows the table).  The linker sorts the .tracefs_files.KEY sections by name
 * (linker/ARCH.ld), so the order is the keys', whatever the link order.
 *
 * Contract of a file's functions: thread context (the shell); a write
 * parses and checks its whole value before it changes anything, and on
 * an error prints the message itself (tracefs_write_error) and returns
 * -errno.  `arg` is the entry inside a directory ("" for a plain file).
 */
#ifndef TRACE_TRACEFS_H
#define TRACE_TRACEFS_H

#include <stdbool.h>

struct tracefs_file {
	const char *name;           /* ends with '/': a directory of entries */
	int (*cat)(const char *arg);                /* every file has one */
	int (*write)(const char *arg, const char *value, bool append);  /* NULL: read-only */
	bool append;                /* `>>` adds to the set */
	/* A directory's: `entry` "" prints every entry, else 0 if the
	 * directory has it, -ENOENT if not; a directory inside it
	 * (per_cpu/cpuN) prints its entries and returns 1.  cat/write of an
	 * entry return -ENOENT (no such entry), -EISDIR (a directory inside)
	 * or -EACCES (read-only), and the shell says so. */
	int (*ls)(const char *entry);
};

#define TRACEFS_FILE(key, fname, ...)                                             \
	static const struct tracefs_file __tracefs_file_##key                      \
		__attribute__((used, section(".tracefs_files." #key), aligned(8))) = \
		{ .name = fname, __VA_ARGS__ }

/* "echo: write error: Invalid argument (why)", or without `why` the
 * strerror-like text of err (-ENOMEM, -EINVAL, else "Device or resource
 * busy").  Returns err. */
int tracefs_write_error(int err, const char *why);
/* A decimal count up to `max`: false unless the whole string is one (no
 * sign, no blank). */
bool tracefs_parse_ulong(const char *s, unsigned long *out, unsigned long max);
/* kprintf("%s\n", line): the `out` of the listing functions. */
void tracefs_print_line(void *ctx, const char *line);

#endif
