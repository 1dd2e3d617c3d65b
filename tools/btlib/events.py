"""events.py — ring-buffer pages (Linux's page layout, trace/ring_buffer/ring_buffer.h)
to events, and the three event layouts of trace/trace.h and trace/tracers/function_graph.h
(funcgraph_entry: u16 nargs, u16 strs, then nargs argument words, then strs
bytes of strings captured at the call, trace/btf/fsig.h's records).

Page: u64 time_stamp, u64 commit (data bytes; bit 31 events were lost before
the page, bit 30 their count is stored after the data), then items:
u32 header = type_len (5 bits) | time_delta << 5; type_len 1..28 a data event
of type_len*4 bytes, 0 a data event whose u32 array[0] = bytes + 4,
29 padding, 30 time extend, 31 absolute time stamp.
"""
import struct

TRACE_FN, TRACE_PRINT, TRACE_GRAPH_RET, TRACE_GRAPH_ENT = 1, 5, 10, 11
FLAG_IRQS_OFF, FLAG_NEED_RESCHED, FLAG_HARDIRQ = 0x01, 0x04, 0x08
MISSED_EVENTS, MISSED_STORED = 1 << 31, 1 << 30
COMMIT_MASK = (1 << 27) - 1
TS_BITS = 59
MAX_ARGS = 32                # GRAPH_MAX_ARGS (FSIG_MAX_WORDS)
STR_MAX = 32                 # FSIG_STR_MAX
MAX_STRS = 8 * (2 + STR_MAX)   # FSIG_STRS_SIZE(FSIG_MAX_STRS)


class Event:
    __slots__ = ("cpu", "ts", "lost", "data", "type", "flags", "preempt", "pid",
                 "ip", "parent_ip", "func", "depth", "nargs", "args", "strs",
                 "retval", "overrun", "calltime", "rettime", "page", "offset", "buf")

    def __init__(self, cpu, ts, lost, data, page=None, offset=0):
        self.cpu, self.ts, self.lost, self.data = cpu, ts, lost, data
        self.page, self.offset = page, offset      # where its payload is in the page
        self.type = self.flags = self.preempt = self.pid = None
        self.ip = self.parent_ip = self.func = None
        self.depth = self.nargs = self.overrun = self.calltime = self.rettime = None
        self.retval = self.buf = None
        self.args = []
        self.strs = b""
        if len(data) >= 8:
            self.type, self.flags, self.preempt, self.pid = struct.unpack_from("<HBBi", data)
        if self.type == TRACE_FN and len(data) >= 24:
            self.ip, self.parent_ip = struct.unpack_from("<QQ", data, 8)
        elif self.type == TRACE_GRAPH_ENT and len(data) >= 24:
            # As function_graph_output.c's load_entry bounds them.
            self.func, self.depth, nargs, nstrs = struct.unpack_from("<QIHH", data, 8)
            room = len(data) - 24
            if nargs > room // 8 or nargs > MAX_ARGS:
                nargs, nstrs = min(room // 8, MAX_ARGS), 0
            self.nargs = nargs
            self.args = list(struct.unpack_from("<%dQ" % self.nargs, data, 24))
            at = 24 + 8 * nargs
            self.strs = bytes(data[at:at + min(nstrs, room - 8 * nargs, MAX_STRS)])
        elif self.type == TRACE_PRINT and len(data) > 16:     # trace_marker text
            self.ip = struct.unpack_from("<Q", data, 8)[0]
            raw = bytes(data[16:])
            self.buf = raw[:raw.index(b"\0")] if b"\0" in raw else raw
        elif self.type == TRACE_GRAPH_RET and len(data) >= 48:
            (self.func, self.retval, self.depth, self.overrun, self.calltime,
             self.rettime) = struct.unpack_from("<QQIIQQ", data, 8)

    @property
    def is_entry(self):
        return self.type == TRACE_GRAPH_ENT and self.func is not None

    @property
    def is_exit(self):
        return self.type == TRACE_GRAPH_RET and self.func is not None

    @property
    def is_print(self):
        return self.type == TRACE_PRINT and self.buf is not None

    @property
    def is_function(self):
        return self.type == TRACE_FN and self.ip is not None


def page_events(cpu, raw, lost=0, page=None, report=None):
    """Events of one page in trace.dat form; the first carries `lost` if the
    page says events were lost before it (the exact count from the frame,
    else the stored one, else 0 when unknown).  Items are checked as
    rb_decode() checks them (trace/ring_buffer/rb_event.c): the first that does not
    decode ends the page, an event the guest cannot have written
    (impossible()) is left out; report(offset, why), if given, hears of
    both.  Sets page.valid to the data bytes that decode when it stops
    early, page.skipped to the events left out."""
    ts, commit = struct.unpack_from("<QQ", raw, 0)
    n = commit & COMMIT_MASK
    room = (page.nbytes if page is not None else len(raw)) - 16
    if commit & MISSED_EVENTS:
        if not lost and commit & MISSED_STORED and 16 + n + 8 <= len(raw):
            lost = struct.unpack_from("<Q", raw, 16 + n)[0]
    else:
        lost = 0
    clipped = n > room
    if clipped:
        if report:
            report(8, "page header: commit of %d bytes, the record holds %d: "
                   "the data decoded up to its end" % (n, room))
        n = max(room, 0)
    out = []
    off = 16
    end = 16 + n
    top = ~((1 << TS_BITS) - 1) & (2 ** 64 - 1)
    why = None
    skipped = 0
    while off < end:
        avail = end - off
        if avail < 4:
            why = "%d bytes left, less than an item header" % avail
            break
        h = struct.unpack_from("<I", raw, off)[0]
        tl, delta = h & 31, h >> 5
        if tl == 29 and delta == 0:               # the rest of the page is padding
            break
        if avail < 8 and (tl == 0 or tl >= 29):
            why = "type %d item cut at %d bytes" % (tl, avail)
            break
        if tl == 29:                              # padding
            size = struct.unpack_from("<I", raw, off + 4)[0] + 4
            if size < 8 or size > avail or size & 3:
                why = "padding of %d bytes (%d left)" % (size, avail)
                break
            ts += delta
            off += size
            continue
        if tl in (30, 31):
            val = struct.unpack_from("<I", raw, off + 4)[0] << 27 | delta
            ts = ts + val if tl == 30 else (ts & top) | val
            off += 8
            continue
        if tl == 0:
            length = struct.unpack_from("<I", raw, off + 4)[0]
            if length < 4 or length & 3:
                why = "event length word %d (a multiple of 4, 4 at least)" % length
                break
            length -= 4
            data_off = off + 8
        else:
            length = tl * 4
            data_off = off + 4
        if data_off + length > end:
            why = "event of %d bytes, %d left in the page" % (length, end - data_off)
            break
        ts += delta
        ev = Event(cpu, ts, lost, raw[data_off:data_off + length], page, data_off)
        off = data_off + length
        bad = impossible(ev, length)
        if bad:
            skipped += 1
            if report:
                report(data_off - (8 if tl == 0 else 4), bad + ": skipped")
            continue
        out.append(ev)
        lost = 0
    if page is not None:
        page.valid = off - 16 if why or clipped else None
        page.skipped = skipped
        page.nevents = len(out)
    if why and report:
        report(off, "%s: the page's last %d bytes skipped" % (why, end - off))
    return out


SIZES = {TRACE_FN: 24, TRACE_GRAPH_ENT: 24, TRACE_GRAPH_RET: 48, TRACE_PRINT: 17}
# No call nests this deep: fgraph's return stack holds FGRAPH_STACK_WORDS
# (2048) words per context (trace/core/fgraph.h), a frame at least one.
DEPTH_MAX = 65536


def impossible(ev, length):
    """Why the guest cannot have written this event, or None."""
    if length < 8:
        return "event of %d bytes, shorter than an event header" % length
    if ev.type in SIZES and length < SIZES[ev.type]:
        return "event of type %d and %d bytes, too short for it" % (ev.type, length)
    if ev.type in (TRACE_GRAPH_ENT, TRACE_GRAPH_RET) and ev.depth >= DEPTH_MAX:
        return "call depth %d, deeper than any call stack" % ev.depth
    if ev.type == TRACE_GRAPH_ENT:
        nargs, nstrs = struct.unpack_from("<HH", ev.data, 20)
        if nargs > MAX_ARGS or 24 + 8 * nargs > length:
            return "%d argument words (%d at most) in an event of %d bytes" % (
                nargs, MAX_ARGS, length)
        if nstrs > MAX_STRS or 24 + 8 * nargs + nstrs > length:
            return "%d bytes of strings (%d at most) after %d argument words in an " \
                "event of %d bytes" % (nstrs, MAX_STRS, nargs, length)
    return None


def cpu_events(dump, cpu):
    """The CPU's events, page after page, decoded as they are taken."""
    for pg in dump.pages.get(cpu, []):
        for ev in page_events(cpu, pg.raw, pg.lost, pg):
            yield ev


def dump_events(dump):
    """{cpu: [Event]} of a frames.Dump, pages in order."""
    return {cpu: list(cpu_events(dump, cpu)) for cpu in range(dump.ncpus)}


def count_events(dump):
    """Events in the dump's pages (each page decoded once at most)."""
    return sum(pg.nevents if pg.nevents is not None else
               len(page_events(pg.cpu, pg.raw, pg.lost, pg))
               for cpu in range(dump.ncpus) for pg in dump.pages.get(cpu, []))


def check_pages(dump):
    """Every page decoded once; what does not decode is a problem of the
    dump, named by the frame that carried it."""
    for cpu in range(dump.ncpus):
        for pg in dump.pages.get(cpu, []):
            def report(offset, why, pg=pg):
                dump.problems.add(pg.frame_at(offset), "CPU %d page %d byte %d: %s"
                                  % (pg.cpu, pg.index, offset, why))
            page_events(cpu, pg.raw, pg.lost, pg, report)


class Merged:
    """The guest's merged iterator: the earliest next event over the CPUs
    (ties: the lowest CPU), with look-ahead on one CPU (trace_iter_peek).
    per_cpu: {cpu: iterable of Event}, taken lazily."""

    def __init__(self, per_cpu):
        self.src = {c: iter(evs) for c, evs in per_cpu.items()}
        self.cpus = sorted(self.src)
        self.head = {c: next(self.src[c], None) for c in self.cpus}

    def __iter__(self):
        return self

    def __next__(self):
        best = None
        for c in self.cpus:
            e = self.head[c]
            if e is not None and (best is None or e.ts < self.head[best].ts):
                best = c
        if best is None:
            raise StopIteration
        ev = self.head[best]
        self.skip(best)
        return ev

    def peek(self, cpu):
        return self.head.get(cpu)

    def skip(self, cpu):
        self.head[cpu] = next(self.src[cpu], None)


def merged(dump):
    return Merged({cpu: cpu_events(dump, cpu) for cpu in range(dump.ncpus)})
