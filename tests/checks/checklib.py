"""checklib.py — what the standalone check scripts share with tests/run.py:
a reporter printing one TAP-like line per check ("ok - name" / "not ok -
name", with the detail's last lines indented under a failure), the way a
check runs a command (run), how a text is compared with its golden file
(golden_compare, with mask_durations for graphs), and where a standalone run
keeps its logs (log_saver)."""
import difflib
import os
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, timeout, env=None, stdin=subprocess.DEVNULL):
    """Run cmd in the repository's root with env added to ours; stdout and
    stderr together.  Returns (exit status, output without CRs, seconds);
    past timeout the status is 124 and the output what came, marked."""
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=e, stdin=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        out, rc = p.stdout.decode("utf-8", "replace"), p.returncode
    except subprocess.TimeoutExpired as ex:
        out, rc = (ex.stdout or b"").decode("utf-8", "replace") + "\n[harness timeout]", 124
    return rc, out.replace("\r", ""), time.time() - t0


def reporter(results):
    """A report(ok, name, detail="") that appends ok to `results`."""
    def report(ok, name, detail=""):
        results.append(ok)
        print("%s - %s" % ("ok" if ok else "not ok", name), flush=True)
        if not ok and detail:
            for line in detail.rstrip().splitlines()[-40:]:
                print("    | " + line)
    return report


def mask_durations(text):
    """Graph text with each duration (and its overhead mark) replaced."""
    return re.sub(r"^( \d+\) )[ +!#*@$] +[0-9.]+ us +\|", r"\1 <duration>  |", text, flags=re.M)


# A number in a golden file that may vary but must be the same wherever the
# name recurs: <N:name>.  A line "<N:name>x TEXT" (a folded run, see
# fold_lines) may also be absent, which binds name to 0.
_PLACEHOLDER = re.compile(r"<N:(\w+)>")


def _golden_line(want, binds):
    """A regex for golden line `want`: bound names stand for their value,
    unbound ones capture a number."""
    parts, seen, pos = [], set(), 0
    for m in _PLACEHOLDER.finditer(want):
        parts.append(re.escape(want[pos:m.start()]))
        name = m.group(1)
        if name in binds:
            parts.append(str(binds[name]))
        elif name in seen:
            parts.append("(?P=%s)" % name)
        else:
            parts.append("(?P<%s>\\d+)" % name)
            seen.add(name)
        pos = m.end()
    parts.append(re.escape(want[pos:]))
    return re.compile("".join(parts) + r"\Z")


def golden_compare(want, got, binds=None):
    """(equal, unified diff) of text `got` against golden text `want`, line
    by line; `want` may hold <N:name> placeholders (above), bound in `binds`
    (a dict, updated: pass the same one to compare parts of one output).
    The diff shows the golden with the values bound so far."""
    binds = {} if binds is None else binds
    got_lines, shown, i = got.splitlines(), [], 0
    for w in want.splitlines():
        m = _golden_line(w, binds).match(got_lines[i]) if i < len(got_lines) else None
        if m:
            binds.update((k, int(v)) for k, v in m.groupdict().items())
            shown.append(got_lines[i])
            i += 1
            continue
        fold = re.match(r"<N:(\w+)>x ", w)
        if fold and binds.setdefault(fold.group(1), 0) == 0:
            continue                                   # a run that did not occur
        shown.append(_PLACEHOLDER.sub(lambda p: str(binds.get(p.group(1), p.group(0))), w))
    same = shown == got_lines
    diff = "".join(difflib.unified_diff([l + "\n" for l in shown], [l + "\n" for l in got_lines],
                                        "golden", "got"))
    return same, diff


def log_saver(logs):
    """A save_log(name, text) that writes logs/NAME.log (tests/run.py's
    own writes to build/test-logs too)."""
    def save_log(name, text):
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, name + ".log"), "w") as f:
            f.write(text)
    return save_log
