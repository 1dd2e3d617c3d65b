/*
 * ftrace_selftest_stubs.c — weak stand-ins for patch/patch.c and
 * patch/tramp.c, so that the arch code and ftrace_selftest.c link while
 * patch/ is not yet part of the build.  The real functions, once linked, replace every one of
 * these; delete this file then.  Same contracts as patch/patch.h and
 * patch/tramp.h, minus statistics and slot reuse.
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "boot/smp.h"
#include "patch/patch.h"
#include "patch/tramp.h"

static struct patch_site *stub_inflight;
static unsigned stub_inflight_n;
static uintptr_t stub_next_slot;

static void stub_sync_nothing(void *unused) { }

__attribute__((weak)) void patch_sync_cores(void)
{
	smp_call_all(stub_sync_nothing, NULL);
}

__attribute__((weak)) const struct patch_site *patch_find_inflight(uintptr_t func)
{
	unsigned n = __atomic_load_n(&stub_inflight_n, __ATOMIC_ACQUIRE);
	const struct patch_site *v = __atomic_load_n(&stub_inflight, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (v[i].func == func)
			return &v[i];
	return NULL;
}

__attribute__((weak)) int patch_apply(struct patch_site *sites, unsigned n, unsigned *bad)
{
	uint8_t want[ARCH_SITE_SIZE];
	for (unsigned i = 0; i < n; i++)
		if (arch_site_encode(sites[i].func, sites[i].old_target, want) != 0 ||
		    memcmp((const void *)sites[i].func, want, ARCH_SITE_SIZE) != 0 ||
		    arch_site_encode(sites[i].func, sites[i].new_target, want) != 0) {
			*bad = i;
			return -EILSEQ;
		}
	__atomic_store_n(&stub_inflight, sites, __ATOMIC_RELEASE);
	__atomic_store_n(&stub_inflight_n, n, __ATOMIC_RELEASE);
	arch_patch_sites(sites, n);
	__atomic_store_n(&stub_inflight_n, 0, __ATOMIC_RELEASE);
	patch_sync_cores();
	return 0;
}

/* Slots from the top of the pool down, never reused. */
__attribute__((weak)) uintptr_t tramp_alloc(void)
{
	if (!stub_next_slot)
		stub_next_slot = (uintptr_t)__tramp_pool_end;
	if (stub_next_slot - ARCH_TRAMP_SIZE < (uintptr_t)__tramp_pool_start)
		return 0;
	stub_next_slot -= ARCH_TRAMP_SIZE;
	return stub_next_slot;
}

__attribute__((weak)) void tramp_write(uintptr_t slot, const void *code, size_t len)
{
	arch_text_poke((void *)slot, code, len);
	patch_sync_cores();
}

__attribute__((weak)) void tramp_free(uintptr_t slot)
{
	static uint8_t traps[ARCH_TRAMP_SIZE];
	arch_tramp_poison(traps, sizeof(traps));
	arch_text_poke((void *)slot, traps, sizeof(traps));
	patch_sync_cores();
}
