#!/usr/bin/env python3
"""bench.py — `make bench`: boot each arch, run the in-guest benchmarks, print
the table and one JSON line per figure.

Per-call figures come from single-CPU boots under TCG with -icount shift=0,
where guest time advances one nanosecond per retired instruction, so every
figure is an instruction count and repeatable.  Each in-guest figure is the
median of BENCH_ROUNDS rounds (min and max kept).  site_disabled_ratio divides
the demo's work in the normal build by the same work in a build without
patchable entries (NOINSTR=1), both measured here.  The host figures are
the same on each arch's rows: uftrace_call (tools/bench-uftrace.py) and the
ring buffer on the host CPU (tools/bench_rbhost.py: rdtsc cycles per event
with and without LOCK'd RMWs, two-core scaling).

  tools/bench.py [--arch arm64|x86_64]... [--quick] [--markdown FILE]
                 [--host-figures FILE]
(--quick skips the multi-CPU throughput boot; --host-figures takes the host
figures from FILE if it exists, else measures them and writes them there:
tests/run.py measures them once for its two runs, one per arch).  Writes
only under build/ (and the FILEs).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_figures import FIGURES  # noqa: E402
from bench_rbhost import NAMES as HOST_RB_NAMES, host_rb_figures  # noqa: E402


def sh(cmd, env=None, timeout=1800):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, cwd=ROOT, env=e, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace").replace("\r", "")


ICOUNT_BENCHES = "demo_work,boot_ms,ftrace_calls,rb_event_cost,patch_sites"
# The twin without sites (NOINSTR=1) gives only the ratio's denominator.
NOINSTR_BENCHES = "demo_work"
# The XRay backend's boots (INSTR=xray): the figures it is compared by.
XRAY_BENCHES = "demo_work,ftrace_calls,patch_sites"
XRAY_FIGURES = ("function_tracer_call", "graph_call", "graph_args_retval_call",
                "record_bytes_per_site")


def guest_figures(arch, noinstr=False, parallel=False, instr=""):
    """One boot: under -icount on one CPU, or (parallel) multi-threaded TCG
    on 3 CPUs for the throughput figures; instr: the backend (INSTR=)."""
    spec = "rb_throughput" if parallel else NOINSTR_BENCHES if noinstr else \
        XRAY_BENCHES if instr else ICOUNT_BENCHES
    args = ["make", "-s", "--no-print-directory", "ARCH=" + arch, "run",
            "CMDLINE=bt.bench=" + spec]
    args.append("NOINSTR=1" if noinstr else "BENCH_FUNCS=1")
    if instr:
        args.append("INSTR=" + instr)
    env = {"SMP": "3", "TIMEOUT": "600"} if parallel else {"SMP": "1", "ICOUNT": "1", "TIMEOUT": "900"}
    rc, out = sh(args, env=env)
    os.makedirs(os.path.join(ROOT, "build", "bench"), exist_ok=True)
    tag = ("-" + instr if instr else "") + ("-noinstr" if noinstr else "-parallel" if parallel else "")
    with open(os.path.join(ROOT, "build", "bench", "%s%s.log" % (arch, tag)), "w") as f:
        f.write(out)
    if rc != 0:
        sys.exit("bench: %s boot failed (status %d):\n%s" % (arch, rc, out[-3000:]))
    figs = {}
    for m in re.finditer(r"^bench: (\S+) value=(\S+)(?: min=(\S+) max=(\S+))? unit=(\S+)(?: why=\"(.*)\")?$", out, re.M):
        name, value, mn, mx, unit, why = m.groups()
        if value == "na":
            figs[name] = {"value": None, "unit": unit, "why": why}
        else:
            figs[name] = {"value": float(value), "min": float(mn), "max": float(mx), "unit": unit}
    return figs


def host_uftrace():
    rc, out = sh(["tools/bench-uftrace.py"])
    m = re.search(r"^uftrace_call (\S+)(?: (.*))?$", out, re.M)
    if rc != 0 or not m:
        return {"value": None, "unit": "insns", "why": "not available: bench-uftrace failed"}
    if m.group(1) == "na":
        return {"value": None, "unit": "insns", "why": "not available: " + (m.group(2) or "")}
    v = float(m.group(1))
    return {"value": v, "min": v, "max": v, "unit": "insns"}


HOST_NAMES = {"uftrace_call"} | set(HOST_RB_NAMES)


def host_figures(path=None):
    """uftrace_call and the ring buffer on the host CPU (the same for every
    arch's rows): read from path if it exists, else measured (and written
    to path if given)."""
    if path and os.path.exists(path):
        try:
            with open(path) as f:
                figs = json.load(f)
        except (OSError, ValueError) as e:
            figs = str(e)
        if not (isinstance(figs, dict) and set(figs) == HOST_NAMES and all(
                isinstance(f, dict) and "unit" in f and
                (f.get("value") is None or all(isinstance(f.get(k), (int, float))
                                              for k in ("value", "min", "max")))
                for f in figs.values())):
            sys.exit("bench: %s holds no host figures (%s); remove it to measure them again"
                     % (path, figs if isinstance(figs, str) else "not bench.py's figure dicts"))
        return figs
    figs = {"uftrace_call": host_uftrace()}
    figs.update(host_rb_figures())
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(figs, f)
    return figs


def disabled_ratio(figs, base):
    """The demo's work with sites disabled over the same work uninstrumented."""
    a, b = figs.get("demo_work_per_1k_lookups"), base.get("demo_work_per_1k_lookups")
    if a and b and a["value"] and b["value"]:
        return {"value": round(a["value"] / b["value"], 4), "unit": "ratio",
                "min": round(a["min"] / b["max"], 4), "max": round(a["max"] / b["min"], 4)}
    return None


def measure(arch, quick):
    figs = guest_figures(arch)
    base = guest_figures(arch, noinstr=True)
    if not quick:
        figs.update(guest_figures(arch, parallel=True))
    ratio = disabled_ratio(figs, base)
    if ratio:
        figs["site_disabled_ratio"] = ratio
    figs.update(measure_xray(arch))
    return figs


def measure_xray(arch):
    """The XRay backend's figures, named xray_*: its kernel (clang) against
    the same clang kernel uninstrumented for site_disabled_ratio."""
    figs = guest_figures(arch, instr="xray")
    base = guest_figures(arch, noinstr=True, instr="xray")
    out = {"xray_" + n: figs[n] for n in XRAY_FIGURES if n in figs}
    ratio = disabled_ratio(figs, base)
    if ratio:
        out["xray_site_disabled_ratio"] = ratio
    return out


def fmt(v):
    if v is None:
        return "n/a"
    return ("%.4f" % v).rstrip("0").rstrip(".") if v != int(v) else "%d" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", action="append")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--markdown", help="also write the table as Markdown to this file")
    ap.add_argument("--host-figures", metavar="FILE",
                    help="the host figures from FILE if it exists, else measured into it")
    args = ap.parse_args()
    arches = args.arch or ["arm64", "x86_64"]
    rows, bad = [], 0
    host = host_figures(args.host_figures)
    for arch in arches:
        figs = measure(arch, args.quick)
        figs.update(host)                       # host figures, the same for each arch's rows
        for name, unit, accel in FIGURES:
            f = figs.get(name)
            if f is None or f["value"] is None:
                why = (f or {}).get("why") or "not available: feature not built yet"
                rows.append((arch, name, None, None, None, unit, accel, why))
                print(json.dumps({"bench": name, "arch": arch, "accel": accel, "value": None,
                                  "unit": unit, "min": None, "max": None, "note": why}))
                continue
            v, mn, mx = f["value"], f["min"], f["max"]
            if not all(x == x and x > 0 and x != float("inf") for x in (v, mn, mx)):
                bad += 1
            rows.append((arch, name, v, mn, mx, unit, accel, ""))
            print(json.dumps({"bench": name, "arch": arch, "accel": accel, "value": v,
                              "unit": unit, "min": mn, "max": mx}))
    print()
    print("%-8s %-24s %12s %12s %12s  %-12s %-10s" % ("arch", "figure", "median", "min", "max", "unit", "accel"))
    for arch, name, v, mn, mx, unit, accel, why in rows:
        if v is None:
            print("%-8s %-24s %12s %12s %12s  %-12s %-10s %s" % (arch, name, "n/a", "", "", unit, accel, why))
        else:
            print("%-8s %-24s %12s %12s %12s  %-12s %-10s" % (arch, name, fmt(v), fmt(mn), fmt(mx), unit, accel))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| arch | figure | median | min | max | unit | accel |\n")
            f.write("|------|--------|-------:|----:|----:|------|-------|\n")
            for arch, name, v, mn, mx, unit, accel, why in rows:
                if v is None:
                    f.write("| %s | %s | n/a | | | %s | %s |\n" % (arch, name, unit, why))
                else:
                    f.write("| %s | %s | %s | %s | %s | %s | %s |\n"
                            % (arch, name, fmt(v), fmt(mn), fmt(mx), unit, accel))
    if bad:
        sys.exit("bench: %d figure(s) not positive and finite" % bad)


main()
