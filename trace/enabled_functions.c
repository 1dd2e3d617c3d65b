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
#include "trace/tracefs.h"

/*
 * One enabled_functions line for r, in Linux's layout:
 *   "name (refs) R  D O   " then, as Linux's x86-64 prints it:
 *   an ops' own trampoline   "\ttramp: 0xADDR (callback) ->what it calls"
 *                            (the callback itself, or ftrace_ops_assist_func;
 *                            a pool address has no symbol: hex, as %pS)
 *   the list caller          " ->what it calls" (ftrace_ops_list_func, the
 *                            regs list caller's ftrace_ops_list_regs_func,
 *                            or with CALL_OPS the one ops' entry)
 *   CALL_OPS                 "\tops: OPS (callback)"
 *   a direct trampoline      "\n\tdirect-->TARGET"; refs counts every
 *                            attached ops, the direct one too (Linux's count)
 * (Linux's arm64 prints no " ->": its arch hook for it returns nothing.)
 * A state the records cannot have (TRAMP or CALL_OPS without a single ops)
 * prints Linux's "ERROR!".
 */
static void describe(struct ftrace_rec *r, char *buf, size_t size)
{
	uint32_t f = r->flags;
	uintptr_t ip = rec_ip(r);
	char sym[96], sym2[96];
	size_t n = (size_t)ksnprintf(buf, size, "%s (%u)%s  %s%s%s", rec_name(r),
				     f & FREC_REF_MASK, (f & FREC_REGS_EN) ? " R" : "  ",
				     (f & FREC_DIRECT_EN) ? " D" : "  ",
				     (f & FREC_CALL_OPS_EN) ? " O" : "  ", "   ");
	struct site_want w;
	want_of(ip, &w, true);
	if (n < size && (f & FREC_TRAMP_EN)) {
		if (w.single) {
			ksym_format(sym, sizeof(sym), (uintptr_t)w.single->func);
			ksym_format(sym2, sizeof(sym2), (uintptr_t)ftrace_ops_entry(w.single));
			n += (size_t)ksnprintf(buf + n, size - n, "\ttramp: 0x%lx (%s) ->%s",
					       (unsigned long)w.single->tramp, sym, sym2);
		} else {
			n += (size_t)ksnprintf(buf + n, size - n, "\ttramp: ERROR!");
		}
	} else if (n < size && (!(f & FREC_DIRECT_EN) || w.count)) {
		/* The list caller calls the site's ops (CALL_OPS) or its list
		 * function; a site with registers, or with a direct trampoline
		 * after the callbacks, calls the regs list caller (target_of). */
		bool regs = f & (FREC_REGS_EN | FREC_DIRECT_EN);
		uintptr_t next = (f & FREC_CALL_OPS_EN) && w.single ?
					 (uintptr_t)(regs ? w.single->regs_call : w.single->call) :
				 regs ? (uintptr_t)ftrace_ops_list_regs_func :
					(uintptr_t)ftrace_ops_list_func;
		ksym_format(sym, sizeof(sym), next);
		n += (size_t)ksnprintf(buf + n, size - n, " ->%s", sym);
	}
	if (n < size && (f & FREC_CALL_OPS_EN)) {
		if (w.single) {
			ksym_format(sym, sizeof(sym), (uintptr_t)w.single);
			ksym_format(sym2, sizeof(sym2), (uintptr_t)w.single->func);
			n += (size_t)ksnprintf(buf + n, size - n, "\tops: %s (%s)", sym, sym2);
		} else {
			n += (size_t)ksnprintf(buf + n, size - n, "\tops: ERROR!");
		}
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

static int cat_enabled(const char *arg)
{
	ftrace_list_enabled(tracefs_print_line, NULL);
	return 0;
}

TRACEFS_FILE(170, "enabled_functions", .cat = cat_enabled);
