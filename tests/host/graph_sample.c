/*
 * graph_sample.c — the prototypes of the functions in shim_graph.c's
 * symbol table, for tests/host/test_graph_output.c: built with -g, turned
 * into BTF by pahole (tests/host/Makefile) and loaded through the real
 * trace/btf/fsig.c, so the printer is tested with the text the kernel prints.
 * Never run.
 */
int do_work(int a, unsigned int flags)
{
	return a + (int)flags;
}

long leaf_a(long x)
{
	return x;
}

void void_fn(void)
{
}
