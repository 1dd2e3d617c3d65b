"""chrome.py — Chrome trace-event JSON for Perfetto ({"traceEvents": [...]}).

  pid  the CPU a call began on ("CPU n"), tid  the task (pid 0, the idle
  threads, is kept apart per CPU as tid -1 - cpu)
  funcgraph entry/exit   "B" / "E" pairs, nested per task; arguments as
                         args (text as in the trace), the return value as
                         args.retval on the "E"; the "E" goes to the pid of
                         its "B" even if the task migrated meanwhile
  an exit the trace stack marked (trace/core/tstack.h)
                         args {"late": true} or {"gone": true} on its "E",
                         no retval
  an exit whose entry is not in the dump (lost, or tracing began mid-call)
                         "X" (complete) from calltime to rettime
  entries still open at the end   closed at the last time stamp, args
                         {"unfinished": true}
  function events        instant events ("i", scope thread), parent as args
  lost events            instant events, scope process, "lost N events"
ts and dur are in microseconds.
"""
import json

from . import events as E
from . import fsig as F
from .text import RET_LATE, RET_MARKS


def _arg_pairs(sig, words, strs=b"", abi=F.AAPCS64):
    """[(name, text)] as funcgraph-args prints them (argN without a name),
    captured strings included, up to the first parameter not recorded."""
    if sig is None:
        return [("arg%d" % i, "0x%x" % w) for i, w in enumerate(words)]
    return [(name or "arg%d" % i, text)
            for i, (name, text) in enumerate(F.arg_pairs(sig, words, strs, abi)) if name is not None]


def _events(dump, tids):
    """The trace events in order, one at a time (the writer need not hold
    them all); tids gets the (cpu, tid, pid) of every task seen."""
    d = dump
    us = lambda cycles: d.cycles_to_ns(cycles) / 1000.0     # noqa: E731
    name = lambda a: d.sym_name(a) or "0x%x" % a           # noqa: E731
    out = []
    stacks = {}              # task key -> [(func, pid)]
    open_funcs = {}          # task key -> {func: times in its stack}
    last_ts = 0

    def tid_of(ev):
        return ev.pid if ev.pid else -1 - ev.cpu

    for ev in E.merged(d):
        yield from out
        out.clear()
        last_ts = max(last_ts, ev.ts)
        if ev.lost:
            out.append({"name": "lost %d events" % ev.lost, "ph": "i", "s": "p",
                        "ts": us(ev.ts), "pid": ev.cpu, "tid": tid_of(ev)})
        if ev.pid is None:
            continue                      # shorter than an event header
        tid = tid_of(ev)
        if ev.pid is None:
            continue                # too short for the common header: nothing to show
        tids.add((ev.cpu, tid, ev.pid))
        if ev.is_entry:
            args = dict(_arg_pairs(d.sigs.get(ev.func), ev.args, ev.strs,
                                      F.ABI.get(d.arch, F.AAPCS64))) if ev.nargs else {}
            out.append({"name": name(ev.func), "ph": "B", "ts": us(ev.ts), "pid": ev.cpu,
                        "tid": tid, "args": args})
            stacks.setdefault(tid, []).append((ev.func, ev.cpu))
            inside = open_funcs.setdefault(tid, {})
            inside[ev.func] = inside.get(ev.func, 0) + 1
        elif ev.is_exit:
            st = stacks.get(tid, [])
            inside = open_funcs.get(tid, {})
            if ev.overrun & RET_MARKS:     # the trace stack's: no return value
                args = {"late" if ev.overrun & RET_LATE else "gone": True}
            else:
                ret = F.format_ret(d.sigs.get(ev.func), ev.retval, False)
                args = {"retval": ret[4:]} if ret else {}
            if inside.get(ev.func):
                # Close what the lost exits left open above it first.
                while st:
                    f, pid = st.pop()
                    inside[f] -= 1
                    out.append({"name": name(f), "ph": "E", "ts": us(ev.ts), "pid": pid,
                                "tid": tid, "args": args if f == ev.func else {"unfinished": True}})
                    if f == ev.func:
                        break
            else:
                out.append({"name": name(ev.func), "ph": "X", "ts": us(ev.calltime),
                            "dur": us(ev.rettime) - us(ev.calltime), "pid": ev.cpu,
                            "tid": tid, "args": dict(args, entry_lost=True)})
        elif ev.is_function:
            out.append({"name": name(ev.ip), "ph": "i", "s": "t", "ts": us(ev.ts),
                        "pid": ev.cpu, "tid": tid, "args": {"parent": name(ev.parent_ip)}})
    for tid, st in stacks.items():
        while st:
            f, pid = st.pop()
            out.append({"name": name(f), "ph": "E", "ts": us(last_ts), "pid": pid, "tid": tid,
                        "args": {"unfinished": True}})
    yield from out


def _meta(d, tids):
    meta = [{"name": "process_name", "ph": "M", "pid": c, "args": {"name": "CPU %d" % c}}
            for c in range(d.ncpus)]
    for cpu, tid, pid in sorted(tids):
        comm = "<idle>" if pid == 0 else d.comms.get(pid, "<...>")
        meta.append({"name": "thread_name", "ph": "M", "pid": cpu, "tid": tid,
                     "args": {"name": "%s-%d" % (comm, pid)}})
    return meta


def _other(d):
    return {"tracer": d.tracer, "arch": d.arch, "cpus": d.ncpus, "counter_hz": d.hz}


def build(dump):
    """The whole JSON object: metadata events first, then the trace's."""
    tids = set()
    evs = list(_events(dump, tids))
    return {"traceEvents": _meta(dump, tids) + evs, "displayTimeUnit": "ns",
            "otherData": _other(dump)}


def write(dump, f):
    """build()'s object written as it is made (metadata events last: they
    name what the trace's events found), so that memory does not grow with
    the trace."""
    tids = set()
    sep = ""
    f.write('{"traceEvents":[')
    for ev in _events(dump, tids):
        f.write(sep + json.dumps(ev, separators=(",", ":")))
        sep = ","
    for ev in _meta(dump, tids):
        f.write(sep + json.dumps(ev, separators=(",", ":")))
        sep = ","
    f.write('],"displayTimeUnit":"ns","otherData":%s}\n'
            % json.dumps(_other(dump), separators=(",", ":")))
