"""`attitude-sim run` for one hour of simulated time at dt = 1 ms, a row every 10 steps.

Budget (row 2): <= 60 s wall time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time


def run(quick: bool = False) -> list[dict]:
    duration = 360.0 if quick else 3600.0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "hour.csv")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app.cli", "run", "--scenario", "default",
                        "--dampers", "0,0,0", "--rates", "1,0.2,-0.5", "--dt", "0.001",
                        "--duration", str(duration), "--every", "10", "--out", out],
                       check=True, capture_output=True)
        wall = time.perf_counter() - start
        size = os.path.getsize(out) / 1e6
    budget = 60.0 * duration / 3600.0
    label = "1 h" if not quick else f"{duration:g} s (quick)"
    return [{"what": f"attitude-sim run, {label} simulated, dt 1 ms, every 10",
             "figure": f"{wall:.1f} s wall", "budget": f"<= {budget:g} s", "ok": wall <= budget,
             "note": f"{round(duration / 1e-3):,} steps, {size:.0f} MB CSV"}]
