/*
 * dump.h — getting the trace out over the serial console: the framed binary
 * dump, and dumps on panic and warnings.
 *
 * The binary dump is everything tools/bt-export needs to rebuild the trace
 * on the host (trace.dat, Chrome JSON, the text of `cat trace`): per-CPU
 * ring-buffer pages in trace.dat form, the CPU count, the counter's
 * frequency and the exact cycles-to-ns factor, the tracer and trace_opts,
 * the symbols, signatures and comms of what occurs in the events, the arch.
 * It is printed as lines of text that survive a console shared with other
 * output (trace/DESIGN.md, "Dumps and export", has the frame format):
 *
 *   @BT1 <dump id> <seq> <kind> <base64 payload> <crc32>
 *
 * Boot options (Linux's names):
 *   ftrace_dump_on_oops          on a panic or fatal exception, print the
 *                                trace (current tracer's text, all CPUs
 *                                merged) after the report and backtrace
 *   ftrace_dump_on_oops=binary   ours: the binary dump instead
 *   traceoff_on_warning          warn() turns tracing off first, so the
 *                                trace before the warning survives
 *
 * Rules of use: dump_binary() runs in thread context (the shell's `dump`);
 * it is non-consuming and pauses recording while it reads, like `cat trace`.
 * The panic path (dump_on_panic, installed as panic_hook) takes no lock
 * and waits for nothing: other CPUs are stopped, maybe mid-write, and an
 * event a writer never committed is skipped.
 */
#ifndef TRACE_DUMP_H
#define TRACE_DUMP_H

#include <stdbool.h>

/* Frames on the console: "@BT1 id seq kind payload crc".  Payload bytes per
 * frame at most DUMP_FRAME_DATA (a line stays under ~900 characters). */
#define DUMP_FRAME_MAGIC  "@BT1"
#define DUMP_FRAME_DATA   600u
#define DUMP_VERSION      1u

/* Frame kinds (the payload layouts are in trace/dump.c's header). */
enum {
	DUMP_KIND_BEGIN = 'B',
	DUMP_KIND_PAGE = 'P',
	DUMP_KIND_SYMS = 'S',
	DUMP_KIND_SIGS = 'F',
	DUMP_KIND_COMMS = 'C',
	DUMP_KIND_END = 'E',
};

/* The binary dump of trace_buffer on the console.  Returns 0, or -EBUSY
 * (another dump is running, or writers did not leave the buffer), -ENODEV
 * (no trace buffer).  Thread context. */
int dump_binary(void);
/* panic_hook for ftrace_dump_on_oops. */
void dump_on_panic(void);
/* CRC-32 (IEEE 802.3, zlib's) of n bytes, continuing from crc (0 to start). */
unsigned dump_crc32(unsigned crc, const void *p, unsigned long n);

#endif
