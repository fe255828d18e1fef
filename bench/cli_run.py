"""`attitude-sim run` for one hour of simulated time at dt = 1 ms, a row every 10 steps; and its start-up.

Budgets: the hour <= 60 s wall time (row 2); ``attitude-sim run --duration 1`` <= 1 s wall time, the
process's whole life (issue 42: ``import sim`` no longer imports numba, about 0.2 s with scipy; a kernel
is loaded by a thread of its own when first needed, sim/core/jit.py), median of five.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time


def start_env(tree=None) -> dict:
    """The environment of a timed start: this one's, but Python's bytecode written and read (``__pycache__``) as
    pip's install compiles it, whatever ``PYTHONDONTWRITEBYTECODE`` says here (set, each start compiled every
    module from source: 0.48 s of CPU for ``run --duration 1`` against 0.28, docs/PERFORMANCE.md); ``tree``: the
    source tree to run (PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    return env


#: (label, arguments) of the start-up rows.
STARTS = (("default", ["run", "--duration", "1"]),
          ("fly_on_estimate", ["run", "--scenario", "fly_on_estimate", "--duration", "1"]))


def start_up(args, repeats: int = 5) -> float:
    """Median wall time of ``python -m app.cli ARGS --out FILE``, s (the process's whole life)."""
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeats + 1):  # the first (not timed) writes the bytecode, as an install does
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "app.cli", *args, "--out", os.path.join(tmp, "run.csv")],
                           check=True, capture_output=True, env=start_env())
            if i:
                times.append(time.perf_counter() - start)
    return statistics.median(times)


def start_up_rows(repeats: int = 5) -> list[dict]:
    rows = []
    for label, args in STARTS:
        wall = start_up(args, repeats)
        rows.append({"what": f"attitude-sim run --duration 1, {label}: start-up", "figure": f"{wall:.2f} s wall",
                     "budget": "<= 1 s", "ok": wall <= 1.0,
                     "note": f"`attitude-sim {' '.join(args)}`, the whole process, median of {repeats} (issue 42)"})
    return rows


def run(quick: bool = False) -> list[dict]:
    rows = start_up_rows(3 if quick else 5)
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
    return rows + [{"what": f"attitude-sim run, {label} simulated, dt 1 ms, every 10",
             "figure": f"{wall:.1f} s wall", "budget": f"<= {budget:g} s", "ok": wall <= budget,
             "note": f"{round(duration / 1e-3):,} steps, {size:.0f} MB CSV"}]
