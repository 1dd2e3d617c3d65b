"""tracedat.py — trace.dat version 6 from a dump, the subset trace-cmd
report 3.1.6 reads (docs/TOOLCHAIN-NOTES.md, "Formats and harnesses"):

  magic, "6", endianness, long size, page size
  header_page, header_event       Linux's texts for the page and event header
  ftrace event formats            function, print, funcgraph_entry, funcgraph_exit
                                  describing OUR layouts (trace/trace.h,
                                  trace/tracers/function_graph.h; funcgraph_entry's argument
                                  words and strings as one trailing array,
                                  `unsigned long args[]`, of nargs * 8 +
                                  strs bytes); trace-cmd
                                  finds the fields by
                                  name (ip, parent_ip, func, depth, calltime,
                                  rettime, common_pid)
  event systems                   none
  kallsyms                        the dump's symbols
  printk formats                  none
  cmdlines                        the dump's comms
  CPU count, options              TSC2NSEC: the page time stamps stay counter
                                  cycles, trace-cmd converts them
  flyrecord                       (offset, size) per CPU, then the pages,
                                  page-aligned, verbatim but for one thing:
                                  funcgraph_exit's calltime and rettime are
                                  rewritten from cycles to ns (trace-cmd takes
                                  rettime - calltime as ns; rettime is calltime
                                  + the guest's converted duration), same size.
Lost-events marks stay as the guest wrote them (bit 31 of a page's commit,
the count after the data when it fitted).
"""
import struct

from . import events as E

PAGE = 4096
M64 = 2 ** 64 - 1
OPTION_DONE, OPTION_TSC2NSEC = 0, 14

HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")

HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n"
    "\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n")

COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")


def _fmt(name, eid, fields, pfmt):
    s = "name: %s\nID: %d\nformat:\n" % (name, eid) + COMMON
    for decl, off, size, signed in fields:
        s += "\tfield:%s;\toffset:%d;\tsize:%d;\tsigned:%d;\n" % (decl, off, size, signed)
    return s + "\nprint fmt: " + pfmt + "\n"


FORMATS = [
    _fmt("function", E.TRACE_FN,
         [("unsigned long ip", 8, 8, 0), ("unsigned long parent_ip", 16, 8, 0)],
         '" %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip'),
    _fmt("print", E.TRACE_PRINT,
         [("unsigned long ip", 8, 8, 0), ("char buf[]", 16, 0, 1)],
         '"%ps: %s", (void *)REC->ip, REC->buf'),
    # Variable length: nargs argument words, then strs bytes of strings
    # captured at the call (trace/btf/fsig.h's records), in one trailing field
    # declared as Linux declares its funcgraph_entry's args (a dynamic
    # array of size 0: trace-cmd -R prints it "ARRAY[]"); a char array
    # would be printed as text, and the words are not.
    _fmt("funcgraph_entry", E.TRACE_GRAPH_ENT,
         [("unsigned long func", 8, 8, 0), ("int depth", 16, 4, 1),
          ("unsigned short nargs", 20, 2, 0), ("unsigned short strs", 22, 2, 0),
          ("unsigned long args[]", 24, 0, 0)],
         '"--> %ps (%d)", (void *)REC->func, REC->depth'),
    _fmt("funcgraph_exit", E.TRACE_GRAPH_RET,
         [("unsigned long func", 8, 8, 0), ("unsigned long retval", 16, 8, 0),
          ("int depth", 24, 4, 1), ("unsigned int overrun", 28, 4, 0),
          ("unsigned long long calltime", 32, 8, 0), ("unsigned long long rettime", 40, 8, 0)],
         '"<-- %ps (%d) (start: %llx  end: %llx) over: %d", (void *)REC->func, REC->depth, '
         'REC->calltime, REC->rettime, REC->depth'),
]


def tsc2nsec(mult64):
    """(mult, shift) with (c * mult) >> shift == (c * mult64) >> 32 for all c
    if one exists (mult below 2^31: trace-cmd keeps it in an int), and
    whether it is exact."""
    if mult64:
        k = min((mult64 & -mult64).bit_length() - 1, 32)    # trailing zero bits
        if (mult64 >> k) < 2 ** 31:
            return mult64 >> k, 32 - k, True
    for shift in range(32, -1, -1):             # closest: drop low bits
        if (mult64 >> (32 - shift)) < 2 ** 31:
            return mult64 >> (32 - shift), shift, False
    return 1, 0, False


def _pages_ns(dump, cpu):
    """The CPU's pages with funcgraph_exit times in ns; a page with items
    that did not decode or events left out (events.page_events) is written
    again from the events that remain."""
    out = []
    for pg in dump.pages.get(cpu, []):
        evs = E.page_events(cpu, pg.raw, pg.lost, pg)
        if pg.valid is None and not pg.skipped:
            raw = bytearray(pg.raw)
        else:
            raw = _rebuild(pg.raw, evs)
            evs = E.page_events(cpu, bytes(raw), pg.lost)
        for ev in evs:
            if ev.is_exit:
                # The guest converts the difference (not each end): so do we,
                # so that trace-cmd's durations are the guest's to the ns.
                call = dump.cycles_to_ns(ev.calltime) & M64
                dur = dump.cycles_to_ns((ev.rettime - ev.calltime) & M64)
                struct.pack_into("<QQ", raw, ev.offset + 32, call, (call + dur) & M64)
        out.append(bytes(raw))
    return out


def _rebuild(raw, evs):
    """A page holding only evs, encoded as the guest's ring buffer encodes
    them (trace/ring_buffer/ring_buffer.h), its lost-events marks kept; events whose
    time cannot follow the one before (it went back) are left out."""
    ts0, commit = struct.unpack_from("<QQ", raw, 0)
    n = commit & E.COMMIT_MASK
    stored = raw[16 + n:16 + n + 8] if commit & E.MISSED_STORED and 16 + n + 8 <= PAGE else b""
    data, prev = bytearray(), ts0
    for ev in evs:
        delta = ev.ts - prev
        if not 0 <= delta < 2 ** E.TS_BITS:
            continue
        item = b""
        if delta >> 27:
            item = struct.pack("<II", 30 | (delta & (2 ** 27 - 1)) << 5, delta >> 27)
            delta = 0
        size = len(ev.data)
        if 0 < size <= 28 * 4:
            item += struct.pack("<I", size // 4 | delta << 5)
        else:
            item += struct.pack("<II", delta << 5, size + 4)
        if 16 + len(data) + len(item) + size + len(stored) > PAGE:
            break
        data += item + ev.data
        prev = ev.ts
    commit = commit & (E.MISSED_EVENTS | (E.MISSED_STORED if stored else 0)) | len(data)
    page = struct.pack("<QQ", ts0, commit) + bytes(data) + stored
    return bytearray(page + b"\0" * (PAGE - len(page)))


def write(dump, f):
    """Write the dump as trace.dat to binary file f; returns notes (e.g. an
    inexact clock conversion)."""
    notes = []
    w = f.write
    w(b"\x17\x08\x44tracing6\0")
    w(struct.pack("<BBI", 0, 8, PAGE))
    hp, he = HEADER_PAGE.encode(), HEADER_EVENT.encode()
    w(b"header_page\0" + struct.pack("<Q", len(hp)) + hp)
    w(b"header_event\0" + struct.pack("<Q", len(he)) + he)
    w(struct.pack("<I", len(FORMATS)))
    for fm in FORMATS:
        b = fm.encode()
        w(struct.pack("<Q", len(b)) + b)
    w(struct.pack("<I", 0))                                  # event systems
    # libtraceevent ends a symbol at the next one: mark the last one's end.
    ks = "".join("%016x T %s\n" % (a, n) for a, _, n in dump.syms)
    if dump.syms:
        ks += "%016x t __bt_end\n" % (dump.syms[-1][0] + dump.syms[-1][1])
    ks = ks.encode()
    w(struct.pack("<I", len(ks)) + ks)
    w(struct.pack("<I", 0))                                  # printk formats
    cl = "".join("%d %s\n" % (p, c) for p, c in sorted(dump.comms.items())).encode()
    w(struct.pack("<Q", len(cl)) + cl)
    w(struct.pack("<I", dump.ncpus))
    mult, shift, exact = tsc2nsec(dump.mult)
    if not exact:
        notes.append("trace.dat: the counter's ns factor has no exact 32-bit form; "
                     "times may differ from the guest's by rounding")
    w(b"options  \0")
    w(struct.pack("<HIIIQ", OPTION_TSC2NSEC, 16, mult, shift, 0))
    w(struct.pack("<H", OPTION_DONE))
    w(b"flyrecord\0")
    pages = [_pages_ns(dump, c) for c in range(dump.ncpus)]
    pos = f.tell() + 16 * dump.ncpus
    pos = (pos + PAGE - 1) // PAGE * PAGE
    for c in range(dump.ncpus):
        size = len(pages[c]) * PAGE
        w(struct.pack("<QQ", pos if size else 0, size))
        pos += size
    here = f.tell()
    w(b"\0" * ((here + PAGE - 1) // PAGE * PAGE - here))
    for c in range(dump.ncpus):
        for pg in pages[c]:
            w(pg)
    return notes
