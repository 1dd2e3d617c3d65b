/*
 * boot.h — what boot/ calls in the tracer, and nothing more: the two init
 * steps in boot order, the print at the end of the workload, the shadow
 * return stacks the scheduler hands its threads and CPUs, the end of an
 * interrupt for the trace stack, the unwinding help for backtraces, and
 * the shell's entry points.  boot/ includes no
 * other trace/ header (the tracer's user API is trace/core/ftrace.h and
 * friends; tests may use both).
 */
#ifndef TRACE_BOOT_H
#define TRACE_BOOT_H

#include <stdbool.h>
#include <stdint.h>

/* Build the record table and initialise every site (boot CPU, before
 * SMP).  0, or -errno (tracing is then dead, and says why). */
int ftrace_init(void);

/* Create the trace buffer for every CPU and apply the tracing boot
 * options (ftrace=, ...) — after SMP bring-up, in the init thread.
 * 0, or -errno (the boot says what is missing; nop runs). */
int trace_init(void);

/* The workload ended: print the trace in the current tracer's format
 * (`cat trace`), unless the nop tracer runs.  Thread context. */
void trace_print_workload_end(void);

/* Shadow return stacks: a thread's (boot/sched.c; NULL when the heap has
 * no room, and the thread's calls are then not hooked), and each CPU's
 * interrupt stack (fgraph_init_cpu, by the CPU itself as it comes up). */
struct fgraph_stack;
struct fgraph_stack *fgraph_stack_alloc(void);
void fgraph_stack_free(struct fgraph_stack *st);
void fgraph_init_cpu(unsigned cpu);

/* The trace stack (trace/core/tstack.h): the interrupt running on this CPU is
 * ending; called by irq_exit before irq_depth is lowered. */
void tstack_irq_exit(void);

/*
 * Unwinders: a return address read from the frame record at `record` in the
 * running context's stack.  If it is the return hook, the original return
 * address from the shadow stacks; otherwise ret itself.  `cursor` (start at
 * 0) carries the search from one frame to the next, outwards.
 */
uintptr_t fgraph_ret_addr(uintptr_t ret, uintptr_t record, unsigned *cursor);

/* The shell: run `cmd args` if it is a tracefs command (*handled = true):
 * 0 or -errno (a message was printed and nothing changed). */
int tracefs_command(const char *cmd, char *args, bool *handled);
/* The files' names, one per call (for `help`). */
void tracefs_list_files(void (*out)(void *ctx, const char *line), void *ctx);
/* The shell's `dump` command (takes no arguments): the framed binary dump. */
int dump_command(const char *args);

#endif
