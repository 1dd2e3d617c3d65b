/*
 * tracefs.c — the tracefs files as shell commands.
 *
 *   cat FILE             print it
 *   echo VALUE > FILE    write it (replace)
 *   echo VALUE >> FILE   append (filter files only)
 *   ls [PATH]            the files, a directory's entries
 *
 * The files are registered by their owners (TRACEFS_FILE, trace/tracefs.h)
 * in the .tracefs_files section, sorted by key; this file finds them, says
 * what a shell says of a file it cannot use (no such file, a directory,
 * read-only), and holds the helpers every file may use: the tracefs
 * error text, number parsing.  Each write is parsed and checked completely before anything
 * changes; an error is reported in tracefs terms (the message bash prints
 * for a failed write, with the reason in parentheses) and leaves the
 * tracer's state as it was.  Thread context (the shell).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "boot/console.h"
#include "trace/boot.h"
#include "trace/cmdparse.h"
#include "trace/tracefs.h"

extern const struct tracefs_file __tracefs_files_start[], __tracefs_files_end[];

void tracefs_print_line(void *ctx, const char *line)
{
	kprintf("%s\n", line);
}

int tracefs_write_error(int err, const char *why)
{
	if (why)
		kprintf("echo: write error: Invalid argument (%s)\n", why);
	else
		kprintf("echo: write error: %s\n", err == -ENOMEM ? "Cannot allocate memory" :
			err == -EINVAL ? "Invalid argument" :
			err == -EOPNOTSUPP ? "Operation not supported" : "Device or resource busy");
	return err;
}

bool tracefs_parse_ulong(const char *s, unsigned long *out, unsigned long max)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;                  /* no sign, no blank */
	errno = 0;
	*out = strtoul(s, &end, 10);
	return *end == '\0' && errno == 0 && *out <= max;
}

/* The file `path` names, and in *arg the entry inside a directory. */
static const struct tracefs_file *find_file(const char *path, const char **arg)
{
	for (const struct tracefs_file *f = __tracefs_files_start; f < __tracefs_files_end; f++) {
		size_t n = strlen(f->name);
		bool dir = f->name[n - 1] == '/';
		if (dir ? !strncmp(path, f->name, n) && path[n] : !strcmp(path, f->name)) {
			*arg = path + (dir ? n : 0);
			return f;
		}
	}
	return NULL;
}

/* The directory `path` names ("options" or "options/"), or NULL. */
static const struct tracefs_file *find_dir(const char *path)
{
	size_t n = strlen(path);
	if (n && path[n - 1] == '/')
		n--;
	for (const struct tracefs_file *f = __tracefs_files_start; f < __tracefs_files_end && n; f++)
		if (f->ls && !strncmp(path, f->name, n) && f->name[n] == '/')
			return f;
	return NULL;
}

/* What cat and echo say of a file they cannot use, as a shell does
 * (the file's own errors print themselves); returns err. */
static int file_error(const char *op, const char *path, int err)
{
	const char *what = err == -ENOENT ? "No such file or directory" :
			   err == -EISDIR ? "Is a directory" :
			   err == -EACCES ? "Permission denied" : NULL;
	if (what)
		kprintf("%s: %s: %s\n", op, path, what);
	return err;
}

static int cat(const char *path)
{
	const char *arg;
	const struct tracefs_file *f = find_dir(path) ? NULL : find_file(path, &arg);
	int err = find_dir(path) ? -EISDIR : f && f->cat ? f->cat(arg) : -ENOENT;
	return file_error("cat", path, err);
}

static int write_file(const char *path, const char *value, bool append)
{
	const char *arg;
	const struct tracefs_file *f = find_dir(path) ? NULL : find_file(path, &arg);
	int err;
	if (find_dir(path))
		err = -EISDIR;
	else if (!f)
		err = -ENOENT;
	else if (!f->write)
		err = -EACCES;
	else if (append && !f->append) {
		kprintf("echo: %s: '>>' only appends to filter files\n", path);
		return -EINVAL;
	} else
		err = f->write(arg, value, append);
	return file_error("echo", path, err);
}

/* "echo WORDS > FILE" / "echo WORDS >> FILE" (trace/cmdparse.h). */
static int echo(char *args)
{
	struct echo_args e;
	const char *why;
	if (cmdparse_echo(args, &e, &why)) {
		kprintf("echo: %s\n", why);
		return -EINVAL;
	}
	if (!e.file) {
		kprintf("%s\n", e.value);    /* plain echo */
		return 0;
	}
	return write_file(e.file, e.value, e.append);
}

/* "ls [PATH]": the files, one per line, a directory with its '/'; a
 * directory's entries (its ls); a file or a directory's entry by name if
 * there is one, as cat finds it. */
static int ls(const char *path)
{
	if (!*path || !strcmp(path, "/")) {
		tracefs_list_files(tracefs_print_line, NULL);
		return 0;
	}
	const struct tracefs_file *f = find_dir(path);
	if (f)
		return f->ls("");
	const char *arg;
	f = find_file(path, &arg);
	int r = f && f->ls ? f->ls(arg) : f ? 0 : -ENOENT;
	if (r > 0)
		return 0;                /* a directory inside: listed */
	if (r == 0) {
		kprintf("%s\n", path);
		return 0;
	}
	kprintf("ls: cannot access '%s': No such file or directory\n", path);
	return -ENOENT;
}

int tracefs_command(const char *cmd, char *args, bool *handled)
{
	*handled = true;
	if (!strcmp(cmd, "cat")) {
		if (!*args) {
			kprintf("cat: which file? (try 'help')\n");
			return -EINVAL;
		}
		return cat(args);
	}
	if (!strcmp(cmd, "echo"))
		return echo(args);
	if (!strcmp(cmd, "ls"))
		return ls(args);
	*handled = false;
	return 0;
}

void tracefs_list_files(void (*out)(void *ctx, const char *line), void *ctx)
{
	for (const struct tracefs_file *f = __tracefs_files_start; f < __tracefs_files_end; f++)
		out(ctx, f->name);
}
