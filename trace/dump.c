/*
 * dump.c — the framed binary dump, the dump on panic, and the boot options
 * ftrace_dump_on_oops and traceoff_on_warning (trace/dump.h).
 *
 * A dump is a run of frames, one console line each, written with one
 * console_write() (the console lock keeps a line whole among other CPUs'
 * output):
 *
 *   @BT1 <id> <seq> <kind> <payload> <crc>\n
 *
 *   id       8 hex digits, the same in every frame of one dump (low bits of
 *            the counter when it began): tells two dumps in one log apart
 *   seq      decimal, 0 (the begin frame) .. nframes-1 (the end frame)
 *   kind     one letter, DUMP_KIND_*
 *   payload  base64 (RFC 4648, padded) of at most DUMP_FRAME_DATA bytes
 *   crc      8 hex digits: CRC-32 (zlib's) of the line's text from <id> up
 *            to the end of <payload>, spaces included
 *
 * Payloads, little-endian (the guest's byte order on both arches):
 *   B  begin: u32 version, u32 nframes, u32 ncpus, u32 flags (DUMP_F_*),
 *      u64 counter Hz, u64 ns per cycle (32.32 fixed point, boot/clock.c's
 *      factor), u64 trace_opts, char tracer[16], char arch[16], then per
 *      CPU: u64 overrun, u64 dropped, u32 events, u32 pages (in this dump)
 *   P  a piece of a page: u16 cpu, u16 piece, u16 pieces, u16 0, u32 page
 *      (its number on that CPU, from 0), u32 bytes (of the page record:
 *      16-byte header + data [+ 8-byte stored lost count]), u64 events lost
 *      just before it, then bytes [piece * DUMP_PIECE, ...) of the record.
 *      The record is rb_read_page()'s trace.dat page; the host pads it to
 *      RB_PAGE_SIZE.
 *   S  symbols: records u64 address, u32 size, u16 name length, name
 *   F  signatures (trace/btf/fsig.h): records u64 ip, u8 nparams, u8 return
 *      kind, u8 return size, u8 0, then per parameter u8 kind, u8 size,
 *      u8 name length, name
 *   C  comms: records i32 pid, u8 length, comm
 *   E  end: u32 nframes, u32 pages, u64 events
 * Records never straddle frames.  Symbols are those containing an address
 * that occurs in the events (ip, parent_ip, func), signatures those of
 * these symbols, comms those of the pids that occur (unknown ones are left
 * out: the host prints "<...>" as trace_comm does).
 *
 * The dump runs twice over the same iterator state (a struct copy): once
 * to count frames and collect symbols and pids, once to print.  It is
 * non-consuming.  One dump at a time (dump_busy); the panic path takes it
 * regardless (the other CPUs are stopped).
 */
#include <errno.h>
#include <string.h>

#include "arch/hooks.h"
#include "boot/cmdline.h"
#include "boot/console.h"
#include "boot/cpu.h"
#include "boot/ksyms.h"
#include "boot/panic.h"
#include "trace/boot.h"
#include "trace/dump.h"
#include "trace/btf/fsig.h"
#include "trace/tracers/function_graph.h"
#include "trace/options.h"
#include "trace/trace.h"

#define DUMP_PIECE      (DUMP_FRAME_DATA - 24u)   /* page bytes per P frame */
#define DUMP_SYM_BITS   65536u                    /* symbols a dump can name */
#define DUMP_MAX_PIDS   256u
#define DUMP_LINE_MAX   (48u + (DUMP_FRAME_DATA + 2u) / 3u * 4u)

enum {
	DUMP_F_SIGS = 1,        /* signatures were loaded (fsig_loaded()) */
	DUMP_F_PANIC = 2,       /* written on the panic path */
};

/* ---- CRC-32 and base64 ---------------------------------------------------- */

static uint32_t crc_table[256];        /* built once; same values if rebuilt */

unsigned dump_crc32(unsigned crc, const void *p, unsigned long n)
{
	if (!crc_table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			crc_table[i] = c;
		}
	const uint8_t *b = p;
	uint32_t c = ~(uint32_t)crc;
	while (n--)
		c = crc_table[(c ^ *b++) & 0xff] ^ (c >> 8);
	return ~c;
}

static size_t base64(char *out, const uint8_t *in, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? abc[v & 63] : '=';
	}
	return o;
}

/* ---- Frames ---------------------------------------------------------------- */

struct framer {
	bool emit;                     /* false: count only */
	uint32_t id;
	unsigned seq;                  /* frames so far */
	char kind;                     /* of the frame being filled, 0: none */
	size_t len;
	uint8_t buf[DUMP_FRAME_DATA];
};

static char line[DUMP_LINE_MAX];       /* dump_busy (or the panic) */

static void frame_put(struct framer *f, char kind, const void *data, size_t n)
{
	if (f->emit) {
		int h = ksnprintf(line, sizeof(line), "%s %08x %u %c ", DUMP_FRAME_MAGIC,
				  (unsigned)f->id, f->seq, kind);
		size_t o = (size_t)h + base64(line + h, data, n);
		/* The CRC covers "<id> <seq> <kind> <payload>". */
		unsigned crc = dump_crc32(0, line + 5, o - 5);
		o += (size_t)ksnprintf(line + o, sizeof(line) - o, " %08x\n", crc);
		console_write(line, o);
	}
	f->seq++;
}

static void frame_flush(struct framer *f)
{
	if (f->kind && f->len)
		frame_put(f, f->kind, f->buf, f->len);
	f->kind = 0;
	f->len = 0;
}

/* Add one record to the frame of its kind; a new frame when it does not fit. */
static void frame_record(struct framer *f, char kind, const void *rec, size_t n)
{
	if (n > DUMP_FRAME_DATA)
		return;                        /* cannot happen for our records */
	if (f->kind != kind || f->len + n > DUMP_FRAME_DATA)
		frame_flush(f);
	f->kind = kind;
	memcpy(f->buf + f->len, rec, n);
	f->len += n;
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* ---- What the events name: symbols and pids ------------------------------ */

struct dump_state {
	struct rb_iter it;             /* at the start of the buffer */
	struct rb_iter walk;           /* a copy that is moved along */
	struct rb_page page;
	uint64_t sym_seen[DUMP_SYM_BITS / 64];
	int pids[DUMP_MAX_PIDS];
	unsigned npids;
	uint32_t events[RB_MAX_CPUS], pages[RB_MAX_CPUS];
	bool panic;
};

static struct dump_state ds;           /* dump_busy (or the panic) */
static int dump_busy;                  /* atomic */

/* ksym_lookup()'s symbol for addr as an index (the last of aliases), or -1. */
static long sym_index(uint64_t addr)
{
	if (!ksym_lookup((uintptr_t)addr, NULL, NULL))
		return -1;
	size_t lo = 0, hi = ksym_count();
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ksym_addr_at(mid) <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

static void note_addr(uint64_t addr)
{
	long i = sym_index(addr);
	if (i >= 0 && (unsigned long)i < DUMP_SYM_BITS)
		ds.sym_seen[i / 64] |= 1ull << (i % 64);
}

static void note_pid(int pid)
{
	for (unsigned i = 0; i < ds.npids; i++)
		if (ds.pids[i] == pid)
			return;
	if (ds.npids < DUMP_MAX_PIDS)
		ds.pids[ds.npids++] = pid;
}

static void note_event(const uint8_t *data, uint32_t len)
{
	struct trace_entry ent;
	uint64_t a, b;
	if (len < sizeof(ent) + 8)
		return;
	memcpy(&ent, data, sizeof(ent));
	note_pid(ent.pid);
	memcpy(&a, data + 8, 8);             /* ip, or func: right after the header */
	note_addr(a);
	if (ent.type == TRACE_FN && len >= sizeof(struct ftrace_entry)) {
		memcpy(&b, data + 16, 8);
		note_addr(b);
	}
}

/* Every event of the page in ds.page (n data bytes). */
static void note_page(uint32_t n)
{
	for (uint32_t o = 0; o < n;) {
		struct rb_decoded d;
		if (rb_decode(ds.page.data + o, n - o, &d) || d.size == 0)
			break;
		if (d.is_data)
			note_event(d.data, d.len);
		o += d.size;
	}
}

/* ---- The two passes -------------------------------------------------------- */

/* Pages: counted and noted (collect), or printed. */
static void dump_pages(struct framer *f, bool collect)
{
	ds.walk = ds.it;
	for (unsigned cpu = 0; cpu < rb_ncpus(trace_buffer); cpu++) {
		unsigned nev;
		uint64_t lost;
		int n;
		for (uint32_t pg = 0; (n = rb_iter_read_page(&ds.walk, cpu, &ds.page, &nev, &lost)) > 0;
		     pg++) {
			uint32_t bytes = RB_PAGE_HDR_SIZE + (uint32_t)n +
					 ((ds.page.commit & RB_MISSED_STORED) ? 8u : 0u);
			uint16_t pieces = (uint16_t)((bytes + DUMP_PIECE - 1) / DUMP_PIECE);
			if (collect) {
				note_page((uint32_t)n);
				ds.events[cpu] += nev;
				ds.pages[cpu]++;
			}
			for (uint16_t p = 0; p < pieces; p++) {
				uint8_t rec[DUMP_FRAME_DATA];
				uint32_t off = p * DUMP_PIECE;
				uint32_t len = bytes - off < DUMP_PIECE ? bytes - off : DUMP_PIECE;
				put16(rec, (uint16_t)cpu);
				put16(rec + 2, p);
				put16(rec + 4, pieces);
				put16(rec + 6, 0);
				put32(rec + 8, pg);
				put32(rec + 12, bytes);
				put64(rec + 16, lost);
				memcpy(rec + 24, (const uint8_t *)&ds.page + off, len);
				frame_flush(f);
				frame_put(f, DUMP_KIND_PAGE, rec, 24 + len);
			}
		}
	}
}

static void dump_begin(struct framer *f, unsigned nframes)
{
	uint8_t rec[DUMP_FRAME_DATA];
	unsigned n = rb_ncpus(trace_buffer);
	uint64_t hz = arch_counter_hz();
	memset(rec, 0, sizeof(rec));
	put32(rec, DUMP_VERSION);
	put32(rec + 4, nframes);
	put32(rec + 8, n);
	put32(rec + 12, (fsig_loaded() ? DUMP_F_SIGS : 0) | (ds.panic ? DUMP_F_PANIC : 0));
	put64(rec + 16, hz);
	put64(rec + 24, hz ? (uint64_t)(((unsigned __int128)1000000000u << 32) / hz) : 0);
	put64(rec + 32, trace_opts);
	strncpy((char *)rec + 40, tracer_current()->name, 15);
	strncpy((char *)rec + 56, ARCH_NAME, 15);
	for (unsigned c = 0; c < n; c++) {
		struct rb_stats st = { 0 };
		rb_stats(trace_buffer, c, &st);
		uint8_t *p = rec + 72 + c * 24;
		put64(p, st.overrun);
		put64(p + 8, st.dropped);
		put32(p + 16, ds.events[c]);
		put32(p + 20, ds.pages[c]);
	}
	frame_put(f, DUMP_KIND_BEGIN, rec, 72 + n * 24);
}

static void dump_symbols(struct framer *f)
{
	size_t n = ksym_count() < DUMP_SYM_BITS ? ksym_count() : DUMP_SYM_BITS;
	for (size_t i = 0; i < n; i++) {
		if (!(ds.sym_seen[i / 64] >> (i % 64) & 1))
			continue;
		uint8_t rec[14 + 255];
		uintptr_t addr = ksym_addr_at(i), size = 0;
		const char *name = ksym_name_at(i);
		size_t len = strnlen(name, 255);
		ksym_lookup(addr, NULL, &size);
		put64(rec, addr);
		put32(rec + 8, (uint32_t)size);
		put16(rec + 12, (uint16_t)len);
		memcpy(rec + 14, name, len);
		frame_record(f, DUMP_KIND_SYMS, rec, 14 + len);
	}
	frame_flush(f);
}

/* fsig_lock() is a mutex: not on the panic path (nothing else runs then). */
static void sig_lock(void)
{
	if (!ds.panic)
		fsig_lock();
}

static void sig_unlock(void)
{
	if (!ds.panic)
		fsig_unlock();
}

static void dump_signature(struct framer *f, const struct fsig *s)
{
	uint8_t rec[DUMP_FRAME_DATA];
	size_t o = 12;
	put64(rec, s->ip);
	rec[8] = s->nparams;
	rec[9] = s->ret.kind;
	rec[10] = s->ret.size;
	rec[11] = 0;
	for (unsigned i = 0; i < s->nparams; i++) {
		const struct fsig_param *p = &s->params[i];
		size_t len = strnlen(p->name ? p->name : "", 64);
		if (o + 3 + len > sizeof(rec))
			return;                    /* too long for a frame: left out */
		rec[o] = p->type.kind;
		rec[o + 1] = p->type.size;
		rec[o + 2] = (uint8_t)len;
		memcpy(rec + o + 3, p->name, len);
		o += 3 + len;
	}
	frame_record(f, DUMP_KIND_SIGS, rec, o);
}

static void dump_signatures(struct framer *f)
{
	size_t n = ksym_count() < DUMP_SYM_BITS ? ksym_count() : DUMP_SYM_BITS;
	sig_lock();
	for (size_t i = 0; i < n; i++) {
		if (!(ds.sym_seen[i / 64] >> (i % 64) & 1))
			continue;
		const struct fsig *s = fsig_find(ksym_addr_at(i));
		if (s)
			dump_signature(f, s);
	}
	sig_unlock();
	frame_flush(f);
}

static void dump_comms(struct framer *f)
{
	for (unsigned i = 0; i < ds.npids; i++) {
		char buf[24];
		uint8_t rec[5 + sizeof(buf)];
		const char *comm = trace_comm(ds.pids[i], buf, sizeof(buf));
		if (ds.pids[i] == 0 || comm != buf)
			continue;                  /* "<idle>" / unknown: the host knows */
		size_t len = strnlen(comm, sizeof(buf) - 1);
		put32(rec, (uint32_t)ds.pids[i]);
		rec[4] = (uint8_t)len;
		memcpy(rec + 5, comm, len);
		frame_record(f, DUMP_KIND_COMMS, rec, 5 + len);
	}
	frame_flush(f);
}

static void dump_end(struct framer *f, unsigned nframes)
{
	uint8_t rec[16];
	uint32_t pages = 0;
	uint64_t events = 0;
	for (unsigned c = 0; c < rb_ncpus(trace_buffer); c++) {
		pages += ds.pages[c];
		events += ds.events[c];
	}
	put32(rec, nframes);
	put32(rec + 4, pages);
	put64(rec + 8, events);
	frame_put(f, DUMP_KIND_END, rec, sizeof(rec));
}

/* Everything after the begin frame. */
static void dump_body(struct framer *f)
{
	dump_pages(f, false);
	dump_symbols(f);
	dump_signatures(f);
	dump_comms(f);
}

/* Both passes over ds.it (set up by the caller). */
static void dump_run(void)
{
	static struct framer f;               /* large: not on the stack */
	memset(ds.sym_seen, 0, sizeof(ds.sym_seen));
	memset(ds.events, 0, sizeof(ds.events));
	memset(ds.pages, 0, sizeof(ds.pages));
	ds.npids = 0;
	f = (struct framer){ .emit = false, .id = (uint32_t)arch_counter() };
	f.seq = 1;                             /* the begin frame */
	dump_pages(&f, true);                  /* counts pieces and notes names */
	dump_symbols(&f);
	dump_signatures(&f);
	dump_comms(&f);
	unsigned nframes = f.seq + 1;          /* + the end frame */
	uint32_t id = f.id;
	f = (struct framer){ .emit = true, .id = id };
	dump_begin(&f, nframes);
	dump_body(&f);
	dump_end(&f, nframes);
}

int dump_binary(void)
{
	if (!trace_buffer)
		return -ENODEV;
	int zero = 0;
	if (!__atomic_compare_exchange_n(&dump_busy, &zero, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	int err = rb_iter_start(&ds.it, trace_buffer, RB_ALL_CPUS);
	if (!err) {
		ds.panic = false;
		dump_run();
		rb_iter_end(&ds.it);
	}
	__atomic_store_n(&dump_busy, 0, __ATOMIC_RELEASE);
	return err ? -EBUSY : 0;
}

int dump_command(const char *args)
{
	if (args && *args) {
		kprintf("dump: takes no arguments\n");
		return -1;
	}
	int err = dump_binary();
	if (err)
		kprintf("dump: %s\n", err == -ENODEV ? "no trace buffer" :
			"busy (another dump, or writers did not leave the buffer)");
	return err ? -1 : 0;
}

/* ---- On panic ---------------------------------------------------------------- */

static enum { OOPS_OFF, OOPS_TEXT, OOPS_BINARY } dump_on_oops;   /* set at boot */

/* `cat trace` over the forced iterator: no mutex, no waiting (fsig_lock
 * is a no-op during a panic, so this works from interrupt context too). */
static void panic_text(void)
{
	static struct trace_iter ti;
	ti.it = ds.it;
	trace_print_pass(&ti);
}

void dump_on_panic(void)
{
	if (!trace_buffer || dump_on_oops == OOPS_OFF)
		return;
	__atomic_store_n(&dump_busy, 1, __ATOMIC_RELAXED);     /* ours now, whoever had it */
	rb_iter_start_force(&ds.it, trace_buffer);
	ds.panic = true;
	kprintf("Dumping ftrace buffer:\n---------------------------------\n");
	if (dump_on_oops == OOPS_TEXT)
		panic_text();
	else
		dump_run();
	kprintf("---------------------------------\n");
}

/* ftrace_dump_on_oops[=1|0|binary] */
static int opt_dump_on_oops(const char *v)
{
	if (!v || !strcmp(v, "1"))
		dump_on_oops = OOPS_TEXT;
	else if (!strcmp(v, "binary"))
		dump_on_oops = OOPS_BINARY;
	else if (!strcmp(v, "0"))
		dump_on_oops = OOPS_OFF;
	else
		return -1;
	panic_hook = dump_on_oops == OOPS_OFF ? NULL : dump_on_panic;
	return 0;
}
BT_PARAM_OPT("ftrace_dump_on_oops", opt_dump_on_oops,
	 "print the trace on a panic (=binary: the framed binary dump)");

/* ---- On warnings ------------------------------------------------------------- */

static void traceoff_on_warn(void)
{
	tracing_off();                 /* the tracing_on switch: `cat tracing_on` says 0 */
}

static int opt_traceoff_on_warning(const char *v)
{
	if (v && strcmp(v, "1"))
		return v && !strcmp(v, "0") ? (warn_hook = NULL, 0) : -1;
	warn_hook = traceoff_on_warn;
	return 0;
}
BT_PARAM_OPT("traceoff_on_warning", opt_traceoff_on_warning,
	 "a warning turns tracing off (the trace before it survives)");
