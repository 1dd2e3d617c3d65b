"""The figures of `make bench`, in table order (tools/bench.py, tools/test.py)."""

# Every figure of the table, in order: (name, unit, accel).
FIGURES = [
    ("site_disabled_ratio", "ratio", "tcg-icount"),
    ("function_tracer_call", "insns", "tcg-icount"),
    ("ops_single_call", "insns", "tcg-icount"),
    ("ops_list_call", "insns", "tcg-icount"),
    ("ops_regs_call", "insns", "tcg-icount"),
    ("ops_regs_list_call", "insns", "tcg-icount"),
    ("direct_call", "insns", "tcg-icount"),
    ("fgraph_empty_call", "insns", "tcg-icount"),
    ("graph_call", "insns", "tcg-icount"),
    ("graph_args_retval_call", "insns", "tcg-icount"),
    ("rb_event", "insns", "tcg-icount"),
    ("rb_event_nopreempt", "insns", "tcg-icount"),
    ("rb_event_handle", "insns", "tcg-icount"),
    ("rb_events_per_s_cpus1", "events_per_s", "tcg"),
    ("rb_events_per_s_cpus2", "events_per_s", "tcg"),
    ("rb_scaling_2cpu", "ratio", "tcg"),
    ("rb_scaling_2cpu_empty_loop", "ratio", "tcg"),
    ("clock_scaling_2cpu", "ratio", "tcg"),
    ("patch_site_ns_1k", "ns", "tcg-icount"),
    ("patch_site_ns_10k", "ns", "tcg-icount"),
    ("patch_site_ns_50k", "ns", "tcg-icount"),
    ("record_bytes_per_site", "bytes", "tcg-icount"),
    ("boot_ms", "ms", "tcg-icount"),
    ("uftrace_call", "insns", "host-callgrind"),
]
