/*
 * cmdline.h — kernel command-line options.
 *
 *   static int set_foo(const char *val) { ... return 0 or -1 ... }
 *   BT_PARAM("foo", set_foo, "what foo does");
 *
 * cmdline_parse() splits the command line at spaces ("..." groups), and for
 * each `name` or `name=value` calls the registered handler with the value
 * (NULL when there is no '=').  An unknown option, or one whose handler
 * returns non-zero, is reported and ignored; the rest still apply.
 * Handlers run once, on the boot CPU, before other CPUs start; the value
 * string stays valid for the kernel's lifetime.
 */
#ifndef BOOT_CMDLINE_H
#define BOOT_CMDLINE_H

struct bt_param {
	const char *name;
	int (*set)(const char *val);
	const char *help;
};

#define BT_PARAM(name, fn, help)                                              \
	static const struct bt_param __bt_param_##fn                          \
		__attribute__((used, section(".bt_params"), aligned(8))) = { name, fn, help }

/* Returns the number of options reported as unknown or malformed. */
int cmdline_parse(const char *cmdline);

#endif
