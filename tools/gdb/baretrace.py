"""baretrace.py — gdb commands that read baretrace's tracer from guest memory.

Loaded by tools/qemu-run.sh (GDB=1, make gdb-ARCH) after `file kernel.elf`
and `target remote`; or by hand: `source tools/gdb/baretrace.py`.

  bt-trace [FILE]     the trace as the guest's `cat trace` prints it
                      (header included), to the console or FILE
  bt-save-dat FILE    trace.dat version 6 for `trace-cmd report`
  bt-json FILE        Chrome trace-event JSON for Perfetto
  bt-enabled          enabled functions, as `cat enabled_functions`
  bt-stats            per-CPU buffer statistics

The guest is not asked for anything: every command reads memory while it is
stopped (Ctrl-C, a breakpoint, after a panic).  Struct layouts come from the
ELF's DWARF types (gdb.lookup_type); only the ring buffer's packed words
(trace/ring_buffer/rb_internal.h) and the record flag bits (trace/core/records.h), which are
#defines and so not in DWARF, are spelt out in tools/btlib/memsrc.py and
here.  The walk over the buffer and the output formats are btlib's (memsrc:
the page walk; text, tracedat, chrome: the writers bt-export uses), so the
extension and the serial dump cannot drift apart.

A guest stopped mid-write: a CPU with a writer inside a reservation is read
up to its commit word (the unfinished event is left out), and a page state
that makes no sense ends that CPU's walk with a note, never a loop.  char *
arguments under funcgraph-args-string print from the strings the entry
events carry (captured at the call): guest memory is not read for them.

Corrupt state (a wild write, a guest stopped in a bad place): nothing read
from guest memory is trusted before it is checked.  Every pointer is read
only inside RAM (boot_info's [ram_start, heap_end), itself checked to hold
the image), every count is bounded by the capacity of what it counts (the
array in the DWARF type, RB_MAX_PAGES, the ELF's site table, the ksyms
arrays, the shadow stack's words), and no one read is above MAX_READ.  A
value that fails gives the command's error naming the field, its value and
the bound ("bt-enabled: ftrace_nrecs = 4294967295 (0xffffffff): more than
the sites the kernel was built with (__sites_start..__sites_end) (512)"),
never a huge allocation, a gdb internal error or a traceback; the unwinder
declines (gdb's own unwinders go on).  tests/checks/checks_gdb_corrupt.py
corrupts each of these fields in turn.
"""
import os
import struct
import sys

import gdb

_HERE = os.path.dirname(os.path.abspath(os.path.expanduser(__file__)))
sys.path.insert(0, os.path.dirname(_HERE))
from btlib import chrome, frames, memsrc, text, tracedat  # noqa: E402

# trace/core/records.h (#defines: not in DWARF)
FREC_REF_MASK = 0x000fffff
FREC_REGS, FREC_REGS_EN = 1 << 20, 1 << 21
FREC_TRAMP, FREC_TRAMP_EN = 1 << 22, 1 << 23
FREC_DIRECT, FREC_DIRECT_EN = 1 << 24, 1 << 25
FREC_CALL_OPS, FREC_CALL_OPS_EN = 1 << 26, 1 << 27
FREC_ENABLED, FREC_DISABLED = 1 << 28, 1 << 29
ENABLED_LINE_MAX = 320            # ftrace_list_enabled's line buffer
# Bound on the ops list walk.  The guest sets none: a full trampoline pool
# alone is some 250 ops on arm64 (tests/guest/fixtures/gdb_states.c), so the
# bound only stops a list that loops or runs wild, and says so.
MAX_OPS = 1 << 16
# trace/ring_buffer/rb_internal.h (#define): a CPU buffer's pages; a page index is 16 bits.
RB_MAX_PAGES = 65000
# The largest single read of a correct guest is an rb_cpu array of
# RB_MAX_PAGES + 1 words (520 KB); past this a read is refused whatever
# the count that asked for it.
MAX_READ = 1 << 20


class BtError(Exception):
    pass


# ---- memory and types ------------------------------------------------------------
def _inf():
    inf = gdb.selected_inferior()
    if inf is None or inf.pid == 0:
        raise BtError("no running guest (target remote first)")
    return inf


def _read_raw(addr, n, what):
    try:
        return bytes(_inf().read_memory(addr, n))
    except gdb.MemoryError as e:
        raise BtError("%s = 0x%x: cannot read its %d bytes: %s" % (what, addr, n, e))


_ram = None         # [ram_start, heap_end) for the command being run: ram()


def forget_ram():
    """Read boot_info again at the next read (each command, each unwind:
    memory may have changed since)."""
    global _ram
    _ram = None


def ram():
    """(ram_start, heap_end) of boot_info, where everything the extension
    follows a pointer to lies (the image, the heap).  BtError if those do
    not hold boot_info itself."""
    global _ram
    if _ram is None:
        addr, t = var("boot_info")
        bi = unpack(t, _read_raw(addr, t.sizeof, "&boot_info"))
        lo, hi = bi["ram_start"], bi["heap_end"]
        if not lo <= addr < hi:
            raise BtError("boot_info.ram_start, heap_end = 0x%x, 0x%x: RAM that does not hold "
                          "boot_info itself (at 0x%x)" % (lo, hi, addr))
        _ram = (lo, hi)
    return _ram


def read(addr, n, what):
    """n bytes at addr, which `what` names in the errors (a C expression:
    "trace_buffer->cpu[1]->slot").  BtError unless [addr, addr + n) lies in
    RAM, n is at most MAX_READ and gdb can read it."""
    if n <= 0:
        return b""
    if n > MAX_READ:
        raise BtError("%s = 0x%x: %d bytes there is more than any structure of the tracer "
                      "(%d)" % (what, addr, n, MAX_READ))
    lo, hi = ram()
    if not lo <= addr <= hi - n:
        raise BtError("%s = 0x%x: its %d bytes are not in RAM [0x%x, 0x%x)" % (what, addr, n,
                                                                                lo, hi))
    return _read_raw(addr, n, what)


def bounded(what, v, limit, of):
    """v, if 0 <= v <= limit; else BtError naming what, v and the bound
    (`of`: what the limit is the capacity of)."""
    if not 0 <= v <= limit:
        raise BtError("%s = %d (0x%x): more than %s (%d)" % (what, v, v & (2 ** 64 - 1), of, limit))
    return v


def read_cstr(addr, limit=256, what="string"):
    """A NUL-terminated string, read in small pieces so that the end of
    mapped memory after it is never touched."""
    if not addr:
        return None
    out = b""
    while len(out) < limit:
        try:
            chunk = read(addr + len(out), 32, what)
        except BtError:
            chunk = read(addr + len(out), 1, what)
        i = chunk.find(b"\0")
        if i >= 0:
            return (out + chunk[:i]).decode("utf-8", "replace")
        out += chunk
    return out[:limit].decode("utf-8", "replace")


def _signed(t):
    try:
        return bool(t.is_signed)
    except (AttributeError, ValueError, gdb.error):
        return False


def _int_of(t, b, off, size):
    # Both of baretrace's targets are little-endian.
    return int.from_bytes(b[off:off + size], "little", signed=_signed(t))


def unpack(t, b, off=0):
    """The value of type t at b[off:] in Python terms: ints, dicts for
    structs (by field name), lists for arrays (flexible ones are empty)."""
    t = t.strip_typedefs()
    code = t.code
    if code == gdb.TYPE_CODE_STRUCT or code == gdb.TYPE_CODE_UNION:
        out = {}
        for f in t.fields():
            if not f.name or not hasattr(f, "bitpos"):
                continue
            ft = f.type.strip_typedefs()
            if f.bitsize:
                word = int.from_bytes(b[off + f.bitpos // 64 * 8:off + f.bitpos // 64 * 8 + 8],
                                      "little")
                out[f.name] = (word >> (f.bitpos % 64)) & ((1 << f.bitsize) - 1)
            else:
                out[f.name] = unpack(ft, b, off + f.bitpos // 8)
        return out
    if code == gdb.TYPE_CODE_ARRAY:
        lo, hi = t.range()
        et = t.target().strip_typedefs()
        n = hi - lo + 1 if hi >= lo else 0
        return [unpack(et, b, off + i * et.sizeof) for i in range(n)]
    if code == gdb.TYPE_CODE_BOOL:
        return b[off] != 0
    if code == gdb.TYPE_CODE_PTR:
        return int.from_bytes(b[off:off + t.sizeof], "little")
    if code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_ENUM, gdb.TYPE_CODE_CHAR):
        return _int_of(t, b, off, t.sizeof)
    return b[off:off + t.sizeof]


def field_offset(t, name):
    t = t.strip_typedefs()
    for f in t.fields():
        if f.name == name:
            return f.bitpos // 8, f.type.strip_typedefs()
    raise BtError("%s has no field %s (an older kernel.elf?)" % (t, name))


def struct_type(name):
    try:
        return gdb.lookup_type(name).strip_typedefs()
    except gdb.error:
        raise BtError("type %s not in the ELF's debug info" % name)


def var(name, file=None):
    """(address, type) of a global, or of a file's static variable."""
    sym = None
    if file:
        for s in gdb.lookup_static_symbols(name):
            fn = s.symtab.filename if s.symtab else ""
            if fn == file or fn.endswith("/" + file):
                sym = s
                break
    else:
        sym = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if sym is None:
        raise BtError("symbol %s%s not found" % (name, " in " + file if file else ""))
    v = sym.value()
    return int(v.address), v.type.strip_typedefs()


def load(name, file=None):
    addr, t = var(name, file)
    return unpack(t, read(addr, t.sizeof, name))


def msym(name):
    """Address of a symbol that may have no debug info (assembly)."""
    try:
        return int(gdb.parse_and_eval("(unsigned long)&%s" % name))
    except gdb.error:
        raise BtError("symbol %s not found" % name)


def read_array(et, addr, count, what):
    """count elements of type et at addr (the caller has bounded count)."""
    et = et.strip_typedefs()
    if count <= 0 or not addr:
        return []
    b = read(addr, et.sizeof * count, what)
    if et.code in (gdb.TYPE_CODE_INT, gdb.TYPE_CODE_PTR) and et.sizeof in (4, 8):
        signed = et.code == gdb.TYPE_CODE_INT and _signed(et)
        fmt = {4: "i", 8: "q"}[et.sizeof] if signed else {4: "I", 8: "Q"}[et.sizeof]
        return list(struct.unpack("<%d%s" % (count, fmt), b))
    return [unpack(et, b, i * et.sizeof) for i in range(count)]


def ptr_target(t, fieldname):
    _, ft = field_offset(t, fieldname)
    return ft.target()


def array_len(t, fieldname=None):
    """Elements of array type t (or of t's field fieldname): a capacity."""
    if fieldname:
        _, t = field_offset(t, fieldname)
    lo, hi = t.strip_typedefs().range()
    return hi - lo + 1


def nsites():
    """Patch sites the kernel was built with (__sites_start..__sites_end,
    one uintptr_t each): the capacity of ftrace_recs."""
    return (msym("__sites_end") - msym("__sites_start")) // 8


def arch_name():
    a = gdb.selected_inferior().architecture().name()
    return "arm64" if "aarch64" in a else "x86_64" if "x86-64" in a else a


# ---- the kernel's symbol table (boot/ksyms.c; read-only data) -----------------
class Ksyms:
    """ksyms_addr / ksyms_name / ksyms_strings as tools/gen-ksyms.py lays
    them out; lookups as ksym_lookup (the last alias, size to the next
    distinct address)."""

    _cache = {}

    @classmethod
    def get(cls):
        count = struct.unpack("<Q", read(msym("ksyms_count"), 8, "ksyms_count"))[0]
        # tools/gen-ksyms.py lays the arrays out one after the other.
        bounded("ksyms_count", count, (msym("ksyms_name") - msym("ksyms_addr")) // 8,
                "the entries of ksyms_addr")
        bounded("ksyms_count", count, (msym("ksyms_by_name") - msym("ksyms_name")) // 4,
                "the entries of ksyms_name")
        key = (msym("ksyms_addr"), count)
        if key not in cls._cache:
            cls._cache = {key: cls(count)}
        return cls._cache[key]

    def __init__(self, count):
        self.count = count
        self.addr = list(struct.unpack("<%dQ" % count, read(msym("ksyms_addr"), 8 * count,
                                                            "ksyms_addr")))
        self.name_off = list(struct.unpack("<%dI" % count, read(msym("ksyms_name"), 4 * count,
                                                                "ksyms_name")))
        self.text_end = struct.unpack("<Q", read(msym("ksyms_text_end"), 8, "ksyms_text_end"))[0]
        self.strings_at = msym("ksyms_strings")
        self._names = {}

    def index(self, addr):
        import bisect
        if not self.count or addr < self.addr[0] or addr >= self.text_end:
            return None
        return bisect.bisect_right(self.addr, addr) - 1

    def name(self, i):
        if i not in self._names:
            self._names[i] = read_cstr(self.strings_at + self.name_off[i], 256,
                                       "ksyms_strings + ksyms_name[%d]" % i) or "?"
        return self._names[i]

    def size(self, i):
        j = i + 1
        while j < self.count and self.addr[j] == self.addr[i]:
            j += 1
        return (self.addr[j] if j < self.count else self.text_end) - self.addr[i]

    def lookup(self, addr):
        """(name, offset, size) or None."""
        i = self.index(addr)
        if i is None:
            return None
        return self.name(i), addr - self.addr[i], self.size(i)

    def entry(self, addr):
        """(addr, size, name) for a dump's symbol list, or None."""
        i = self.index(addr)
        if i is None:
            return None
        return self.addr[i], self.size(i), self.name(i)

    def format(self, addr):
        """ksym_format()."""
        s = self.lookup(addr)
        if s is None:
            return "0x%x" % addr
        return "%s+0x%x/0x%x" % s


# ---- the ring buffer --------------------------------------------------------------
def buffer_state():
    """(rb_buffer dict, [memsrc.RingCpu]) of trace_buffer."""
    addr, t = var("trace_buffer")
    bptr = unpack(t, read(addr, t.sizeof, "&trace_buffer"))
    if not bptr:
        raise BtError("trace_buffer is NULL: no trace buffer (trace_init has not run)")
    bt = struct_type("struct rb_buffer")
    b = unpack(bt, read(bptr, bt.sizeof, "trace_buffer"))
    bounded("trace_buffer->ncpus", b["ncpus"], len(b["cpu"]), "the entries of its cpu array")
    ct = struct_type("struct rb_cpu")
    cpus = []
    for i in range(b["ncpus"]):
        cpus.append(ring_cpu(ct, b["cpu"][i], "trace_buffer->cpu[%d]" % i))
    return b, cpus


def ring_cpu(ct, addr, name):
    c = unpack(ct, read(addr, ct.sizeof, name))
    n = bounded(name + "->n", c["n"], RB_MAX_PAGES, "RB_MAX_PAGES (a page index is 16 bits)")
    u64 = ptr_target(ct, "slot")
    slot = read_array(u64, c["slot"], n, name + "->slot")
    slot_c = read_array(ptr_target(ct, "slot_c"), c["slot_c"], n, name + "->slot_c")
    pstart = read_array(ptr_target(ct, "pstart"), c["pstart"], n + 1, name + "->pstart")
    meta = [(m["drops_before"], m["real_end"], m["entries"])
            for m in read_array(ptr_target(ct, "meta"), c["meta"], n + 1, name + "->meta")]
    pages = read_array(ptr_target(ct, "pages"), c["pages"], n + 1, name + "->pages")
    page_size = ptr_target(ct, "pages").strip_typedefs().target().strip_typedefs().sizeof
    # One block of page-aligned pages (trace/ring_buffer/rb_setup.c): a page pointer
    # off that alignment is not one.
    for i, pg in enumerate(pages):
        if pg % page_size:
            raise BtError("%s->pages[%d] = 0x%x: not aligned to a page (%d bytes)"
                          % (name, i, pg, page_size))

    def read_page(pidx):
        if pidx >= len(pages) or not pages[pidx]:
            return None
        return read(pages[pidx], page_size, "%s->pages[%d]" % (name, pidx))

    rd = memsrc.Cursor(**{k: c["rd"][k] for k in memsrc.Cursor.FIELDS})
    # Recording off is counted in the gate's high half, or, where the arch
    # splits the word (RB_PORT_LOCAL_GATE: x86-64), in `off`'s (0 elsewhere).
    gate = c["gate"] | (c["off"] if "off" in c else 0)
    return memsrc.RingCpu(n, c["commit"], gate, c["tail"], slot, slot_c, pstart, meta,
                          rd, read_page, overrun=c["overrun"], dropped=c["dropped"],
                          read=c["read"], lost_reported=c["lost_reported"],
                          unplaced=c["unplaced"], reader=c["reader"])


# ---- what the text needs besides the pages ------------------------------------
def tracer_name():
    addr, t = var("current_tracer", "trace/trace.c")
    p = unpack(t, read(addr, t.sizeof, "&current_tracer"))
    if not p:
        return "nop"                       # tracer_current()'s fallback
    tt = struct_type("struct tracer")
    tr = unpack(tt, read(p, tt.sizeof, "current_tracer"))
    return read_cstr(tr["name"], 256, "current_tracer->name") or "nop"


def signatures(ips):
    """({ip: frames.Signature} for those ips in `cur`'s table, loaded?)."""
    addr, t = var("cur", "trace/btf/fsig.c")
    tab = unpack(t, read(addr, t.sizeof, "&cur (trace/btf/fsig.c)"))
    if not tab:
        return {}, False
    tabt = struct_type("struct fsig_table")
    hdr = unpack(tabt, read(tab, tabt.sizeof, "cur (trace/btf/fsig.c, struct fsig_table *)"))
    sigs_off, _ = field_offset(tabt, "sigs")
    ft = struct_type("struct fsig")
    ip_off, ip_t = field_offset(ft, "ip")
    pt = struct_type("struct fsig_param")
    base = tab + sigs_off
    # The table is one allocation: its sigs[] end in RAM.
    n = bounded("cur->n (struct fsig_table, trace/btf/fsig.c)", hdr["n"],
                (ram()[1] - base) // ft.sizeof, "the signatures RAM after the table holds")
    out = {}
    for ip in sorted(ips):
        lo, hi, found = 0, n, None
        for _ in range(64):                    # fsig_find's binary search
            if lo >= hi:
                break
            mid = (lo + hi) // 2
            v = _int_of(ip_t, read(base + mid * ft.sizeof + ip_off, ip_t.sizeof,
                                   "&cur->sigs[%d].ip" % mid), 0, ip_t.sizeof)
            if v == ip:
                found = mid
                break
            lo, hi = (mid + 1, hi) if v < ip else (lo, mid)
        if found is None:
            continue
        s = unpack(ft, read(base + found * ft.sizeof, ft.sizeof, "&cur->sigs[%d]" % found))
        params = []
        for k, p in enumerate(read_array(pt, s["params"], s["nparams"],
                                         "cur->sigs[%d].params" % found)):
            params.append((read_cstr(p["name"], 64, "cur->sigs[%d].params[%d].name" % (found, k))
                           or "", p["type"]["kind"], p["type"]["size"]))
        out[ip] = frames.Signature(ip, params, (s["ret"]["kind"], s["ret"]["size"]))
    return out, True


def comms(pids):
    """thread_comm() of each pid that has a name (0 and unknown ones are
    left out: the text prints <idle> and <...> as the guest does)."""
    addr, t = var("comm_cache", "boot/sched.c")
    cache = unpack(t, read(addr, t.sizeof, "comm_cache"))
    out = {}
    for pid in pids:
        if pid <= 0:
            continue
        e = cache[pid % len(cache)]
        if e["tid"] == pid:
            raw = bytes(x & 0xff for x in e["name"])
            out[pid] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
    return out


def build_dump():
    """The in-memory dump of the buffer as it is now, and notes."""
    b, cpus = buffer_state()
    pages = [memsrc.cpu_pages(cb) for cb in cpus]
    notes = []
    for i, cb in enumerate(cpus):
        notes += ["CPU %d: %s" % (i, n) for n in cb.notes]
        if cb.inside:
            notes.append("CPU %d: stopped with %d writer(s) inside: their events are not shown"
                         % (i, cb.inside))
    addrs, pids = memsrc.event_addresses(pages)
    ks = Ksyms.get()
    syms = sorted({e for e in (ks.entry(a) for a in addrs) if e})
    sigs, loaded = signatures({a for a, _, _ in syms})
    mult = load("mult", "boot/clock.c")
    d = memsrc.make_dump(len(cpus), mult, load("trace_opts"), tracer_name(), arch_name(), pages,
                         [(cb.overrun, cb.dropped) for cb in cpus], syms, sigs, comms(pids),
                         sigs_loaded=loaded)
    return d, notes, cpus, b


# ---- enabled_functions (trace/core/enabled_functions.c describe()) -----------------------------
def _hash(addr, what):
    if not addr:
        return None
    ht = struct_type("struct ftrace_hash")
    h = unpack(ht, read(addr, ht.sizeof, what))
    if not h["count"]:
        return set()
    # trace/core/hash.c: slots are a power of two, at least 16, and grow to the
    # one at or above 4 * (keys + 1); a key is a site's address, so no hash
    # has more slots than 4 * 2^bits(sites + 1).
    slots = h["mask"] + 1
    bounded(what + "->mask", h["mask"], 4 * 2 ** (nsites() + 1).bit_length() - 1,
            "the slots of a hash of the %d sites" % nsites())
    if slots & (slots - 1) or slots < 16:
        raise BtError("%s->mask = %d (0x%x): slots not a power of two of at least 16"
                      % (what, h["mask"], h["mask"]))
    bounded(what + "->count", h["count"], slots, "its slots")
    off, st = field_offset(ht, "slot")
    return {k for k in read_array(st.target(), addr + off, slots, what + "->slot") if k}


def _enum(name):
    return int(gdb.parse_and_eval(name))


def ops_list():
    """The registered ops (trace/core/ftrace.c ftrace_ops_list), with their applied hashes."""
    addr, t = var("ftrace_ops_list")
    p = unpack(t, read(addr, t.sizeof, "&ftrace_ops_list"))
    ot = struct_type("struct ftrace_ops")
    out, seen = [], set()
    while p:
        # A listing from part of the list would name the wrong ops: fail.
        if p in seen or len(out) >= MAX_OPS:
            raise BtError("ftrace_ops_list %s at ops 0x%x after %d ops" % (
                "loops" if p in seen else "goes on", p, len(out)))
        seen.add(p)
        name = "ftrace_ops_list%s" % ("->next" * len(out))
        if len(out) > 2:
            name = "ftrace_ops_list's ops %d" % len(out)
        o = unpack(ot, read(p, ot.sizeof, name))
        o["addr"] = p
        o["h_filter"] = _hash(o["applied_filter_hash"], "(%s)->applied_filter_hash" % name)
        o["h_notrace"] = _hash(o["applied_notrace_hash"], "(%s)->applied_notrace_hash" % name)
        out.append(o)
        p = o["next"]
    return out


def want_of(ip, ops, fl):
    """want_of(ip, &w, applied=true): count, single ops, regs, direct."""
    w = {"count": 0, "single": None, "regs": False, "direct": 0}
    for op in ops:
        if not op["applied"]:
            continue
        f, n = op["h_filter"], op["h_notrace"]
        if not ((not f or ip in f) and not (n and ip in n)):
            continue
        if op["flags"] & fl["DIRECT"]:
            w["direct"] = op["direct"]
            continue
        w["count"] += 1
        w["single"] = op
        w["regs"] |= bool(op["flags"] & fl["SAVE_REGS"])
    return w


def enabled_lines():
    nrecs = bounded("ftrace_nrecs", load("ftrace_nrecs"), nsites(),
                    "the sites the kernel was built with (__sites_start..__sites_end)")
    raddr, rt = var("ftrace_recs")
    recs_at = unpack(rt, read(raddr, rt.sizeof, "&ftrace_recs"))
    recs = read_array(rt.target(), recs_at, nrecs, "ftrace_recs")
    text_start = msym("_text_start")
    ks = Ksyms.get()
    ops = ops_list()
    fl = {"DIRECT": _enum("FTRACE_OPS_FL_DIRECT"), "SAVE_REGS": _enum("FTRACE_OPS_FL_SAVE_REGS")}
    list_func = msym("ftrace_ops_list_func")
    list_regs_func = msym("ftrace_ops_list_regs_func")
    out = []
    for r in recs:
        f = r["flags"]
        if not f & FREC_ENABLED:
            continue
        ip = text_start + r["off"]
        s = ks.lookup(ip)
        line = "%s (%u)%s  %s%s%s" % (s[0] if s else "?", f & FREC_REF_MASK,
                                      " R" if f & FREC_REGS_EN else "  ",
                                      " D" if f & FREC_DIRECT_EN else "  ",
                                      " O" if f & FREC_CALL_OPS_EN else "  ", "   ")
        w = want_of(ip, ops, fl)
        one = w["single"]
        if f & FREC_TRAMP_EN:
            if one:
                entry = one["regs_call"] if one["flags"] & fl["SAVE_REGS"] else one["call"]
                line += "\ttramp: 0x%x (%s) ->%s" % (one["tramp"], ks.format(one["func"]),
                                                     ks.format(entry))
            else:
                line += "\ttramp: ERROR!"
        elif not f & FREC_DIRECT_EN or w["count"]:   # a direct with callbacks: the regs list caller
            regs = f & (FREC_REGS_EN | FREC_DIRECT_EN)   # the regs list caller (target_of)
            if f & FREC_CALL_OPS_EN and one:
                nxt = one["regs_call"] if regs else one["call"]
            else:
                nxt = list_regs_func if regs else list_func
            line += " ->%s" % ks.format(nxt)
        if f & FREC_CALL_OPS_EN:
            line += ("\tops: %s (%s)" % (ks.format(one["addr"]), ks.format(one["func"]))
                     if one else "\tops: ERROR!")
        if f & FREC_DIRECT_EN:
            line += "\n\tdirect-->%s" % ks.format(w["direct"])
        out.append(line[:ENABLED_LINE_MAX - 1])
    return out


# ---- statistics --------------------------------------------------------------------
def stats_text():
    b, cpus = buffer_state()
    pages = [memsrc.cpu_pages(cb) for cb in cpus]
    rows = []
    for i, cb in enumerate(cpus):
        rows.append((i, "on" if cb.recording else "off", sum(p[1] for p in pages[i]),
                     cb.overrun, cb.dropped, cb.read, memsrc.t_dp(cb.tail), cb.unplaced,
                     cb.n, len(pages[i]), cb.inside, "yes" if cb.reader else "no"))
    s = "# trace buffer: %d CPUs, %s, buffer-wide recording %s (record_off %d)\n" % (
        len(cpus), "overwrite" if b["overwrite"] else "producer/consumer",
        "on" if not b["record_off"] else "off", b["record_off"])
    s += "# cpu  recording  entries  overrun  dropped  read  pending-drops  unplaced" \
         "  pages  pages-used  writers-inside  reader-held\n"
    for r in rows:
        s += "  %3d  %-9s  %7d  %7d  %7d  %4d  %13d  %8d  %5d  %10d  %14d  %s\n" % r
    s += "# total entries %d, lost %d (overrun + dropped)\n" % (
        sum(r[2] for r in rows), sum(r[3] + r[4] for r in rows))
    for i, cb in enumerate(cpus):
        for n in cb.notes:
            s += "# CPU %d: %s\n" % (i, n)
    return s


# ---- commands ------------------------------------------------------------------------
def _say_notes(notes):
    for n in notes:
        gdb.write("bt: %s\n" % n, gdb.STDERR)


class _Cmd(gdb.Command):
    def __init__(self, name):
        super().__init__(name, gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        forget_ram()
        try:
            self.run(gdb.string_to_argv(arg))
        except (BtError, OSError) as e:
            raise gdb.GdbError("%s: %s" % (self._name, e))
        except gdb.GdbError:
            raise
        except Exception as e:                  # noqa: B902 (one message, never a traceback)
            raise gdb.GdbError("%s: guest state this extension did not expect, or a bug in "
                               "it: %s: %s" % (self._name, type(e).__name__, e))


class BtTrace(_Cmd):
    """bt-trace [FILE]: the trace as the guest's `cat trace` prints it."""
    _name = "bt-trace"

    def __init__(self):
        super().__init__(self._name)

    def run(self, argv):
        d, notes, _, _ = build_dump()
        _say_notes(notes)
        s = text.render(d)
        if argv:
            with open(argv[0], "w") as f:
                f.write(s)
            gdb.write("bt-trace: %d lines to %s\n" % (s.count("\n"), argv[0]))
        else:
            gdb.write(s)


class BtSaveDat(_Cmd):
    """bt-save-dat FILE: trace.dat version 6 for trace-cmd report."""
    _name = "bt-save-dat"

    def __init__(self):
        super().__init__(self._name)

    def run(self, argv):
        if len(argv) != 1:
            raise BtError("usage: bt-save-dat FILE")
        d, notes, _, _ = build_dump()
        _say_notes(notes)
        with open(argv[0], "wb") as f:
            _say_notes(tracedat.write(d, f))
        nev = sum(st[2] for st in d.cpu_stats)
        gdb.write("bt-save-dat: %d events, %d pages, %d CPUs to %s\n" % (
            nev, sum(st[3] for st in d.cpu_stats), d.ncpus, argv[0]))


class BtJson(_Cmd):
    """bt-json FILE: Chrome trace-event JSON for Perfetto."""
    _name = "bt-json"

    def __init__(self):
        super().__init__(self._name)

    def run(self, argv):
        if len(argv) != 1:
            raise BtError("usage: bt-json FILE")
        d, notes, _, _ = build_dump()
        _say_notes(notes)
        with open(argv[0], "w") as f:
            chrome.write(d, f)
        gdb.write("bt-json: written to %s\n" % argv[0])


class BtEnabled(_Cmd):
    """bt-enabled: enabled functions with counts and flags (enabled_functions)."""
    _name = "bt-enabled"

    def __init__(self):
        super().__init__(self._name)

    def run(self, argv):
        for line in enabled_lines():
            gdb.write(line + "\n")


class BtStats(_Cmd):
    """bt-stats: per-CPU ring buffer statistics."""
    _name = "bt-stats"

    def __init__(self):
        super().__init__(self._name)

    def run(self, argv):
        gdb.write(stats_text())


for _c in (BtTrace, BtSaveDat, BtJson, BtEnabled, BtStats):
    _c()


# ---- unwinding through function_graph's return hook ------------------------------
# A function whose return function_graph hooked returns into
# arch_fgraph_return_hook, so that is the return address gdb finds in its
# frame; the real one is on the shadow return stack (trace/core/fgraph.c).  This
# unwinder makes the hook's frame go on to the real caller, as the kernel's
# own backtraces do (fgraph_ret_addr): `bt` shows the hook, then the caller.
# Frame layout words (#defines in trace/core/fgraph_frame.h, not in DWARF); the
# size is a frame's last word's low 32 bits (a single-user frame has its
# user's serial above them: FR_TAG), and no frame is shorter than FR_MIN
# words (a header of 5, one user's block of 3, the size):
FR_RET, FR_SP, FR_MIN = 0, 2, 9


def _stack_frames(addr, st_t, what):
    """[(entry sp, ret)] of one shadow stack, innermost first."""
    if not addr:
        return []
    top_off, _ = field_offset(st_t, "top")
    w_off, _ = field_offset(st_t, "w")
    top = struct.unpack("<I", read(addr + top_off, 4, what))[0]
    bounded(what + "->top", top, array_len(st_t, "w"), "the words of its w[]")
    words = struct.unpack("<%dQ" % top, read(addr + w_off, 8 * top, what + "->w")) if top else ()
    out = []
    while top:
        size = words[top - 1] & 0xffffffff
        if size < FR_MIN or size > top:
            break                       # a frame being pushed right now: stop here
        top -= size
        out.append((words[top + FR_SP], words[top + FR_RET]))
    return out


def shadow_frames(cpu):
    """The shadow frames of what CPU `cpu` runs: its interrupt stack's when
    in an interrupt, then its current thread's."""
    cpus_addr, cpus_t = var("cpus")
    bounded("the CPU of gdb's thread", cpu, array_len(cpus_t) - 1, "the last of cpus[]")
    ct = cpus_t.target().strip_typedefs()
    c = unpack(ct, read(cpus_addr + cpu * ct.sizeof, ct.sizeof, "&cpus[%d]" % cpu))
    st_t = struct_type("struct fgraph_stack")
    frames = []
    if c["irq_depth"]:
        irq_addr, irq_t = var("irq_stacks", "trace/core/fgraph.c")
        bounded("the CPU of gdb's thread", cpu, array_len(irq_t) - 1, "the last of irq_stacks[]")
        frames += _stack_frames(read_array(irq_t.target(), irq_addr, cpu + 1,
                                           "irq_stacks")[cpu], st_t, "irq_stacks[%d]" % cpu)
    if c["current"]:
        tt = struct_type("struct thread")
        off, _ = field_offset(tt, "ret_stack")
        rs = struct.unpack("<Q", read(c["current"] + off, 8, "cpus[%d].current" % cpu))[0]
        frames += _stack_frames(rs, st_t, "cpus[%d].current->ret_stack" % cpu)
    return frames


try:
    from gdb.unwinder import Unwinder, register_unwinder

    class _FrameId:
        """What create_unwind_info wants: an object with sp and pc."""
        def __init__(self, sp, pc):
            self.sp, self.pc = sp, pc

    class FgraphUnwinder(Unwinder):
        def __init__(self):
            super().__init__("baretrace-fgraph")
            self.hook = None

        def __call__(self, pending):
            # Anything unexpected (corrupt shadow stacks, cpus[], memory
            # gdb cannot read) declines: gdb's own unwinders go on, and a
            # backtrace never ends in a Python exception.
            try:
                forget_ram()
                if self.hook is None:
                    self.hook = msym("arch_fgraph_return_hook")
                pc_reg, sp_reg, fp_reg = (("pc", "sp", "x29") if arch_name() == "arm64"
                                          else ("rip", "rsp", "rbp"))
                pc_v, sp_v = pending.read_register(pc_reg), pending.read_register(sp_reg)
                if int(pc_v) != self.hook:
                    return None
                sp = int(sp_v)
                # The SP the hooked function was entered with: x86-64's
                # return popped its return slot.
                key = sp if arch_name() == "arm64" else sp - 8
                cpu = gdb.selected_thread().num - 1
                real = next((ret for esp, ret in shadow_frames(cpu)
                             if esp == key and ret != self.hook), None)
                if real is None:
                    return None
                info = pending.create_unwind_info(_FrameId(sp_v, pc_v))
                info.add_saved_register(pc_reg, gdb.Value(real).cast(pc_v.type))
                info.add_saved_register(sp_reg, sp_v)
                info.add_saved_register(fp_reg, pending.read_register(fp_reg))
                return info
            except Exception:               # noqa: B902 (see above)
                return None

    register_unwinder(None, FgraphUnwinder(), replace=True)
except ImportError:                         # a gdb without Python unwinders
    pass
