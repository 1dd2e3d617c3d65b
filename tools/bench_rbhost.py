"""bench_rbhost.py — make bench's real-hardware figures for the ring buffer.

The ring buffer built for the host (tests/host/rb_bench.c, rb_port_host.h),
twice: rb_bench_atomic (one-word gate, __atomic builtins: on x86-64 three
LOCK'd RMWs per event) and rb_bench_local (the split gate and the arch's
CPU-local RMWs, as the x86-64 kernel has them: one).  Run side by side in
one run, alternating, so that the load of a shared machine falls on both:

  rb_event_host_cycles         cycles per event, local variant (rdtsc, one
                               writer pinned, 1M events per round)
  rb_event_host_cycles_locked  the same, atomic variant
  rb_event_host_local_ratio    locked / local
  rb_host_scaling_2cpu         two writers pinned to two cores, each on its
                               own CPU buffer, against one (local variant;
                               rates by thread CPU time)

Each cycles figure is the median of PAIRS runs' medians (3 rounds each),
min and max kept.  host_rb_figures() returns them as tools/bench.py's
figure dicts, or each as n/a with the reason.
"""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build", "host")
PAIRS = 7

NAMES = ("rb_event_host_cycles", "rb_event_host_cycles_locked", "rb_event_host_local_ratio",
         "rb_host_scaling_2cpu")


def _run(args, timeout=300):
    p = subprocess.run(args, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def _figure(out, name):
    m = re.search(r"^%s (\S+) (\S+) (\S+)$" % name, out, re.M)
    if not m:
        raise RuntimeError("no %s line in: %s" % (name, out.strip()[-300:]))
    return [float(x) for x in m.groups()]


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def _fig(v, mn, mx, unit):
    return {"value": round(v, 3), "min": round(mn, 3), "max": round(mx, 3), "unit": unit}


def measure():
    rc, out = _run(["make", "-s", "-C", "tests/host", "rbbench"])
    if rc != 0:
        raise RuntimeError("building rb_bench failed: " + out.strip()[-300:])
    runs = {"local": [], "atomic": []}
    for _ in range(PAIRS):
        for variant in ("atomic", "local"):
            rc, out = _run([os.path.join(B, "rb_bench_" + variant), "cycles", "--rounds=3"])
            if rc != 0:
                raise RuntimeError("rb_bench_%s failed: %s" % (variant, out.strip()[-300:]))
            runs[variant].append(_figure(out, "rb_event_host_cycles")[0])
    loc, atm = runs["local"], runs["atomic"]
    figs = {
        "rb_event_host_cycles": _fig(_median(loc), min(loc), max(loc), "cycles"),
        "rb_event_host_cycles_locked": _fig(_median(atm), min(atm), max(atm), "cycles"),
        "rb_event_host_local_ratio": _fig(_median(atm) / _median(loc), min(atm) / max(loc),
                                          max(atm) / min(loc), "ratio"),
    }
    rc, out = _run([os.path.join(B, "rb_bench_local"), "scaling", "--rounds=5"])
    if rc != 0:
        raise RuntimeError("rb_bench_local scaling failed: " + out.strip()[-300:])
    v, mn, mx = _figure(out, "rb_host_scaling_2cpu")
    figs["rb_host_scaling_2cpu"] = _fig(v, mn, mx, "ratio")
    return figs


def host_rb_figures():
    try:
        return measure()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        why = "not available: " + str(e).replace("\n", " ")[:300]
        return {n: {"value": None, "unit": "ratio" if "ratio" in n or "scaling" in n else "cycles",
                    "why": why} for n in NAMES}


if __name__ == "__main__":
    for name, f in host_rb_figures().items():
        print(name, f)
