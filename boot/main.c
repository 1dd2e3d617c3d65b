/*
 * main.c — kernel_main: the generic boot sequence on the boot CPU.
 *
 * Order: per-CPU area of CPU 0, heap, clock, command line, scheduler,
 * interrupts of CPU 0, the other CPUs, then the init thread, which runs the
 * selected in-guest tests (bt.test=), or the application (APP=) or the
 * built-in demo, and then either powers off (non-interactive runs) or opens
 * the console shell.  The boot CPU ends in its idle loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bench.h"
#include "boot/clock.h"
#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/irq.h"
#include "boot/main.h"
#include "boot/panic.h"
#include "boot/sched.h"
#include "boot/smp.h"
#include "boot/test.h"
#include "lib/fs.h"
#include "lib/heap.h"
#include "lib/initrd.h"
#include "lib/timekeeping.h"
#include "trace/boot.h"

struct boot_info boot_info;
extern char _text_start[];

static const char *test_spec;      /* written once by the option handlers */
static bool test_slow;
static const char *bench_spec;
bool console_interactive, console_script;
uint64_t boot_start_ns, workload_start_ns;

/* cmdline_parse has checked what each takes (a value, or none). */
static int opt_test(const char *v) { test_spec = v; return 0; }
static int opt_test_slow(const char *v) { test_slow = true; return 0; }
static int opt_interactive(const char *v) { console_interactive = true; return 0; }
static int opt_bench(const char *v) { bench_spec = v; return 0; }
static int opt_script(const char *v) { console_script = true; return 0; }
BT_PARAM("bt.bench", opt_bench, "run benchmarks (all or a,b,c) and power off");
BT_PARAM("bt.test", opt_test, "run in-guest test suites (all or a,b,c) and power off");
BT_PARAM_FLAG("bt.test_slow", opt_test_slow, "include slow test cases");
BT_PARAM_FLAG("bt.interactive", opt_interactive, "a terminal is attached: stay at the shell");
BT_PARAM_FLAG("bt.script", opt_script, "stdin is a script of shell commands, ended by Ctrl-D");

/*
 * newlib allocates parts of its (one, global) reent on first use: with
 * reent-small, __sinit's three stdio FILEs, and the buffers of rand48,
 * dtoa's Bigint list, localtime, asctime, strtok/mblen, psignal, ...
 * (sys/reent.h: _REENT_SMALL_CHECK_INIT, _REENT_CHECK_*).  A failed
 * allocation there is not an error return: __sinit writes through the NULL
 * FILE, the others assert.  So take them all now, while the heap is empty:
 * an APP that has used up the heap then still gets stdio (unbuffered: a
 * stream whose buffer cannot be allocated falls back to one byte) and
 * ENOMEM from the calls that do report it.  Each macro is empty when
 * newlib is built without reent-small (those parts are in the reent).
 * Thread context: the stdio lock needs a current thread.
 */
static void libc_reserve(void)
{
	_REENT_SMALL_CHECK_INIT(_REENT);
#ifdef _REENT_CHECK_MP
	_REENT_CHECK_MP(_REENT);
	_REENT_CHECK_RAND48(_REENT);
	_REENT_CHECK_TM(_REENT);
	_REENT_CHECK_ASCTIME_BUF(_REENT);
	_REENT_CHECK_EMERGENCY(_REENT);
	_REENT_CHECK_MISC(_REENT);
	_REENT_CHECK_SIGNAL_BUF(_REENT);
#endif
}

/* The application linked in with APP=DIR, if any. */
int app_main(void) __attribute__((weak));

int run_workload(void)
{
	const char *what = app_main ? "app" : "demo";
	workload_start_ns = clock_ns();
	kprintf("baretrace: running %s\n", what);
	int rc = app_main ? app_main() : demo_main();
	fflush(NULL);                 /* a last line without its newline, as exit() would */
	kprintf("baretrace: %s returned %d\n", what, rc);
	return rc;
}

static int init_thread(void *unused)
{
	libc_reserve();
	trace_init();                 /* ftrace= starts its tracer here */
	if (test_spec)
		arch_poweroff(test_run(test_spec, test_slow) ? 1 : 0);
	if (bench_spec)
		arch_poweroff(bench_run(bench_spec));
	int rc = run_workload();
	trace_print_workload_end();
	if (!console_interactive && !console_script)
		arch_poweroff(rc == 0 ? 0 : 1);
	shell_main(console_script);
}

void kernel_main(struct boot_info *bi)
{
	struct cpu *c0 = &cpus[0];
	boot_info = *bi;
	boot_info.ram_start = (uintptr_t)_text_start;
	c0->self = c0;
	c0->id = 0;
	c0->hwid = bi->hwid[0];
	heap_init(bi->heap_start, bi->heap_end);
	clock_init();
	boot_start_ns = clock_ns();
	timekeeping_init();
	kprintf("baretrace (%s): %lu MiB heap, counter %llu Hz, command line \"",
		ARCH_NAME, (unsigned long)(heap_size() >> 20),
		(unsigned long long)arch_counter_hz());
	console_write(bi->cmdline, strlen(bi->cmdline));     /* whole: kprintf's lines are shorter */
	kprintf("\"\n");
	/* Cut, the line could mean something else (a half option, a script
	 * that never runs): the run fails instead. */
	if (bi->cmdline_len >= CMDLINE_MAX) {
		kprintf("baretrace: the command line has %zu bytes, more than the %u this kernel "
			"takes: not run\n", bi->cmdline_len, CMDLINE_MAX - 1);
		arch_poweroff(1);
	}
	cmdline_parse(bi->cmdline);
	initrd_init();                /* before btf= reads boot_info.initrd_* */
	sched_init_cpu();
	fs_init();                    /* allocates: needs a current thread */
	ftrace_init();                /* sites to their disabled state, one CPU */
	arch_cpu_irq_init(HZ);
	smp_boot(bi);
	arch_irq_enable();
	if (!thread_create("init", init_thread, NULL, 0))
		panic("cannot create the init thread");
	sched_idle_loop();
}
