"""frames.py — find baretrace's framed binary dump in a console log and
rebuild what it carries (trace/dump.c has the guest's side and the layouts).

A frame is one line, anywhere in it (other output may precede it):
    @BT1 <id> <seq> <kind> <base64 payload> <crc32>
The CRC-32 (zlib's) covers "<id> <seq> <kind> <payload>".  Frames of one
dump share <id>; <seq> runs from 0 (kind B, begin) to nframes-1 (kind E,
end).  read_log() returns every dump found and, per dump, a Problems list
naming each missing, corrupted or truncated frame by its number.
"""
import base64
import binascii
import re
import struct
import zlib

MAGIC = "@BT1"
VERSION = 1
PIECE = 600 - 24          # page bytes per P frame (DUMP_PIECE)
PAGE_SIZE = 4096
F_SIGS, F_PANIC = 1, 2

FRAME_RE = re.compile(r"@BT1 ([0-9a-f]{8}) (\d+) ([A-Z]) ([A-Za-z0-9+/=]*) ([0-9a-f]{8})\s*$")
PARTIAL_RE = re.compile(r"@BT1 ([0-9a-f]{8})(?: (\d+))?")


class Problems:
    """What went wrong, in order: (frame number or None, message)."""

    def __init__(self):
        self.items = []

    def add(self, seq, msg):
        self.items.append((seq, msg))

    def __bool__(self):
        return bool(self.items)

    def lines(self):
        return ["frame %s: %s" % (s, m) if s is not None else m for s, m in self.items]


class Page:
    def __init__(self, cpu, index, raw, lost):
        self.cpu, self.index, self.lost = cpu, index, lost
        self.raw = raw + b"\0" * (PAGE_SIZE - len(raw))      # the trace.dat page


class Signature:
    def __init__(self, ip, params, ret):
        self.ip = ip
        self.params = params        # [(name, kind, size)]
        self.ret = ret              # (kind, size)


class Dump:
    """One dump: the metadata of its begin frame, pages, names."""

    def __init__(self, dump_id):
        self.id = dump_id
        self.frames = {}            # seq -> (kind, payload bytes)
        self.bad = set()            # seqs seen only corrupted or truncated
        self.problems = Problems()
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
        self.lost_pages = []        # (cpu, page index)
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


def _decode_line(line):
    """(id, seq, kind, payload) of a valid frame in line; or ("bad", id,
    seq-or-None, why); or None when the line holds no frame."""
    pos = line.find(MAGIC + " ")
    if pos < 0:
        return None
    text = line[pos:].rstrip("\r\n")
    m = FRAME_RE.match(text)
    if not m:
        p = PARTIAL_RE.match(text)
        if not p:
            return None
        seq = int(p.group(2)) if p.group(2) else None
        return ("bad", p.group(1), seq, "truncated or malformed")
    fid, seq, kind, b64, crc = m.groups()
    body = text[len(MAGIC) + 1:m.start(5) - 1]
    if zlib.crc32(body.encode("ascii")) != int(crc, 16):
        return ("bad", fid, int(seq), "CRC mismatch")
    try:
        payload = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        return ("bad", fid, int(seq), "bad base64")
    return (fid, int(seq), kind, payload)


def scan(lines):
    """Dumps in order of first appearance: {id: Dump}."""
    dumps = {}
    for line in lines:
        r = _decode_line(line)
        if r is None:
            continue
        if r[0] == "bad":
            _, fid, seq, why = r
            d = dumps.setdefault(fid, Dump(fid))
            if seq is not None and seq in d.frames:
                continue                      # a good copy was seen already
            d.problems.add(seq, why)
            if seq is not None:
                d.bad.add(seq)
            continue
        fid, seq, kind, payload = r
        d = dumps.setdefault(fid, Dump(fid))
        if seq not in d.frames:
            d.frames[seq] = (kind, payload)
            d.bad.discard(seq)
    for d in dumps.values():
        _assemble(d)
    return dumps


def _cstr(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


def _begin(d, p):
    version, nframes, ncpus, flags, hz, mult, opts = struct.unpack_from("<IIIIQQQ", p, 0)
    d.version, d.nframes, d.ncpus, d.flags = version, nframes, ncpus, flags
    d.hz, d.mult, d.opts = hz, mult, opts
    d.tracer, d.arch = _cstr(p[40:56]), _cstr(p[56:72])
    d.cpu_stats = [struct.unpack_from("<QQII", p, 72 + 24 * c) for c in range(ncpus)]
    d.have_begin = True


def _records(p, parse):
    off = 0
    while off < len(p):
        off = parse(p, off)


def _syms(d, p):
    def one(p, o):
        addr, size, n = struct.unpack_from("<QIH", p, o)
        d.syms.append((addr, size, p[o + 14:o + 14 + n].decode("utf-8", "replace")))
        return o + 14 + n
    _records(p, one)


def _sigs(d, p):
    def one(p, o):
        ip, nparams, rkind, rsize, _ = struct.unpack_from("<QBBBB", p, o)
        o += 12
        params = []
        for _ in range(nparams):
            kind, size, n = p[o], p[o + 1], p[o + 2]
            params.append((p[o + 3:o + 3 + n].decode("utf-8", "replace"), kind, size))
            o += 3 + n
        d.sigs[ip] = Signature(ip, params, (rkind, rsize))
        return o
    _records(p, one)


def _comms(d, p):
    def one(p, o):
        pid, n = struct.unpack_from("<iB", p, o)
        d.comms[pid] = p[o + 5:o + 5 + n].decode("utf-8", "replace")
        return o + 5 + n
    _records(p, one)


def _assemble(d):
    """Frames -> metadata, pages, names; every gap reported by number."""
    pieces = {}                 # (cpu, page) -> {piece: bytes}, plus shape
    shape = {}                  # (cpu, page) -> (pieces, bytes, lost, [seqs])
    for seq in sorted(d.frames):
        kind, p = d.frames[seq]
        try:
            if kind == "B":
                _begin(d, p)
            elif kind == "E":
                d.end = struct.unpack_from("<IIQ", p, 0)
                d.have_end = True
            elif kind == "P":
                cpu, piece, npieces, _, page, nbytes, lost = struct.unpack_from("<HHHHIIQ", p, 0)
                key = (cpu, page)
                pieces.setdefault(key, {})[piece] = p[24:]
                shape.setdefault(key, (npieces, nbytes, lost, []))[3].append(seq)
            elif kind == "S":
                _syms(d, p)
            elif kind == "F":
                _sigs(d, p)
            elif kind == "C":
                _comms(d, p)
            else:
                d.problems.add(seq, "unknown kind %r, ignored" % kind)
        except (struct.error, IndexError):
            d.problems.add(seq, "payload too short for kind %s" % kind)
    # How many frames there should be.
    n = d.nframes if d.have_begin else (d.end[0] if d.have_end else None)
    seen = set(d.frames) | d.bad
    if n is None:
        n = max(seen) + 1 if seen else 0
        d.problems.add(0, "begin frame missing: no metadata, nothing usable")
    elif d.have_begin and d.version != VERSION:
        d.problems.add(0, "dump version %s, this tool reads %d" % (d.version, VERSION))
    for seq in range(n):
        if seq not in seen:
            d.problems.add(seq, "missing")
    if not d.have_begin and 0 in d.bad:
        pass                                      # already said
    if not d.have_end and n and (n - 1) not in d.bad and (n - 1) in seen:
        d.problems.add(n - 1, "end frame missing")
    elif not d.have_end and n and (n - 1) not in seen:
        d.problems.add(None, "end frame missing: the dump may be truncated")
    # Pages: whole ones only.  A piece lost loses its page (and says which).
    for key in sorted(shape):
        npieces, nbytes, lost, seqs = shape[key]
        got = pieces[key]
        cpu, page = key
        if len(got) != npieces or any(i not in got for i in range(npieces)):
            d.lost_pages.append(key)
            d.problems.add(None, "CPU %d page %d incomplete (%d of %d pieces: frames %s): "
                           "its events are lost" % (cpu, page, len(got), npieces,
                                                    ",".join(map(str, sorted(seqs)))))
            continue
        raw = b"".join(got[i] for i in range(npieces))[:nbytes]
        d.pages.setdefault(cpu, []).append(Page(cpu, page, raw, lost))
    for cpu in d.pages:
        d.pages[cpu].sort(key=lambda pg: pg.index)
    # Pages whose every piece was lost: known from the begin frame's counts.
    for cpu, st in enumerate(d.cpu_stats):
        have = {pg.index for pg in d.pages.get(cpu, [])} | \
               {pg for c, pg in d.lost_pages if c == cpu}
        for i in range(st[3]):
            if i not in have:
                d.lost_pages.append((cpu, i))
                d.problems.add(None, "CPU %d page %d: every frame lost: its events are lost"
                               % (cpu, i))
    d.syms.sort()


def read_log(lines, want_id=None):
    """(chosen Dump or None, all dumps in order, notes) from console lines.
    Without want_id the last complete dump is taken, else the last one."""
    dumps = scan(lines)
    notes = []
    if not dumps:
        return None, [], ["no baretrace dump (@BT1 frames) in the log"]
    order = list(dumps.values())
    if want_id:
        d = dumps.get(want_id)
        if not d:
            return None, order, ["no dump with id %s (ids: %s)" % (want_id, " ".join(dumps))]
    else:
        complete = [d for d in order if d.complete]
        d = complete[-1] if complete else order[-1]
    if len(order) > 1:
        notes.append("the log holds %d dumps (ids %s): using %s (%s)" % (
            len(order), " ".join(x.id for x in order), d.id,
            "asked for" if want_id else
            "the last complete one" if d.complete else "the last one; none is complete"))
    return d, order, notes
