/*
 * panic.c — the end of the road: report, stop the others, power off.
 */
#include <stdarg.h>

#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "trace/boot.h"
#include "boot/smp.h"

static int panic_cpu = -1;             /* atomic: CPU that owns the panic */
void (*panic_hook)(void);
void (*warn_hook)(void);

bool panic_in_progress(void)
{
	return __atomic_load_n(&panic_cpu, __ATOMIC_RELAXED) >= 0;
}

bool panic_claim(void)
{
	int none = -1, me = (int)cpu_id();
	arch_irq_disable();
	if (__atomic_compare_exchange_n(&panic_cpu, &none, me, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return true;
	if (none == me) {                  /* panicked while reporting a panic */
		console_write("\nnested panic\n", 14);
		arch_poweroff(PANIC_EXIT_STATUS);
	}
	return false;
}

/* A frame pointer worth following: aligned and inside RAM. */
static bool frame_ok(uintptr_t fp)
{
	return fp && (fp & 7) == 0 && fp >= boot_info.ram_start &&
	       fp + 16 <= boot_info.heap_end;
}

int backtrace_save(uintptr_t fp, uintptr_t *out, int max)
{
	unsigned cursor = 0;       /* fgraph_ret_addr's place in the shadow stacks */
	int n = 0;
	if (!fp)
		fp = arch_frame_address();
	while (n < max && frame_ok(fp)) {
		uintptr_t next = ((uintptr_t *)fp)[0], ret = ((uintptr_t *)fp)[1];
		if (!ret)
			break;
		/* A return hooked by the graph tracer shows its real target. */
		out[n++] = fgraph_ret_addr(ret, fp, &cursor);
		if (next <= fp)
			break;                 /* stacks grow down: frames go up */
		fp = next;
	}
	return n;
}

void backtrace_print(uintptr_t pc, uintptr_t fp)
{
	char buf[96];
	uintptr_t ret[32];
	if (pc) {
		ksym_format(buf, sizeof(buf), pc);
		kprintf("  [<%016lx>] %s\n", (unsigned long)pc, buf);
	}
	int n = backtrace_save(fp ? fp : arch_frame_address(), ret, 32);
	for (int i = 0; i < n; i++) {
		ksym_format(buf, sizeof(buf), ret[i]);
		kprintf("  [<%016lx>] %s\n", (unsigned long)ret[i], buf);
	}
}

void panic_finish(void)
{
	smp_stop_others();
	if (panic_hook)
		panic_hook();
	kprintf("---[ end of panic ]---\n");
	arch_poweroff(PANIC_EXIT_STATUS);
}

/* "<what> CPU n: message", then the caller's backtrace. */
static void report_v(const char *what, const char *fmt, va_list ap)
{
	char msg[256];
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	kprintf("%s CPU %u: %s\nBacktrace:\n", what, cpu_id(), msg);
	backtrace_print(0, 0);
}

void panic(const char *fmt, ...)
{
	if (!panic_claim())
		arch_halt();
	va_list ap;
	va_start(ap, fmt);
	report_v("\nPANIC on", fmt, ap);
	va_end(ap);
	panic_finish();
}

void warn(const char *fmt, ...)
{
	if (warn_hook)
		warn_hook();
	va_list ap;
	va_start(ap, fmt);
	report_v("WARNING:", fmt, ap);
	va_end(ap);
}
