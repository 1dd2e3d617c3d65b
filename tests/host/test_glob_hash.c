/*
 * test_glob_hash.c — host unit tests for lib/glob.c and trace/core/hash.c, the
 * pieces that turn filter patterns into function sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lib/glob.h"
#include "trace/core/hash.h"

static void glob_basics(void **state __attribute__((unused)))
{
	assert_true(glob_match("vfs_stat", "vfs_stat"));
	assert_false(glob_match("vfs_stat", "vfs_stats"));
	assert_false(glob_match("vfs_stats", "vfs_stat"));
	assert_true(glob_match("vfs_*", "vfs_stat"));
	assert_true(glob_match("*", ""));
	assert_true(glob_match("*stat", "vfs_stat"));
	assert_true(glob_match("*_*_*", "a_b_c"));
	assert_false(glob_match("*_*_*", "a_b"));
	assert_true(glob_match("v?s_stat", "vfs_stat"));
	assert_false(glob_match("v?s_stat", "vs_stat"));
	assert_true(glob_match("ft_[abc]", "ft_b"));
	assert_false(glob_match("ft_[abc]", "ft_d"));
	assert_true(glob_match("ft_[a-c]x", "ft_bx"));
	assert_true(glob_match("ft_[!a-c]", "ft_d"));
	assert_false(glob_match("ft_[^a-c]", "ft_a"));
	assert_true(glob_match("a\\*b", "a*b"));
	assert_false(glob_match("a\\*b", "axb"));
	assert_true(glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaab"));
	assert_false(glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_true(glob_match("[]]", "]"));
}

static void glob_errors(void **state __attribute__((unused)))
{
	assert_null(glob_check("vfs_*"));
	assert_null(glob_check("[abc]"));
	assert_non_null(glob_check(""));
	assert_non_null(glob_check("ft_[abc"));
	assert_non_null(glob_check("trailing\\"));
	/* POSIX classes are refused by name, and match nothing. */
	assert_string_equal(glob_check("[[:alpha:]]*"),
			    "character classes ('[:alpha:]' and the like) are not supported");
	assert_string_equal(glob_check("x[a[=e=]]"),
			    "character classes ('[:alpha:]' and the like) are not supported");
	assert_string_equal(glob_check("[[.a.]]"),
			    "character classes ('[:alpha:]' and the like) are not supported");
	assert_false(glob_match("[[:alpha:]]*", "vfs_stat"));
	assert_null(glob_check("[[]"));       /* a set holding '[' is no class */
	assert_true(glob_match("[[]x", "[x"));
	/* Where "glob:command" splits: not in a set, not escaped. */
	assert_int_equal(glob_span("vfs_*:traceoff", ':'), 5);
	assert_int_equal(glob_span("[[:alpha:]]*", ':'), 12);
	assert_int_equal(glob_span("[[:alpha:]]*:traceoff:3", ':'), 12);
	assert_int_equal(glob_span("[]:]x:t", ':'), 5);
	assert_int_equal(glob_span("a\\:b:t", ':'), 4);
	assert_int_equal(glob_span("[oops:t", ':'), 5);
	assert_false(glob_match("ft_[abc", "ft_a"));
	assert_true(glob_is_literal("schedule"));
	assert_false(glob_is_literal("sched*"));
	assert_false(glob_is_literal("a[b]"));
}

static void hash_add_remove(void **state __attribute__((unused)))
{
	struct ftrace_hash *h = hash_alloc(1);
	assert_non_null(h);
	assert_true(hash_empty(h));
	for (uintptr_t k = 1; k <= 1000; k++)
		assert_int_equal(hash_add(&h, 0x40000000 + k * 16), 0);
	assert_int_equal(h->count, 1000);
	assert_true(2 * h->count <= h->mask + 1);        /* at most half full */
	assert_int_equal(hash_add(&h, 0x40000000 + 16), 0);
	assert_int_equal(h->count, 1000);                /* no duplicate */
	for (uintptr_t k = 1; k <= 1000; k += 2)
		hash_remove(h, 0x40000000 + k * 16);
	assert_int_equal(h->count, 500);
	for (uintptr_t k = 1; k <= 1000; k++)
		assert_int_equal(hash_contains(h, 0x40000000 + k * 16), k % 2 == 0);
	assert_false(hash_contains(h, 0x12345));
	hash_remove(h, 0x12345);                         /* absent: no change */
	assert_int_equal(h->count, 500);
	struct ftrace_hash *c = hash_copy(h);
	assert_non_null(c);
	hash_remove(h, 0x40000000 + 2 * 16);
	assert_true(hash_contains(c, 0x40000000 + 2 * 16));
	assert_false(hash_contains(h, 0x40000000 + 2 * 16));
	hash_free(c);
	hash_free(h);
	assert_false(hash_contains(NULL, 1));
	assert_true(hash_empty(NULL));
}

/* Removal must keep every other key reachable even inside long clusters. */
static void hash_clusters(void **state __attribute__((unused)))
{
	struct ftrace_hash *h = hash_alloc(64);
	uintptr_t keys[40];
	for (int i = 0; i < 40; i++) {
		keys[i] = 0x1000 + (uintptr_t)i * 4;
		assert_int_equal(hash_add(&h, keys[i]), 0);
	}
	for (int i = 0; i < 40; i += 3) {
		hash_remove(h, keys[i]);
		for (int j = 0; j < 40; j++)
			assert_int_equal(hash_contains(h, keys[j]), j % 3 != 0 || j > i);
	}
	hash_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(glob_basics),
		cmocka_unit_test(glob_errors),
		cmocka_unit_test(hash_add_remove),
		cmocka_unit_test(hash_clusters),
	};
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("glob_hash", tests, NULL, NULL);
}
