"""memsrc.py — a dump (frames.Dump) built from the guest's memory instead of
from serial frames: the gdb extension (tools/gdb/baretrace.py) reads the
ring buffer's state and hands it here; the text, trace.dat and Chrome
writers then run on it unchanged.

Two parts, neither of which knows about gdb:

  RingCpu / cpu_pages   one CPU buffer's state as plain numbers (the fields
                        of struct rb_cpu, its slot/slot_c/pstart/meta arrays,
                        a function reading a page) and the walk over it that
                        rb_iter_read_page() does (trace/ring_buffer/rb_read.c: the
                        cursor starts where the consuming reader is, pages
                        in count order, overwritten pages skipped with the
                        events lost counted, never consuming).  The result
                        is rb_cursor_page()'s pages in trace.dat form, the
                        same records trace/dump.c puts in its P frames.
  make_dump             the metadata of a B frame, those pages, and the
                        symbols / signatures / comms -> a frames.Dump.

A guest stopped anywhere may have a writer stopped between reserve and
commit on some CPU.  As rb_iter_start_force() does: a CPU with no writer
inside is read up to its tail (what a quiescer would publish), one with a
writer inside only up to its commit word, so an uncommitted page tail is
skipped.  Every loop is bounded by the ring's size: a state that makes no
sense stops the walk of that CPU (and says so) instead of looping.
"""
import struct

from . import frames

PAGE_SIZE = 4096
HDR = 16
DATA_SIZE = PAGE_SIZE - HDR
MISSED_EVENTS, MISSED_STORED = 1 << 31, 1 << 30
TS_TOP = ~((1 << 59) - 1) & (2 ** 64 - 1)
M64 = 2 ** 64 - 1


# ---- the words of trace/ring_buffer/rb_internal.h ----------------------------------------
def t_off(t):
    return t & 0xfff


def t_pidx(t):
    return (t >> 25) & 0xffff


def t_dp(t):
    return (t >> 41) & ((1 << 22) - 1)


def g_inside(g):
    return g & 0xffffffff


def g_off(g):
    return g >> 32


def s_pidx(s):
    return s & 0xffff


def s_seq(s):
    return s >> 17


def c_off(c):
    return c & 0xfff


def c_cnt(c):
    return c >> 12


class Cursor:
    """struct rb_cursor, as a copy the walk may move."""

    FIELDS = ("cnt", "head", "ts", "cbase", "pending", "pidx", "off", "valid", "started")

    def __init__(self, **kw):
        for f in self.FIELDS:
            setattr(self, f, kw.get(f, 0))
        self.valid, self.started = bool(self.valid), bool(self.started)


class RingCpu:
    """One CPU buffer as read from the guest.

    n          ring slots (rb_cpu.n)
    commit, gate, tail, overrun, dropped, read, lost_reported, unplaced
               the words of struct rb_cpu
    slot, slot_c        [n] u64
    pstart              [n + 1] u64
    meta                [n + 1] (drops_before, real_end, entries)
    rd                  Cursor: the consuming reader's cursor
    read_page(pidx)     the 4096 bytes of physical page pidx
    """

    def __init__(self, n, commit, gate, tail, slot, slot_c, pstart, meta, rd, read_page,
                 overrun=0, dropped=0, read=0, lost_reported=0, unplaced=0, reader=0):
        self.n, self.commit_word, self.gate, self.tail = n, commit, gate, tail
        self.slot, self.slot_c, self.pstart, self.meta = slot, slot_c, pstart, meta
        self.rd, self._read_page = rd, read_page
        self.overrun, self.dropped, self.read = overrun, dropped, read
        self.lost_reported, self.unplaced, self.reader = lost_reported, unplaced, reader
        self._pages = {}
        self.notes = []

    @property
    def inside(self):
        return g_inside(self.gate)

    @property
    def recording(self):
        return g_off(self.gate) == 0

    def commit(self):
        """The commit word a reader starting now would see: the tail when
        nobody is inside (rb_publish of the tail, as a quiescer does),
        else the commit word (events of a stopped writer are not seen)."""
        if self.inside == 0 and 0 <= t_pidx(self.tail) < len(self.pstart):
            return self.pstart[t_pidx(self.tail)] | t_off(self.tail)
        return self.commit_word

    def page(self, pidx):
        if pidx not in self._pages:
            raw = self._read_page(pidx)
            self._pages[pidx] = bytes(raw) if raw is not None else None
        return self._pages[pidx]


def _readable(cb, c, cm):
    """rb_readable(): committed data bytes of c's page."""
    if c_cnt(cm) == c.cnt:
        return c_off(cm)
    if c_cnt(cm) < c.cnt:
        return 0
    return cb.meta[c.pidx][1] if c.pidx < len(cb.meta) else 0


def _c_before(cb, h):
    """rb_c_before(): C(h-1) left by the writer that overwrote page h-1."""
    s = (h - 1) % cb.n
    want = ((h - 1 + cb.n) << 17) >> 16         # seq, R = 0
    if cb.slot[s] >> 16 != want:
        return None
    return cb.slot_c[s]


def _next_page(cb, c, cm):
    """rb_next_page() without the swap: move c to the oldest surviving page
    at or after c.head.  False when there is none (or the state makes no
    sense: noted)."""
    h, cbase, skipped = c.head, c.cbase, False
    for _ in range(cb.n + 2):
        if c_cnt(cm) < h:
            return False
        s = cb.slot[h % cb.n]
        if s_seq(s) == h:
            if skipped:
                cb_ = _c_before(cb, h)
                if cb_ is None:
                    cb.notes.append("page %d: lapped by the writer while stopped; "
                                    "the walk ends there" % h)
                    return False
                cbase = cb_
            pidx = s_pidx(s)
            if pidx >= len(cb.meta):
                cb.notes.append("page %d: slot names page index %d of %d" % (h, pidx, len(cb.meta)))
                return False
            # u64 arithmetic, as rb_read.c's (a corrupt count wraps, never
            # goes negative or past 64 bits).
            c.pending = (c.pending + cbase - c.cbase + cb.meta[pidx][0]) & M64
            c.cbase, c.pidx, c.cnt, c.head = cbase, pidx, h, h + 1
            c.off, c.valid, c.started = 0, True, False
            return True
        if s_seq(s) < h:
            cb.notes.append("slot %d holds page %d, older than %d: corrupt" % (h % cb.n, s_seq(s), h))
            return False
        nh = s_seq(s) - cb.n + 1
        h = nh if nh > h else h + 1
        skipped = True
    return False


def _items(data, off, end):
    """(type_len, delta, value, size, is_data) of each item in data[off:end]
    (rb_decode()); stops at a malformed one or the rest-of-page padding."""
    while off + 4 <= end:
        h = struct.unpack_from("<I", data, off)[0]
        tl, delta = h & 31, h >> 5
        avail = end - off
        if tl == 29:
            if delta == 0 or avail < 8:
                return
            size = struct.unpack_from("<I", data, off + 4)[0] + 4
            if size < 8 or size > avail or size & 3:
                return
            yield tl, delta, 0, size, False
        elif tl in (30, 31):
            if avail < 8:
                return
            yield tl, delta, struct.unpack_from("<I", data, off + 4)[0] << 27 | delta, 8, False
            size = 8
        elif tl == 0:
            if avail < 8:
                return
            ln = struct.unpack_from("<I", data, off + 4)[0]
            if ln < 4 or ln & 3 or 4 + ln > avail:
                return
            size = 4 + ln
            yield tl, delta, 0, size, True
        else:
            size = 4 + tl * 4
            if size > avail:
                return
            yield tl, delta, 0, size, True
        off += size


def _ts_apply(ts, tl, delta, value):
    if tl == 30:
        return (ts + value) & M64
    if tl == 31:
        return (ts & TS_TOP) | value
    return (ts + delta) & M64


def _cursor_page(cb, c, cm):
    """rb_cursor_page() without the swap: (record bytes, events, lost) of the
    next unread committed data of c, or None when there is none."""
    end = 0
    for _ in range(cb.n + 2):
        if c.valid:
            end = _readable(cb, c, cm)
            if c.off < end or c_cnt(cm) <= c.cnt:
                break
        if not _next_page(cb, c, cm):
            break
    if not c.valid or c.off >= end:
        return None
    if end > DATA_SIZE:
        cb.notes.append("page %d: %d committed bytes, more than a page holds (%d); the walk "
                        "ends there" % (c.cnt, end, DATA_SIZE))
        return None
    pg = cb.page(c.pidx)
    if pg is None:
        cb.notes.append("page index %d unreadable" % c.pidx)
        return None
    if not c.started:
        c.ts = struct.unpack_from("<Q", pg, 0)[0]
        c.started = True
    first_ts = c.ts
    data = pg[HDR + c.off:HDR + end]
    nev = 0
    for tl, delta, value, _size, is_data in _items(pg, HDR + c.off, HDR + end):
        c.ts = _ts_apply(c.ts, tl, delta, value)
        nev += is_data
    n = end - c.off
    commit = n
    tail = b""
    if c.pending:
        commit |= MISSED_EVENTS
        if n + 8 <= DATA_SIZE:
            tail = struct.pack("<Q", c.pending)
            commit |= MISSED_STORED
    lost = c.pending
    c.off = end
    c.pending = 0
    return struct.pack("<QQ", first_ts, commit) + data + tail, nev, lost


def cpu_pages(cb):
    """Every page rb_iter_read_page() would give for this CPU, from the
    consuming reader's position: [(record bytes, events, lost)]."""
    c = Cursor(**{f: getattr(cb.rd, f) for f in Cursor.FIELDS})
    cm = cb.commit()
    out = []
    if cb.n == 0 or len(cb.slot) < cb.n or len(cb.meta) <= cb.n:
        if cb.n:
            cb.notes.append("%d ring slots but %d slot words and %d page records: not read"
                            % (cb.n, len(cb.slot), len(cb.meta)))
        return out
    for _ in range(cb.n + 2):
        r = _cursor_page(cb, c, cm)
        if r is None:
            break
        out.append(r)
    return out


# ---- the dump ------------------------------------------------------------------
def make_dump(ncpus, mult, opts, tracer, arch, cpu_pages_list, cpu_counters, syms,
              sigs=None, comms=None, sigs_loaded=False, panic=False, hz=None, dump_id="memory"):
    """A frames.Dump as if read from a complete binary dump.

    cpu_pages_list  [[(record bytes, events, lost)] per CPU] (cpu_pages())
    cpu_counters    [(overrun, dropped)] per CPU (rb_stats)
    syms            [(addr, size, name)]: at least those the events name
    sigs            {ip: frames.Signature}
    comms           {pid: comm} of known pids (not 0)
    """
    d = frames.Dump(dump_id)
    d.version = frames.VERSION
    d.ncpus, d.mult, d.opts = ncpus, mult, opts
    d.hz = hz if hz is not None else ((10 ** 9 << 32) // mult if mult else 0)
    d.flags = (frames.F_SIGS if sigs_loaded else 0) | (frames.F_PANIC if panic else 0)
    d.tracer, d.arch = tracer, arch
    d.have_begin = d.have_end = True
    total_pages = total_events = 0
    for cpu in range(ncpus):
        pages = cpu_pages_list[cpu] if cpu < len(cpu_pages_list) else []
        nev = sum(p[1] for p in pages)
        over, drop = cpu_counters[cpu] if cpu < len(cpu_counters) else (0, 0)
        d.cpu_stats.append((over, drop, nev, len(pages)))
        d.pages[cpu] = [frames.Page(cpu, i, raw, lost) for i, (raw, _, lost) in enumerate(pages)]
        total_pages += len(pages)
        total_events += nev
    d.end = (0, total_pages, total_events)
    d.syms = sorted(syms)
    d.sigs = dict(sigs or {})
    d.comms = dict(comms or {})
    return d


def event_addresses(pages):
    """Addresses and pids the events of these records name, as trace/dump.c
    notes them (note_event): the word after the header (ip or func) and,
    for function events, the parent."""
    from . import events as E
    addrs, pids = set(), set()
    for cpu, recs in enumerate(pages):
        for raw, _, lost in recs:
            for ev in E.page_events(cpu, raw + b"\0" * (PAGE_SIZE - len(raw)), lost):
                if len(ev.data) < 16:
                    continue
                pids.add(ev.pid)
                addrs.add(struct.unpack_from("<Q", ev.data, 8)[0])
                if ev.type == E.TRACE_FN and len(ev.data) >= 24:
                    addrs.add(ev.parent_ip)
    return addrs, pids
