"""checks_layers.py — trace/'s parts depend one way: no circle between
them, every file in a part (tools/include-graph.py; trace/DESIGN.md,
"Parts and layers").  Run with the host tests."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def layers(report):
    try:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "include-graph.py")],
                           capture_output=True, text=True, timeout=120)
        rc, out = p.returncode, p.stdout + p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        rc, out = -1, str(e)
    report(rc == 0 and "no circle between parts" in out,
           "host trace/ parts point one way: no circle, every file in a part "
           "(tools/include-graph.py)", out if rc != 0 else "")
