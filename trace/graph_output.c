/*
 * graph_output.c — the function_graph tracer's text (placeholder until the
 * printer lands: prints nothing).
 */
#include "trace/graph.h"

bool graph_print(struct trace_iter *ti)
{
	return false;
}

void graph_print_header(void)
{
}
