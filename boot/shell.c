/*
 * shell.c — the console shell (`trace>`): line editing and a command table.
 *
 * Line editing: printable bytes are echoed, backspace/DEL erases one, Ctrl-U
 * erases the line, Ctrl-C abandons it.  Each command is looked up in
 * `commands`; an unknown one is reported and changes nothing.  The tracer's
 * tracefs-like commands are added to this table as they are built.
 */
#include <string.h>

#include "boot/console.h"
#include "arch/hooks.h"
#include "boot/main.h"

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
	{ "run", "run the workload (the demo or APP) again", cmd_run },
	{ "poweroff", "leave QEMU", cmd_poweroff },
};

static int cmd_help(const char *args)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		kprintf("  %-12s %s\n", commands[i].name, commands[i].help);
	return 0;
}

/* Read one line with editing into buf; returns its length, -1 on Ctrl-C. */
static int read_line(char *buf, size_t size)
{
	size_t n = 0;
	for (;;) {
		int c = console_getc();
		if (c == '\r' || c == '\n') {
			kprintf("\n");
			buf[n] = '\0';
			return (int)n;
		} else if (c == 3) {                          /* Ctrl-C */
			kprintf("^C\n");
			return -1;
		} else if (c == 21) {                         /* Ctrl-U */
			while (n) {
				kprintf("\b \b");
				n--;
			}
		} else if (c == 8 || c == 127) {              /* backspace */
			if (n) {
				kprintf("\b \b");
				n--;
			}
		} else if (c >= 32 && c < 127 && n + 1 < size) {
			buf[n++] = (char)c;
			char e = (char)c;
			console_write(&e, 1);
		}
	}
}

static int execute(char *line)
{
	while (*line == ' ')
		line++;
	if (!*line)
		return 0;
	char *args = line + strcspn(line, " ");
	if (*args)
		*args++ = '\0';
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, line) == 0)
			return commands[i].run(args);
	kprintf("%s: command not found (try 'help')\n", line);
	return -1;
}

void shell_main(void)
{
	char line[LINE_MAX];
	kprintf("baretrace: shell ready; 'help' lists the commands, 'poweroff' leaves\n");
	while (!poweroff_requested) {
		kprintf("trace> ");
		if (read_line(line, sizeof(line)) >= 0)
			execute(line);
	}
	arch_poweroff(0);
}
