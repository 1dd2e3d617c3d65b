/*
 * graph_text.c — see graph_text.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "graph_text.h"
#include "rb_host.h"
#include "trace/btf/btf.h"
#include "trace/tracers/function_graph.h"

uint64_t graph_test_now;

static uint64_t test_clock(void)
{
	return graph_test_now;
}

struct rb_buffer *graph_test_buffer(void)
{
	struct rb_buffer *buf;
	rb_host_set_clock(test_clock);
	assert_int_equal(rb_create(&buf, 16, 64 * 1024, 0, &rb_host_allocator), 0);
	trace_opts = GRAPH_TEST_OPTS;
	btf_unload();
	shim_out_reset();
	return buf;
}

const char *graph_text(struct rb_buffer *buf, struct trace_iter *ti)
{
	shim_out_reset();
	assert_int_equal(rb_iter_start(&ti->it, buf, RB_ALL_CPUS), 0);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		ti->last_pid[c] = -1;
	while (rb_iter_next(&ti->it, &ti->ev) == 0) {
		if (ti->ev.len < sizeof(struct trace_entry))
			continue;
		ti->ent = ti->ev.data;
		graph_print(ti);
	}
	rb_iter_end(&ti->it);
	return shim_out;
}
