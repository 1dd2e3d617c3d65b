/*
 * shell.c — the console shell (`trace>`): line editing and a command table.
 *
 * Line editing: printable bytes, bytes from 0x80 (UTF-8, kept as typed)
 * and tabs (blanks, shown as spaces) are echoed, backspace/DEL erases one
 * character, Ctrl-U erases the line, Ctrl-C abandons it.  A terminal's
 * escape sequence (an arrow or function key) is dropped whole with a bell;
 * any other control byte makes the line refused when it ends: no byte
 * typed is dropped or changed in a line that runs.
 *
 * A line is first offered to the tracefs commands (trace/tracefs/tracefs.c: cat,
 * echo), then looked up in `commands`; an unknown one is reported and
 * changes nothing.
 *
 * Script mode (bt.script, set by tools/qemu-run.sh when stdin is a pipe or a
 * file): the same, without prompts, until Ctrl-D (0x04, which qemu-run.sh
 * sends after the script); then the kernel powers off with status 1 if any
 * command failed, else 0.
 */
#include <string.h>

#include "boot/console.h"
#include "arch/hooks.h"
#include "boot/main.h"
#include "trace/tracefs/cmdparse.h"
#include "trace/boot.h"

#define LINE_MAX 256

struct command {
	const char *name;
	const char *help;
	int (*run)(const char *args);   /* 0 ok, -1 failed (message printed) */
};

static int cmd_help(const char *args);

static int cmd_run(const char *args)
{
	int rc = run_workload();
	return rc == 0 ? 0 : -1;
}

static bool poweroff_requested;
static int cmd_poweroff(const char *args)
{
	poweroff_requested = true;
	return 0;
}

static const struct command commands[] = {
	{ "help", "list the commands", cmd_help },
	{ "cat", "cat FILE: print a tracefs file (the files are listed below)", NULL },
	{ "echo", "echo VALUE > FILE (>> appends to a filter)", NULL },
	{ "ls", "ls [options|trace_stat]: the files, the options, the CPUs' profiles", NULL },
	{ "run", "run the workload (the demo or APP) again", cmd_run },
	{ "dump", "the trace as a framed binary dump (tools/bt-export reads it)", dump_command },
	{ "poweroff", "leave QEMU", cmd_poweroff },
};

static void print_file(void *col, const char *name)
{
	unsigned *c = col;
	if (*c + strlen(name) + 1 > 78) {
		kprintf("\n");
		*c = (unsigned)kprintf("         ");     /* under the first name */
	}
	*c += (unsigned)kprintf(*c ? " %s" : "  files: %s", name);
}

static int cmd_help(const char *args)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		kprintf("  %-12s %s\n", commands[i].name, commands[i].help);
	unsigned col = 0;
	tracefs_list_files(print_file, &col);
	kprintf("\n");
	return 0;
}

#define END_OF_SCRIPT -2

#define LINE_TOO_LONG -3

#define LINE_CONTROL -4

/* An escape sequence's bytes after ESC (a key such as an arrow: ESC [ A,
 * ESC O P, ESC [ 1 ; 5 C, or ESC and one byte), read to its end and
 * dropped whole, with a bell: no part of it reaches the line.  A control
 * byte inside it ends it and is returned, to be taken as typed; else -1. */
static int skip_escape(void)
{
	console_write("\a", 1);
	int c = console_getc();
	if (c < 32 || c == 127)
		return c;
	if (c != '[' && c != 'O')
		return -1;                            /* ESC x: one byte */
	bool csi = c == '[';
	for (;;) {
		c = console_getc();
		if (c < 32 || c == 127)
			return c;
		/* CSI: parameter and intermediate bytes (0x20-0x3f), then a
		 * final byte (0x40-0x7e); SS3 (ESC O): one final byte. */
		if (!csi || c >= 0x40)
			return -1;
	}
}

/* Read one line with editing into buf; returns its length, -1 on Ctrl-C,
 * END_OF_SCRIPT on Ctrl-D at the start of a line, LINE_TOO_LONG for a line
 * that did not fit (read to its end, and not run: a cut line could be
 * another command), LINE_CONTROL for a line with a control byte that is
 * no editing key (read to its end, not run: dropping the byte would run
 * another line than the one typed; *bad is the first such byte).  Bytes
 * from 0x80 (UTF-8) are kept as typed and echoed; a backspace erases a
 * whole UTF-8 character. */
static int read_line(char *buf, size_t size, int *bad)
{
	size_t n = 0;
	bool too_long = false;
	*bad = -1;
	for (int c = console_getc();; c = console_getc()) {
		while (c == 27)                               /* ESC: a key, dropped */
			c = skip_escape();
		if (c < 0)
			continue;
		if (c == 4 && n == 0 && *bad < 0)             /* Ctrl-D */
			return END_OF_SCRIPT;
		if (c == '\r' || c == '\n') {
			kprintf("\n");
			buf[n] = '\0';
			return too_long ? LINE_TOO_LONG : *bad >= 0 ? LINE_CONTROL : (int)n;
		} else if (c == 3) {                          /* Ctrl-C */
			kprintf("^C\n");
			return -1;
		} else if (c == 21) {                         /* Ctrl-U */
			too_long = false;
			*bad = -1;
			while (n) {
				if (((unsigned char)buf[--n] & 0xc0) != 0x80)
					kprintf("\b \b");
			}
		} else if (c == 8 || c == 127) {              /* backspace */
			/* One character: its continuation bytes, then its first. */
			while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
				n--;
			if (n) {
				kprintf("\b \b");
				n--;
			}
		} else if (c >= 32 || c == '\t') {
			if (n + 1 >= size) {
				too_long = true;
				continue;
			}
			buf[n++] = (char)c;
			/* A tab is kept (the parsers take it for a blank) and
			 * shown as one column, so a backspace erases it. */
			char e = c == '\t' ? ' ' : (char)c;
			console_write(&e, 1);
		} else if (*bad < 0) {
			*bad = c;                             /* refused at the end */
		}
	}
}

static int execute(char *text)
{
	struct shell_line line;
	cmdparse_line(text, &line);
	if (!*line.cmd)
		return 0;
	bool handled;
	int err = tracefs_command(line.cmd, line.args, &handled);
	if (handled)
		return err;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, line.cmd) == 0 && commands[i].run)
			return commands[i].run(line.args);
	kprintf("%s: command not found (try 'help')\n", line.cmd);
	return -1;
}

void shell_main(bool script)
{
	char line[LINE_MAX];
	unsigned failed = 0;
	if (!script)
		kprintf("baretrace: shell ready; 'help' lists the commands, 'poweroff' leaves\n");
	while (!poweroff_requested) {
		kprintf("trace> ");
		int bad;
		int n = read_line(line, sizeof(line), &bad);
		if (n == END_OF_SCRIPT) {
			if (script)
				break;
			continue;                             /* a terminal: not an exit */
		}
		if (n == LINE_TOO_LONG) {
			kprintf("shell: line too long (at most %d bytes), not run\n", LINE_MAX - 1);
			failed++;
		} else if (n == LINE_CONTROL) {
			kprintf("shell: control character 0x%02x in the line, not run\n", bad);
			failed++;
		} else if (n >= 0 && execute(line) != 0) {
			failed++;
		}
	}
	if (script)
		kprintf("\nbaretrace: script done, %u command(s) failed\n", failed);
	arch_poweroff(script && failed ? 1 : 0);
}
