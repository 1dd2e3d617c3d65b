/*
 * graph_text.h — trace_print_all()'s loop on the host, for the tests that
 * check function_graph text (test_graph_output.c, test_tstack.c; built
 * with shim_graph.h force-included).
 */
#ifndef TESTS_HOST_GRAPH_TEXT_H
#define TESTS_HOST_GRAPH_TEXT_H

#include <stdint.h>

#include "trace/options.h"
#include "trace/ring_buffer/ring_buffer.h"
#include "trace/trace.h"

/* function_graph's default options, as Linux's. */
#define GRAPH_TEST_OPTS (1ul << TRACE_OPT_FUNCGRAPH_CPU | 1ul << TRACE_OPT_FUNCGRAPH_OVERHEAD | \
			 1ul << TRACE_OPT_FUNCGRAPH_DURATION | 1ul << TRACE_OPT_FUNCGRAPH_IRQS)

/* The buffers' clock: one cycle is one nanosecond (clock_cycles_to_ns
 * is the identity in shim_graph.c); a test sets it before each write. */
extern uint64_t graph_test_now;

/* A fresh ring buffer (16 CPUs, 64 KiB each) on graph_test_now's clock,
 * trace_opts at GRAPH_TEST_OPTS, no signatures loaded, shim_out empty:
 * a cmocka setup's work (it fails the test if the buffer cannot be made).
 * rb_destroy() it in the teardown. */
struct rb_buffer *graph_test_buffer(void);

/* Every event of buf, all CPUs merged, through graph_print() with the
 * iterator ti (its per-CPU state reset first): the text kprintf wrote
 * (shim_out).  Fails the running cmocka test if buf cannot be read. */
const char *graph_text(struct rb_buffer *buf, struct trace_iter *ti);

#endif
