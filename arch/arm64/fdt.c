/*
 * fdt.c — a minimal flattened-device-tree reader for the QEMU virt board.
 *
 * One pass over the structure block with a stack of open nodes.  Properties
 * precede subnodes in an FDT, so when a node ends every property it had is
 * known, and so are its parent's #address-cells/#size-cells: the node is
 * classified then (memory, cpu, psci, pl011, gic-v3, pl031) and its reg decoded.
 * /chosen properties are taken as they come.
 *
 * Runs before the MMU is on, when memory is Device-nGnRnE: no unaligned
 * accesses (strict-align below, byte-wise big-endian reads), no library
 * calls, no atomics.  Errors are returned as static strings; the caller
 * prints them with the polled console and stops.
 *
 * Not handled (not produced by QEMU virt): "ranges" translation on the way
 * up (all devices we use sit in nodes whose parents map 1:1), overlays,
 * /memreserve/ entries (QEMU emits none for virt).
 */
#include "platform.h"
#include "sysreg.h"

struct platform platform;

#define FDT_MAGIC      0xd00dfeedu
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_NOP        4
#define FDT_END        9

#define FDT_MAX_DEPTH  8

/* Header fields (big-endian u32 each). */
#define HDR_MAGIC      0
#define HDR_TOTALSIZE  4
#define HDR_OFF_STRUCT 8
#define HDR_OFF_STRS   12
#define HDR_VERSION    20
#define HDR_SIZE_STRS  32
#define HDR_SIZE_STRUCT 36

/* One open node: the properties fdt_parse cares about. */
struct node {
	const char *name;                 /* unit name, e.g. "cpu@1" */
	unsigned addr_cells, size_cells;  /* declared for its children (defaults 2/1) */
	unsigned nredist;                 /* #redistributor-regions (gic-v3), default 1 */
	const uint8_t *reg, *intr;
	uint32_t reg_len, intr_len;
	const char *compat, *devtype, *method;
	uint32_t compat_len, devtype_len, method_len;
};

struct walk {
	const uint8_t *strings;
	uint32_t strings_size;
	uintptr_t kernel_addr;
	struct node stack[FDT_MAX_DEPTH];
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t cells(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 32 | be32(p + 4 * i);
	return v;
}

static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* "cpu@1" matches base "cpu"; "chosen" matches "chosen". */
static int node_is(const char *name, const char *base)
{
	while (*base && *name == *base)
		name++, base++;
	return *base == 0 && (*name == 0 || *name == '@');
}

/* Does a property value (NUL-terminated strings, `len` bytes) contain s? */
static int strlist_has(const char *list, uint32_t len, const char *s)
{
	uint32_t i = 0;
	while (i < len) {
		if (str_eq(list + i, s))
			return 1;
		while (i < len && list[i])
			i++;
		i++;
	}
	return 0;
}

static int prop_is(const char *v, uint32_t len, const char *s)
{
	return len > 0 && v[len - 1] == 0 && str_eq(v, s);
}

int fdt_valid(const void *p)
{
	return p && be32(p) == FDT_MAGIC;
}

static void chosen_prop(const char *name, const uint8_t *v, uint32_t len)
{
	if (str_eq(name, "bootargs") && len > 0 && v[len - 1] == 0) {
		platform.bootargs = (const char *)v;
		platform.bootargs_len = len - 1;
	} else if (str_eq(name, "linux,initrd-start") && (len == 4 || len == 8)) {
		platform.initrd_start = cells(v, len / 4);
	} else if (str_eq(name, "linux,initrd-end") && (len == 4 || len == 8)) {
		platform.initrd_end = cells(v, len / 4);
	}
}

static void node_prop(struct walk *w, int depth, const char *name, const uint8_t *v, uint32_t len)
{
	struct node *n = &w->stack[depth];

	if (depth == 1 && node_is(n->name, "chosen"))
		chosen_prop(name, v, len);
	if (str_eq(name, "#address-cells") && len == 4)
		n->addr_cells = be32(v);
	else if (str_eq(name, "#size-cells") && len == 4)
		n->size_cells = be32(v);
	else if (str_eq(name, "#redistributor-regions") && len == 4)
		n->nredist = be32(v);
	else if (str_eq(name, "reg"))
		n->reg = v, n->reg_len = len;
	else if (str_eq(name, "interrupts"))
		n->intr = v, n->intr_len = len;
	else if (str_eq(name, "compatible"))
		n->compat = (const char *)v, n->compat_len = len;
	else if (str_eq(name, "device_type"))
		n->devtype = (const char *)v, n->devtype_len = len;
	else if (str_eq(name, "method"))
		n->method = (const char *)v, n->method_len = len;
}

/* Decode entry i of n's reg with the parent's cells; 0 if it is not there. */
static int reg_entry(const struct node *n, const struct node *parent, unsigned i,
		     struct mmio_range *out)
{
	unsigned ac = parent->addr_cells, sc = parent->size_cells;
	uint32_t stride = 4 * (ac + sc);

	if (!n->reg || ac > 2 || sc > 2 || stride == 0 || (i + 1) * stride > n->reg_len)
		return 0;
	out->base = cells(n->reg + i * stride, ac);
	out->size = cells(n->reg + i * stride + 4 * ac, sc);
	return 1;
}

static const char *memory_node(struct walk *w, const struct node *n, const struct node *parent)
{
	struct mmio_range r;
	for (unsigned i = 0; reg_entry(n, parent, i, &r); i++) {
		if (r.base <= w->kernel_addr && w->kernel_addr - r.base < r.size) {
			platform.ram_base = r.base;
			platform.ram_size = r.size;
		}
	}
	return 0;
}

static const char *cpu_node(const struct node *n, const struct node *parent)
{
	if (!n->reg || parent->addr_cells < 1 || parent->addr_cells > 2 ||
	    n->reg_len < 4 * parent->addr_cells)
		return "fdt: cpu node without a usable reg";
	if (platform.ncpus == MAX_CPUS) {
		platform.ncpus_ignored++;
		return 0;
	}
	platform.cpu_hwid[platform.ncpus++] = cells(n->reg, parent->addr_cells) & MPIDR_AFF_MASK;
	return 0;
}

static const char *psci_node(const struct node *n)
{
	if (prop_is(n->method, n->method_len, "hvc"))
		platform.psci = PSCI_HVC;
	else if (prop_is(n->method, n->method_len, "smc"))
		platform.psci = PSCI_SMC;
	else
		return "fdt: /psci has no method \"hvc\" or \"smc\"";
	return 0;
}

static const char *uart_node(const struct node *n, const struct node *parent)
{
	if (platform.uart.base)
		return 0;                 /* keep the first one */
	if (!reg_entry(n, parent, 0, &platform.uart))
		return "fdt: pl011 without a usable reg";
	/* GIC interrupt specifier: <type number flags>, type 0 = SPI, 1 = PPI. */
	if (!n->intr || n->intr_len < 12)
		return "fdt: pl011 without interrupts";
	uint32_t type = be32(n->intr), num = be32(n->intr + 4);
	platform.uart_intid = num + (type == 0 ? 32 : 16);
	return 0;
}

static const char *gic_node(const struct node *n, const struct node *parent)
{
	unsigned nr = n->nredist ? n->nredist : 1;
	if (nr > PLATFORM_MAX_GICR)
		return "fdt: too many GICv3 redistributor regions";
	if (!reg_entry(n, parent, 0, &platform.gicd))
		return "fdt: gic-v3 without a distributor reg";
	for (unsigned i = 0; i < nr; i++)
		if (!reg_entry(n, parent, 1 + i, &platform.gicr[i]))
			return "fdt: gic-v3 redistributor reg missing";
	platform.ngicr = nr;
	return 0;
}

static const char *node_end(struct walk *w, int depth)
{
	static const struct node root_parent = { .addr_cells = 2, .size_cells = 1 };
	const struct node *n = &w->stack[depth];
	const struct node *parent = depth > 0 ? &w->stack[depth - 1] : &root_parent;

	if (depth == 1 && (prop_is(n->devtype, n->devtype_len, "memory") ||
			   (!n->devtype && node_is(n->name, "memory"))))
		return memory_node(w, n, parent);
	if (depth == 2 && node_is(parent->name, "cpus") &&
	    prop_is(n->devtype, n->devtype_len, "cpu"))
		return cpu_node(n, parent);
	if (strlist_has(n->compat, n->compat_len, "arm,psci") ||
	    strlist_has(n->compat, n->compat_len, "arm,psci-0.2") ||
	    (depth == 1 && node_is(n->name, "psci")))
		return psci_node(n);
	if (strlist_has(n->compat, n->compat_len, "arm,pl011"))
		return uart_node(n, parent);
	if (strlist_has(n->compat, n->compat_len, "arm,gic-v3"))
		return gic_node(n, parent);
	/* The RTC is optional: without one, time() counts from boot (lib/time.c). */
	if (strlist_has(n->compat, n->compat_len, "arm,pl031") && !platform.rtc.base &&
	    !reg_entry(n, parent, 0, &platform.rtc))
		platform.rtc = (struct mmio_range){ 0, 0 };
	return 0;
}

static const char *walk_struct(struct walk *w, const uint8_t *p, const uint8_t *end)
{
	int depth = -1;
	const char *err;

	while (p + 4 <= end) {
		uint32_t tok = be32(p);
		p += 4;
		switch (tok) {
		case FDT_BEGIN_NODE: {
			const char *name = (const char *)p;
			while (p < end && *p)
				p++;
			if (p >= end)
				return "fdt: unterminated node name";
			p = (const uint8_t *)(((uintptr_t)p + 4) & ~(uintptr_t)3);
			if (++depth >= FDT_MAX_DEPTH)
				return "fdt: nodes nested too deeply";
			w->stack[depth] = (struct node){ .name = name, .addr_cells = 2, .size_cells = 1 };
			break;
		}
		case FDT_PROP: {
			if (p + 8 > end || depth < 0)
				return "fdt: property outside a node";
			uint32_t len = be32(p), nameoff = be32(p + 4);
			const uint8_t *v = p + 8;
			if (len > (uint32_t)(end - v) || nameoff >= w->strings_size)
				return "fdt: property out of bounds";
			p = v + ((len + 3) & ~3u);
			node_prop(w, depth, (const char *)w->strings + nameoff, v, len);
			break;
		}
		case FDT_END_NODE:
			if (depth < 0)
				return "fdt: unbalanced end of node";
			if ((err = node_end(w, depth)) != 0)
				return err;
			depth--;
			break;
		case FDT_NOP:
			break;
		case FDT_END:
			return depth == -1 ? 0 : "fdt: end inside a node";
		default:
			return "fdt: bad structure token";
		}
	}
	return "fdt: structure block has no end token";
}

const char *fdt_parse(const void *fdt, uintptr_t kernel_addr)
{
	static struct walk w;       /* 8 nodes: too big for the boot stack's taste */
	const uint8_t *h = fdt;
	const char *err;

	if (!fdt_valid(fdt))
		return "fdt: bad magic";
	uint32_t total = be32(h + HDR_TOTALSIZE);
	uint32_t off_struct = be32(h + HDR_OFF_STRUCT), size_struct = be32(h + HDR_SIZE_STRUCT);
	uint32_t off_strs = be32(h + HDR_OFF_STRS), size_strs = be32(h + HDR_SIZE_STRS);
	if (be32(h + HDR_VERSION) < 17)
		return "fdt: version < 17";
	if (off_struct > total || size_struct > total - off_struct ||
	    off_strs > total || size_strs > total - off_strs || (off_struct & 3))
		return "fdt: blocks outside the blob";

	w.strings = h + off_strs;
	w.strings_size = size_strs;
	w.kernel_addr = kernel_addr;
	if ((err = walk_struct(&w, h + off_struct, h + off_struct + size_struct)) != 0)
		return err;

	if (!platform.ram_size)
		return "fdt: no /memory range contains the kernel";
	if (!platform.ncpus)
		return "fdt: no /cpus/cpu@* nodes";
	if (!platform.uart.base)
		return "fdt: no arm,pl011 UART";
	if (!platform.gicd.base || !platform.ngicr)
		return "fdt: no arm,gic-v3 interrupt controller";
	if (platform.initrd_end < platform.initrd_start)
		return "fdt: linux,initrd-end below linux,initrd-start";
	return 0;
}
