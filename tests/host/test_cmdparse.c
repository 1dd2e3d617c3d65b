/*
 * test_cmdparse.c — the shell's line and echo parsing (trace/tracefs/cmdparse.c),
 * exact splits for every form tracefs users type, and the error case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "trace/tracefs/cmdparse.h"

static void line_is(const char *text, const char *cmd, const char *args)
{
	char buf[256];
	struct shell_line l;
	strcpy(buf, text);
	cmdparse_line(buf, &l);
	assert_string_equal(l.cmd, cmd);
	assert_string_equal(l.args, args);
}

static void test_lines(void **state __attribute__((unused)))
{
	line_is("cat trace", "cat", "trace");
	line_is("   cat    trace   ", "cat", "trace");
	line_is("help", "help", "");
	line_is("", "", "");
	line_is("   ", "", "");
	line_is("\tcat\tset_ftrace_filter", "cat", "set_ftrace_filter");
	line_is("echo 'a b' > x", "echo", "'a b' > x");
}

static void echo_is(const char *text, const char *value, const char *file, bool append)
{
	char buf[256];
	struct echo_args e;
	const char *why = NULL;
	strcpy(buf, text);
	assert_int_equal(cmdparse_echo(buf, &e, &why), 0);
	assert_string_equal(e.value, value);
	if (file)
		assert_string_equal(e.file, file);
	else
		assert_null(e.file);
	assert_int_equal(e.append, append);
}

static void test_echo(void **state __attribute__((unused)))
{
	echo_is("function > current_tracer", "function", "current_tracer", false);
	echo_is("vfs_* >> set_ftrace_filter", "vfs_*", "set_ftrace_filter", true);
	echo_is("'vfs_* !vfs_stat' > set_ftrace_filter", "vfs_* !vfs_stat", "set_ftrace_filter", false);
	echo_is("\"a b\">>f", "a b", "f", true);
	echo_is("> trace", "", "trace", false);
	echo_is(">trace", "", "trace", false);
	echo_is("hello world", "hello world", NULL, false);
	echo_is("  spaced  ", "spaced", NULL, false);
	echo_is("'", "'", NULL, false);                 /* a lone quote is the value */
	echo_is("x > options/funcgraph-proc  ", "x", "options/funcgraph-proc", false);
	echo_is("a > b > c", "a > b", "c", false);      /* the last '>' redirects */
	echo_is("'a>b'", "a>b", NULL, false);           /* ... outside quotes */
	echo_is("'a > b' > trace_marker", "a > b", "trace_marker", false);
	echo_is("\"x>>y\" >> f", "x>>y", "f", true);
	/* Words as a shell makes them: quotes anywhere, blanks outside one space. */
	echo_is("'vfs_stat' \"kind_name\" > set_ftrace_filter", "vfs_stat kind_name",
		"set_ftrace_filter", false);
	echo_is("vfs_'*' >> f", "vfs_*", "f", true);
	echo_is("a  \t b '  c  '", "a b   c  ", NULL, false);
	echo_is("\"it's\"", "it's", NULL, false);
	echo_is("don't", "don't", NULL, false);          /* a quote never closed */
	echo_is("''", "", NULL, false);
}

static void echo_fails(const char *text, const char *why_expected)
{
	char buf[64];
	struct echo_args e;
	const char *why = NULL;
	strcpy(buf, text);
	assert_int_equal(cmdparse_echo(buf, &e, &why), -1);
	assert_string_equal(why, why_expected);
}

static void test_echo_errors(void **state __attribute__((unused)))
{
	static const char *bad[] = { "x >", "x >>", "x >   ", ">", ">>" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		echo_fails(bad[i], "missing file after '>'");
	static const char *badfile[] = { "x > 'f'", "x > a'b", "x > \"f" };
	for (size_t i = 0; i < sizeof(badfile) / sizeof(badfile[0]); i++)
		echo_fails(badfile[i], "a file name has no quote or '>'");
	echo_fails("' > trace", "unterminated quote");
	echo_fails("don't > trace_marker", "unterminated quote");
	echo_fails("\"a > b", "unterminated quote");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_echo),
		cmocka_unit_test(test_echo_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
