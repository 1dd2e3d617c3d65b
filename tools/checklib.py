"""checklib.py — what the standalone check scripts share with tools/test.py:
a reporter printing one TAP-like line per check ("ok - name" / "not ok -
name", with the detail's last lines indented under a failure), the way
a check runs a command (run), and where a standalone run keeps its logs
(log_saver)."""
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def log_saver(logs):
    """A save_log(name, text) that writes logs/NAME.log (tools/test.py's
    own writes to build/test-logs too)."""
    def save_log(name, text):
        os.makedirs(logs, exist_ok=True)
        with open(os.path.join(logs, name + ".log"), "w") as f:
            f.write(text)
    return save_log
