/*
 * enabled_functions.c — tracefs's enabled_functions: one line per record
 * whose site is patched, in Linux's layout, describing the state the last
 * site update installed (its applied hashes: want_of(..., true)).
 */
#include "boot/console.h"
#include "boot/ksyms.h"
#include "trace/ftrace.h"
#include "trace/ftrace_internal.h"
#include "trace/records.h"
#include "trace/site_state.h"

/* One enabled_functions line for r, in Linux's layout:
 * "name (refs) R  D O \ttramp: ADDR (callback)" or "... ->caller", then
 * "\n\tdirect-->TRAMPOLINE" with a direct trampoline.  refs counts every
 * attached ops, the direct one too (Linux's count); a site with a direct
 * trampoline and callbacks shows the regs list caller it calls. */
static void describe(struct ftrace_rec *r, char *buf, size_t size)
{
	uint32_t f = r->flags;
	uintptr_t ip = rec_ip(r);
	char sym[96];
	size_t n = (size_t)ksnprintf(buf, size, "%s (%u)%s  %s%s%s", rec_name(r),
				     f & FREC_REF_MASK, (f & FREC_REGS_EN) ? " R" : "  ",
				     (f & FREC_DIRECT_EN) ? " D" : "  ",
				     (f & FREC_CALL_OPS_EN) ? " O" : "  ", "   ");
	struct site_want w;
	want_of(ip, &w, true);
	if (n < size && (f & FREC_TRAMP_EN) && w.single) {
		ksym_format(sym, sizeof(sym), (uintptr_t)w.single->func);
		n += (size_t)ksnprintf(buf + n, size - n, "\ttramp: 0x%lx (%s)",
				       (unsigned long)w.single->tramp, sym);
	} else if (n < size && (f & FREC_ENABLED) && (!(f & FREC_DIRECT_EN) || w.count) &&
		   (!(f & FREC_TRAMP_EN) || w.single)) {
		ksym_format(sym, sizeof(sym), target_of(enabled_as_wanted(f), &w));
		n += (size_t)ksnprintf(buf + n, size - n, " ->%s", sym);
	}
	if (n < size && (f & FREC_CALL_OPS_EN) && w.single) {
		ksym_format(sym, sizeof(sym), (uintptr_t)w.single->func);
		n += (size_t)ksnprintf(buf + n, size - n, "\tops: 0x%lx (%s)",
				       (unsigned long)w.single, sym);
	}
	if (n < size && (f & FREC_DIRECT_EN)) {
		ksym_format(sym, sizeof(sym), w.direct);
		ksnprintf(buf + n, size - n, "\n\tdirect-->%s", sym);
	}
}

void ftrace_list_enabled(void (*out)(void *ctx, const char *line), void *ctx)
{
	char line[320];
	mutex_lock(&ftrace_mutex);
	for (unsigned i = 0; i < ftrace_nrecs; i++) {
		if (!(ftrace_recs[i].flags & FREC_ENABLED))
			continue;
		describe(&ftrace_recs[i], line, sizeof(line));
		out(ctx, line);
	}
	mutex_unlock(&ftrace_mutex);
}
