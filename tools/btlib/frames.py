"""frames.py — find baretrace's framed binary dump in a console log and
rebuild what it carries (trace/dump.c has the guest's side and the layouts).

A frame is one line, anywhere in it (other output may precede it):
    @BT1 <id> <seq> <kind> <base64 payload> <crc32>
The CRC-32 (zlib's) covers "<id> <seq> <kind> <payload>".  Frames of one
dump share <id>; <seq> runs from 0 (kind B, begin) to nframes-1 (kind E,
end).  A dump is named by its <id>; when a second dump with another begin
frame reuses an id (the id is the low bits of the guest's counter), it is
named <id>.2, and so on.  read_log() returns the newest dump (or the one
asked for), every dump found, and notes; per dump, a Problems list names
each missing, corrupted, truncated or inconsistent frame by its number.

Nothing in a log can make this module raise, loop or allocate more than a
small multiple of the log's size (issue 21):
  frame-shaped text that does not parse, whose CRC or base64 is wrong, that
      is longer than any frame or whose sequence number is out of range or
      past the dump's frame count: a problem of its dump, by frame number
      (or by line when it has no number), and it is skipped;
  frame-shaped text of an id that has no valid frame at all (a stray line,
      e.g. trace_marker text printed by `cat trace`): no dump; reported by
      line in Dump.strays of the dump returned;
  a valid frame whose payload is inconsistent (a begin frame's CPU count,
      a page piece's CPU, number or sizes, a record running past the
      payload): a problem of that frame; it (or the rest of it) is skipped;
  a page whose events do not decode (events.check_pages): a problem naming
      the page's frame and the byte; the rest of that page is skipped.
Runs of missing frames and pages are reported as ranges, never one by one.
"""
import base64
import binascii
import re
import struct
import zlib

from . import events

MAGIC = b"@BT1 "
VERSION = 1
FRAME_DATA = 600          # payload bytes a frame holds at most (DUMP_FRAME_DATA)
PIECE = FRAME_DATA - 24   # page bytes per P frame (DUMP_PIECE)
PAGE_SIZE = 4096
PAGE_HDR = 16
SEQ_MAX = 2 ** 32 - 1     # the guest prints <seq> with %u
BEGIN_SIZE, CPU_STAT_SIZE = 72, 24
# The longest frame trace/dump.c prints (DUMP_LINE_MAX), without its newline.
FRAME_CHARS = len("@BT1 01234567 4294967295 B  01234567") + (FRAME_DATA + 2) // 3 * 4
F_SIGS, F_PANIC = 1, 2

FRAME_RE = re.compile(rb"@BT1 ([0-9a-f]{8}) (\d{1,10}) ([A-Z]) ([A-Za-z0-9+/=]*) ([0-9a-f]{8})\Z")
PARTIAL_RE = re.compile(rb"@BT1 ([0-9a-f]{8})(?: (\d+))?")
NON_SPACE = re.compile(rb"\S")


class Problems:
    """What went wrong, in order: (frame number, (first, last) frame
    numbers of a run, or None; message)."""

    def __init__(self):
        self.items = []
        self.more = 0             # past MAX_KEPT, counted only

    def add(self, seq, msg):
        if len(self.items) < MAX_KEPT:
            self.items.append((seq, msg))
        else:
            self.more += 1

    def __bool__(self):
        return bool(self.items)

    def __len__(self):
        return len(self.items) + self.more

    def lines(self):
        out = []
        for s, m in self.items:
            if isinstance(s, tuple):
                out.append("frames %d-%d: %s" % (s[0], s[1], m) if s[0] != s[1]
                           else "frame %d: %s" % (s[0], m))
            else:
                out.append("frame %s: %s" % (s, m) if s is not None else m)
        return out + (["... and %d more problems" % self.more] if self.more else [])


class Page:
    def __init__(self, cpu, index, raw, lost, seqs=None):
        self.cpu, self.index, self.lost = cpu, index, lost
        self.nbytes = len(raw)                               # of the record
        self.seqs = seqs or []                               # frame of each piece
        self.raw = raw + b"\0" * (PAGE_SIZE - len(raw))      # the trace.dat page
        self.valid = None       # data bytes that decode (events.page_events), None: all
        self.skipped = 0        # events left out as impossible (events.page_events)
        self.nevents = None     # events that decode, once page_events has run

    def frame_at(self, offset):
        """The frame that carried byte `offset` of the record, or None."""
        i = offset // PIECE
        return self.seqs[i] if 0 <= i < len(self.seqs) else None


class Signature:
    def __init__(self, ip, params, ret):
        self.ip = ip
        self.params = params        # [(name, kind, size)]
        self.ret = ret              # (kind, size)


class Dump:
    """One dump: the metadata of its begin frame, pages, names."""

    def __init__(self, dump_id, fid=None):
        self.id = dump_id           # its name: <id>, or <id>.N for the Nth with that id
        self.fid = fid or dump_id   # the <id> of its frames
        self.frames = {}            # seq -> (kind, payload bytes)
        self.bad = []               # (seq or None, why, line) of frames refused
        self.problems = Problems()
        self.bad_more = 0           # refused frames past MAX_KEPT, counted only
        self.strays = []            # lines refused that belong to no dump (read_log)
        self.have_begin = self.have_end = False
        self.version = None
        self.nframes = None
        self.ncpus = 0
        self.flags = 0
        self.hz = 0
        self.mult = 0               # ns per cycle, 32.32 fixed point
        self.opts = 0
        self.tracer = "nop"
        self.arch = "?"
        self.cpu_stats = []         # [(overrun, dropped, events, pages)]
        self.pages = {}             # cpu -> [Page] in order
        self.lost_pages = 0         # pages known but lost
        self.syms = []              # [(addr, size, name)] sorted
        self.sigs = {}              # ip -> Signature
        self.comms = {}             # pid -> comm
        self.end = None             # (nframes, pages, events)

    # ---- helpers for the writers
    def cycles_to_ns(self, cycles):
        return (cycles * self.mult) >> 32

    @property
    def complete(self):
        return not self.problems

    def sym_lookup(self, addr):
        """(name, start, size) of the symbol holding addr, as ksym_lookup."""
        import bisect
        i = bisect.bisect_right(self._sym_starts(), addr) - 1
        if i < 0:
            return None
        a, size, name = self.syms[i]
        return (name, a, size) if a <= addr < a + size else None

    def _sym_starts(self):
        if getattr(self, "_starts", None) is None or len(self._starts) != len(self.syms):
            self._starts = [s[0] for s in self.syms]
        return self._starts

    def sym_name(self, addr):
        s = self.sym_lookup(addr)
        return s[0] if s else None




def _short(b, n=24):
    t = b[:n].decode("ascii", "replace")
    return t + "..." if len(b) > n else t


def _segments(line):
    """The pieces of a line that start with MAGIC, each up to the next one
    without its trailing white space; of a longer piece than any frame,
    only its first FRAME_CHARS + 1 bytes (no copy of a huge line)."""
    pos = line.find(MAGIC)
    while pos >= 0:
        nxt = line.find(MAGIC, pos + 1)
        end = nxt if nxt >= 0 else len(line)
        cut = pos + FRAME_CHARS + 1
        if end > cut and NON_SPACE.search(line, cut, end):
            yield line[pos:cut]
        else:
            yield line[pos:min(end, cut)].rstrip()
        pos = nxt


def _decode(seg):
    """(id, seq, kind, payload) of a valid frame in seg; or ("bad", id,
    seq-or-None, why); or None when seg holds no frame id."""
    p = PARTIAL_RE.match(seg)
    if not p:
        return None
    fid = p.group(1).decode()
    seq = None
    if p.group(2) is not None:
        digits = p.group(2)
        if len(digits) > 10 or int(digits) > SEQ_MAX:
            return ("bad", fid, None, "sequence number %s out of range" % _short(digits))
        seq = int(digits)
    if len(seg) > FRAME_CHARS:
        return ("bad", fid, seq, "longer than any frame (%d characters)" % FRAME_CHARS)
    m = FRAME_RE.match(seg)
    if not m:
        return ("bad", fid, seq, "truncated or malformed")
    b64, crc = m.group(4), m.group(5)
    if zlib.crc32(seg[len(MAGIC):m.start(5) - 1]) != int(crc, 16):
        return ("bad", fid, seq, "CRC mismatch")
    try:
        payload = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        return ("bad", fid, seq, "bad base64")
    if len(payload) > FRAME_DATA:
        return ("bad", fid, seq, "payload of %d bytes, more than a frame holds (%d)"
                % (len(payload), FRAME_DATA))
    return (fid, seq, m.group(3).decode(), payload)


MAX_DUMPS = 1000          # dumps kept from one log: the newest
MAX_KEPT = 10000          # refused frames (and problems) kept by name; the rest counted
NOTES_MAX = 200           # stray lines named in read_log's notes


class Strays:
    """Frame-shaped text of ids with no valid frame (yet): (line, id, seq,
    why), MAX_KEPT of them kept, the rest counted."""

    def __init__(self):
        self.by_id = {}
        self.kept = self.more = 0

    def add(self, fid, entry):
        if self.kept >= MAX_KEPT:
            self.more += 1
            return
        self.by_id.setdefault(fid, []).append(entry)
        self.kept += 1

    def take(self, fid):
        got = self.by_id.pop(fid, [])
        self.kept -= len(got)
        return got

    def lines(self):
        out = sorted((line, "line %d: frame-shaped text of id %s%s: %s; no valid frame has this "
                      "id: ignored" % (line, fid, "" if seq is None else " frame %d" % seq, why))
                     for fid, es in self.by_id.items() for seq, why, line in es)
        out = [t for _, t in out]
        if self.more:
            out.append("... and %d more lines of frame-shaped text ignored" % self.more)
        return out


def scan(lines):
    """(every dump of the log in order of first appearance, each assembled;
    Strays; how many older dumps were dropped past MAX_DUMPS).
    lines: an iterable of str or bytes lines."""
    latest, order, count, strays, dropped = {}, [], {}, Strays(), 0
    for lineno, line in enumerate(lines, 1):
        if isinstance(line, str):
            line = line.encode("utf-8", "replace")
        if MAGIC not in line:
            continue
        for seg in _segments(line):
            r = _decode(seg)
            if r is None:
                continue
            fid = r[1] if r[0] == "bad" else r[0]
            d = latest.get(fid)
            if r[0] == "bad":
                if d is None:
                    strays.add(fid, (r[2], r[3], lineno))
                elif len(d.bad) < MAX_KEPT:
                    d.bad.append((r[2], r[3], lineno))
                else:
                    d.bad_more += 1
                continue
            if d is not None and r[1] == 0 and r[2] == "B" and 0 in d.frames \
                    and d.frames[0] != ("B", r[3]):
                d = None                          # another dump with the same id
            if d is None:
                count[fid] = count.get(fid, 0) + 1
                d = Dump(fid if count[fid] == 1 else "%s.%d" % (fid, count[fid]), fid)
                d.bad = strays.take(fid)
                latest[fid] = d
                order.append(d)
                if len(order) > MAX_DUMPS:
                    old = order.pop(0)
                    if latest.get(old.fid) is old:
                        del latest[old.fid]
                    dropped += 1
            if r[1] not in d.frames:
                d.frames[r[1]] = (r[2], r[3])
    for d in order:
        _assemble(d)
    return order, strays, dropped


def _cstr(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


class _Short(Exception):
    """A record runs past its frame's payload."""


def _take(p, o, fmt):
    n = struct.calcsize(fmt)
    if o + n > len(p):
        raise _Short(o)
    return struct.unpack_from(fmt, p, o)


def _name(p, o, n):
    if o + n > len(p):
        raise _Short(o)
    return p[o:o + n].decode("utf-8", "replace")


def _begin(d, seq, p):
    if len(p) < BEGIN_SIZE:
        d.problems.add(seq, "begin frame of %d bytes, %d at least: no metadata" % (len(p), BEGIN_SIZE))
        return
    version, nframes, ncpus, flags, hz, mult, opts = struct.unpack_from("<IIIIQQQ", p, 0)
    if ncpus == 0 or BEGIN_SIZE + CPU_STAT_SIZE * ncpus > len(p):
        d.problems.add(seq, "begin frame: %d CPUs, its %d bytes hold counters for %d: no metadata"
                       % (ncpus, len(p), (len(p) - BEGIN_SIZE) // CPU_STAT_SIZE))
        return
    if nframes < 2:
        d.problems.add(seq, "begin frame: %d frames, a dump has 2 at least: no metadata" % nframes)
        return
    d.version, d.nframes, d.ncpus, d.flags = version, nframes, ncpus, flags
    d.hz, d.mult, d.opts = hz, mult, opts
    d.tracer, d.arch = _cstr(p[40:56]), _cstr(p[56:72])
    d.cpu_stats = [struct.unpack_from("<QQII", p, BEGIN_SIZE + CPU_STAT_SIZE * c)
                   for c in range(ncpus)]
    d.have_begin = True
    if version != VERSION:
        d.problems.add(seq, "dump version %s, this tool reads %d" % (version, VERSION))


def _records(d, seq, p, one, what):
    """Records of an S, F or C frame; a record past the payload's end ends it."""
    off = 0
    try:
        while off < len(p):
            off = one(p, off)
    except _Short:
        d.problems.add(seq, "%s record at byte %d runs past the payload's %d bytes: "
                       "the frame's rest is skipped" % (what, off, len(p)))


def _syms(d, seq, p):
    def one(p, o):
        addr, size, n = _take(p, o, "<QIH")
        d.syms.append((addr, size, _name(p, o + 14, n)))
        return o + 14 + n
    _records(d, seq, p, one, "symbol")


def _sigs(d, seq, p):
    def one(p, o):
        ip, nparams, rkind, rsize, _ = _take(p, o, "<QBBBB")
        q = o + 12
        params = []
        for _ in range(nparams):
            kind, size, n = _take(p, q, "<BBB")
            params.append((_name(p, q + 3, n), kind, size))
            q += 3 + n
        d.sigs[ip] = Signature(ip, params, (rkind, rsize))
        return q
    _records(d, seq, p, one, "signature")


def _comms(d, seq, p):
    def one(p, o):
        pid, n = _take(p, o, "<iB")
        d.comms[pid] = _name(p, o + 5, n)
        return o + 5 + n
    _records(d, seq, p, one, "comm")


def _piece(d, seq, p, pieces, shape):
    """A P frame into pieces / shape, or a problem saying why not."""
    if len(p) < 24:
        d.problems.add(seq, "page piece of %d bytes, 24 at least: skipped" % len(p))
        return
    cpu, piece, npieces, _, page, nbytes, lost = struct.unpack_from("<HHHHIIQ", p, 0)
    data = p[24:]
    why = None
    if cpu >= d.ncpus:
        why = "CPU %d, the dump has %d" % (cpu, d.ncpus)
    elif page >= d.cpu_stats[cpu][3]:
        why = "page %d, the begin frame counts %d on CPU %d" % (page, d.cpu_stats[cpu][3], cpu)
    elif not PAGE_HDR <= nbytes <= PAGE_SIZE:
        why = "a page record of %d bytes (%d to %d)" % (nbytes, PAGE_HDR, PAGE_SIZE)
    elif npieces != (nbytes + PIECE - 1) // PIECE or piece >= npieces:
        why = "piece %d of %d for a record of %d bytes" % (piece, npieces, nbytes)
    elif len(data) != min(PIECE, nbytes - piece * PIECE):
        why = "piece %d holds %d bytes, %d expected" % (piece, len(data),
                                                        min(PIECE, nbytes - piece * PIECE))
    key = (cpu, page)
    if why is None and key in shape and shape[key][:3] != (npieces, nbytes, lost):
        why = "CPU %d page %d's size or lost count differs from frame %d's" % (
            cpu, page, min(shape[key][3]))
    if why is None and piece in pieces.get(key, {}):
        why = "CPU %d page %d piece %d again (frame %d had it)" % (
            cpu, page, piece, pieces[key][piece][0])
    if why:
        d.problems.add(seq, "page piece: %s: skipped" % why)
        return
    pieces.setdefault(key, {})[piece] = (seq, data)
    shape.setdefault(key, (npieces, nbytes, lost, []))[3].append(seq)


def _ranges(have, n):
    """Runs (first, last) of 0..n-1 not in the sorted list have."""
    out, nxt = [], 0
    for h in have:
        if h >= n:
            break
        if h > nxt:
            out.append((nxt, h - 1))
        nxt = max(nxt, h + 1)
    if nxt < n:
        out.append((nxt, n - 1))
    return out


def _frame_count(d):
    """The dump's frame count (None if unknown); ignores and reports the
    frames past it."""
    if 0 in d.frames:
        kind, p = d.frames[0]
        if kind == "B":
            _begin(d, 0, p)
        else:
            d.problems.add(0, "kind %s, not the begin frame: skipped" % kind)
    ends = [s for s, (k, _) in d.frames.items() if k == "E"]
    n = d.nframes if d.have_begin else None
    for s in sorted(ends):
        p = d.frames[s][1]
        if len(p) < 16:
            d.problems.add(s, "end frame of %d bytes, 16 expected: skipped" % len(p))
        elif n is not None and s != n - 1:
            d.problems.add(s, "an end frame, the dump's last is frame %d: skipped" % (n - 1))
        else:
            d.end = struct.unpack_from("<IIQ", p, 0)
            d.have_end = True
            if n is None:
                n = s + 1
            if d.end[0] != n:
                d.problems.add(s, "end frame counts %d frames, the dump has %d" % (d.end[0], n))
            break
    return n


def _assemble(d):
    """Frames -> metadata, pages, names; every gap reported by number."""
    n = _frame_count(d)
    bad = {}
    for seq, why, line in d.bad:
        if seq is None:
            d.problems.add(None, "line %d: a frame of this dump: %s: skipped" % (line, why))
        elif seq in d.frames or seq in bad:
            continue                              # a good (or earlier) copy was seen
        elif n is not None and seq >= n:
            d.problems.add(seq, "%s; past the dump's %d frames: skipped" % (why, n))
        else:
            bad[seq] = why
    for seq in sorted(bad):
        d.problems.add(seq, bad[seq])
    if d.bad_more:
        d.problems.add(None, "%d more frames refused (not parsed, bad CRC...), not listed"
                       % d.bad_more)
    pieces, shape = {}, {}              # (cpu, page) -> {piece: (seq, bytes)}; its shape
    for seq in sorted(d.frames):
        kind, p = d.frames[seq]
        if seq == 0 or kind == "E" and d.have_end and seq == n - 1:
            continue
        if n is not None and seq >= n:
            d.problems.add(seq, "kind %s, past the dump's %d frames: skipped" % (kind, n))
            continue
        if kind == "B":
            d.problems.add(seq, "a begin frame out of place: skipped")
        elif kind == "E":
            continue                              # reported by _frame_count
        elif not d.have_begin:
            continue                              # nothing to fit it in
        elif kind == "P":
            _piece(d, seq, p, pieces, shape)
        elif kind == "S":
            _syms(d, seq, p)
        elif kind == "F":
            _sigs(d, seq, p)
        elif kind == "C":
            _comms(d, seq, p)
        else:
            d.problems.add(seq, "unknown kind %r: skipped" % kind)
    seen = sorted(set(d.frames) | set(bad))
    if not d.have_begin:
        if n is None:
            n = seen[-1] + 1 if seen else 0
        if 0 not in d.frames:
            d.problems.add(0, "begin frame missing: no metadata, nothing usable")
    for run in _ranges(seen, n):
        d.problems.add(run, "missing")
    if not d.have_end and n and (n - 1) in d.frames:
        d.problems.add(n - 1, "end frame missing")
    elif not d.have_end and n and (n - 1) not in bad:
        d.problems.add(None, "end frame missing: the dump may be truncated")
    _pages(d, pieces, shape)
    d.syms.sort()
    events.check_pages(d)


def _pages(d, pieces, shape):
    """Whole pages only: a piece lost loses its page (and says which)."""
    for key in sorted(shape):
        npieces, nbytes, lost, seqs = shape[key]
        got = pieces[key]
        cpu, page = key
        if len(got) != npieces:
            d.lost_pages += 1
            d.problems.add(None, "CPU %d page %d incomplete (%d of %d pieces: frames %s): "
                           "its events are lost" % (cpu, page, len(got), npieces,
                                                    ",".join(map(str, sorted(seqs)))))
            continue
        raw = b"".join(got[i][1] for i in range(npieces))
        d.pages.setdefault(cpu, []).append(Page(cpu, page, raw, lost,
                                                [got[i][0] for i in range(npieces)]))
    for cpu in d.pages:
        d.pages[cpu].sort(key=lambda pg: pg.index)
    # Pages whose every piece was lost: known from the begin frame's counts.
    for cpu, st in enumerate(d.cpu_stats):
        have = sorted({pg for c, pg in shape if c == cpu})
        for a, b in _ranges(have, st[3]):
            d.lost_pages += b - a + 1
            d.problems.add(None, "CPU %d page%s: every frame lost: %s events are lost" % (
                cpu, " %d" % a if a == b else "s %d-%d" % (a, b), "its" if a == b else "their"))


def describe(d):
    """One line on a dump, for the list of dumps in a log."""
    if not d.have_begin:
        return "%s: no begin frame (%d frames, %d problems)" % (d.id, len(d.frames), len(d.problems))
    return "%s: %s, %s tracer, %d CPUs, %d frames: %s" % (
        d.id, d.arch, d.tracer, d.ncpus, d.nframes,
        "complete" if d.complete else "damaged (%d problems)" % len(d.problems))


def read_log(lines, want_id=None):
    """(chosen Dump or None, the dumps in order, notes) from console lines.
    Without want_id the newest dump (the last to begin in the log) is
    taken, damaged or not: an older one only when asked for by its name."""
    order, found_strays, dropped = scan(lines)
    strays = found_strays.lines()
    notes = strays[:NOTES_MAX] + (["... and %d more such lines" % (len(strays) - NOTES_MAX)]
                                  if len(strays) > NOTES_MAX else [])
    if dropped:
        notes.append("the log holds %d more dumps before these: not kept" % dropped)
    if not order:
        return None, [], notes + ["no baretrace dump (@BT1 frames) in the log"]
    if want_id:
        match = [d for d in order if d.id == want_id]
        if not match:
            return None, order, notes + ["no dump named %s; the log holds:" % want_id] + \
                ["  " + describe(x) for x in order]
        d = match[0]
    else:
        d = order[-1]
    d.strays = strays
    if len(order) > 1:
        notes.append("the log holds %d dumps:" % len(order))
        notes += ["  " + describe(x) for x in order]
        notes.append("using %s (%s)" % (d.id, "asked for" if want_id else
                                        "the newest; --dump NAME takes another"))
        older = [x for x in order if x.complete and x is not d]
        if not want_id and not d.complete and older:
            notes.append("it is damaged; %s is complete: --dump %s exports it"
                         % (older[-1].id, older[-1].id))
    return d, order, notes
