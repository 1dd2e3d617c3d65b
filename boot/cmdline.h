/*
 * cmdline.h — kernel command-line options.
 *
 *   static int set_foo(const char *val) { ... return 0 or -1 ... }
 *   BT_PARAM("foo", set_foo, "what foo does");           foo=VALUE (required, non-empty)
 *   BT_PARAM_FLAG("bar", set_bar, "what bar does");      bar, no value
 *   BT_PARAM_OPT("baz", set_baz, "what baz does");       baz or baz=VALUE
 *
 * cmdline_parse() splits the command line at spaces ("..." groups), and for
 * each `name` or `name=value` checks what the option takes -- a value
 * given to a flag, a missing or empty one to an option that needs one, an
 * empty one to an optional value, is refused here -- and then calls the
 * registered handler with the value (NULL when there is no '=').  An
 * unknown option, one refused here, or one whose handler returns non-zero
 * is reported ("bad boot option '...', ignored") and has no effect: a
 * handler validates the whole value before it changes anything.  The rest
 * still apply.  Handlers run once, on the boot CPU, before other CPUs
 * start; the value string stays valid for the kernel's lifetime.
 */
#ifndef BOOT_CMDLINE_H
#define BOOT_CMDLINE_H

enum bt_param_value {
	BT_VALUE,          /* name=VALUE, VALUE not empty */
	BT_NO_VALUE,       /* name alone */
	BT_OPT_VALUE,      /* name, or name=VALUE with VALUE not empty */
};

struct bt_param {
	const char *name;
	int (*set)(const char *val);
	const char *help;
	enum bt_param_value value;
};

#define BT_PARAM_KIND(name, fn, help, kind)                                   \
	static const struct bt_param __bt_param_##fn                          \
		__attribute__((used, section(".bt_params"), aligned(8))) =     \
		{ name, fn, help, kind }
#define BT_PARAM(name, fn, help)      BT_PARAM_KIND(name, fn, help, BT_VALUE)
#define BT_PARAM_FLAG(name, fn, help) BT_PARAM_KIND(name, fn, help, BT_NO_VALUE)
#define BT_PARAM_OPT(name, fn, help)  BT_PARAM_KIND(name, fn, help, BT_OPT_VALUE)

/* Returns the number of options reported as unknown or malformed. */
int cmdline_parse(const char *cmdline);

#endif
