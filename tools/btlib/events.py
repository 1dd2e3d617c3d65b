"""events.py — ring-buffer pages (Linux's page layout, trace/ring_buffer.h)
to events, and the three event layouts of trace/trace.h and trace/graph.h
(funcgraph_entry: u16 nargs, u16 strs, then nargs argument words, then strs
bytes of strings captured at the call, trace/fsig.h's records).

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
            # As graph_output.c's load_entry bounds them.
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


def page_events(cpu, raw, lost=0, page=None):
    """Events of one page in trace.dat form; the first carries `lost` if the
    page says events were lost before it (the exact count from the frame,
    else the stored one, else 0 when unknown)."""
    ts, commit = struct.unpack_from("<QQ", raw, 0)
    n = commit & COMMIT_MASK
    if commit & MISSED_EVENTS:
        if not lost and commit & MISSED_STORED and 16 + n + 8 <= len(raw):
            lost = struct.unpack_from("<Q", raw, 16 + n)[0]
    else:
        lost = 0
    out = []
    off = 16
    end = 16 + min(n, len(raw) - 16)
    top = ~((1 << TS_BITS) - 1) & (2 ** 64 - 1)
    while off + 4 <= end:
        h = struct.unpack_from("<I", raw, off)[0]
        tl, delta = h & 31, h >> 5
        if tl == 29:                              # padding
            if delta == 0:
                break
            size = struct.unpack_from("<I", raw, off + 4)[0] + 4
            ts += delta
            off += size
            continue
        if tl in (30, 31):
            val = struct.unpack_from("<I", raw, off + 4)[0] << 27 | delta
            ts = ts + val if tl == 30 else (ts & top) | val
            off += 8
            continue
        if tl == 0:
            length = struct.unpack_from("<I", raw, off + 4)[0] - 4
            data_off = off + 8
        else:
            length = tl * 4
            data_off = off + 4
        if data_off + length > end:
            break
        ts += delta
        out.append(Event(cpu, ts, lost, raw[data_off:data_off + length], page, data_off))
        lost = 0
        off = data_off + length
    return out


def dump_events(dump):
    """{cpu: [Event]} of a frames.Dump, pages in order."""
    per = {}
    for cpu in range(dump.ncpus):
        evs = []
        for pg in dump.pages.get(cpu, []):
            evs.extend(page_events(cpu, pg.raw, pg.lost, pg))
        per[cpu] = evs
    return per


class Merged:
    """The guest's merged iterator: the earliest next event over the CPUs
    (ties: the lowest CPU), with look-ahead on one CPU (trace_iter_peek)."""

    def __init__(self, per_cpu):
        self.q = {c: list(evs) for c, evs in per_cpu.items()}
        self.pos = {c: 0 for c in per_cpu}

    def __iter__(self):
        return self

    def __next__(self):
        best = None
        for c in sorted(self.q):
            i = self.pos[c]
            if i < len(self.q[c]) and (best is None or self.q[c][i].ts < self.q[best][self.pos[best]].ts):
                best = c
        if best is None:
            raise StopIteration
        self.pos[best] += 1
        return self.q[best][self.pos[best] - 1]

    def peek(self, cpu):
        i = self.pos.get(cpu, 0)
        return self.q[cpu][i] if cpu in self.q and i < len(self.q[cpu]) else None

    def skip(self, cpu):
        self.pos[cpu] += 1


def merged(dump):
    return Merged(dump_events(dump))
