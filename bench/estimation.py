"""Sensors and the MEKF (issue 33): one propagation and one update against the plain step, and a Monte Carlo.

Rows: the single filter's propagation with a gyro sample (gyro draw included)
and one star-tracker update, beside the plain single-body step of
:class:`sim.model.simulation.Simulation` (half-quat, dt 0.1 s); a Monte Carlo
of 1,000 MEKFs flown as one column over 10 minutes at dt 0.1 s with a gyro at
every step and a star tracker at 10 Hz.  CPU time of this process
(``time.process_time``), as the other rows.  ``python -m bench.estimation``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sim.gnc import attitude as A
from sim.gnc import estimation as E
from sim.gnc import sensors as S
from sim.model.simulation import Simulation

_clock = time.process_time
DT = 0.1
W = np.array([0.002, -0.003, 0.001])
ARW, RRW = 1e-5, 1e-7
TRACKER = S.StarTrackerModel(noise_cross_arcsec=5.0, noise_about_arcsec=40.0, rate_hz=10.0)


def _median(fn, count, repeats=5):
    times = []
    for _ in range(repeats):
        start = _clock()
        for _ in range(count):
            fn()
        times.append((_clock() - start) / count * 1e6)
    return statistics.median(times)


def _filters(n):
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)) if n > 1 else np.array([0.0, 0.0, 0.0, 1.0])
    p0 = np.diag([1e-6] * 3 + [1e-8] * 3)
    body = range(n) if n > 1 else 0
    return (E.Mekf(q, np.zeros(3), p0, ARW, RRW), S.Gyro(S.GyroModel(arw=ARW, rrw=RRW), seed=1, body=body),
            S.StarTracker(TRACKER, seed=1, body=body))


def rows(quick: bool = False) -> list[dict]:
    sim = Simulation(integrator="half-quat", rates=tuple(W), dt=DT)
    plain = _median(lambda: sim.step(1), 2000 if quick else 20000)
    filt, gyro, tracker = _filters(1)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    propagate = _median(lambda: filt.propagate(gyro.measure(W, DT), DT), 500 if quick else 5000)
    update = _median(lambda: filt.update_attitude(tracker.measure(q)[0], TRACKER.covariance()), 500 if quick else 5000)
    n, steps = 1000, (600 if quick else 6000)
    filt, gyro, tracker = _filters(n)
    cov = TRACKER.covariance()
    start = _clock()
    for k in range(1, steps + 1):
        filt.propagate(gyro.measure(W, DT), DT)
        q_true = np.tile(A.from_rotation_vector(W * k * DT), (n, 1))
        q_m, valid = tracker.measure(q_true)
        filt.update_attitude(q_m, cov, valid)
    mc = _clock() - start
    span = f"{steps * DT / 60:.0f} min"
    return [
        {"what": "MEKF propagation (gyro sample + Φ P Φ^T), one filter", "figure": f"{propagate:.0f} us",
         "budget": "", "ok": None, "note": f"{propagate / plain:.1f}x the plain half-quat step ({plain:.1f} us)"},
        {"what": "MEKF star-tracker update (sample + update + reset), one filter", "figure": f"{update:.0f} us",
         "budget": "", "ok": None, "note": f"{update / plain:.1f}x the plain step"},
        {"what": f"MEKF Monte Carlo, 1,000 filters x {span} (dt 0.1 s, tracker 10 Hz)", "figure": f"{mc:.1f} s",
         "budget": "", "ok": None, "note": f"{mc / (steps * n) * 1e6:.2f} us per filter-step, one column"},
    ]


HERE = Path(__file__).resolve().parents[1]
#: The child that times the ensemble: prints ``{"wall": us, "cpu": us}`` a body-step, best of three.
_ENSEMBLE = r"""
import json, time
from sim.core import jit
from sim.ensemble import Ensemble
from sim.run.scenario import load
sc = load("mekf_monte_carlo")
ens = Ensemble(sc.settings, sc.ensemble)
ens.step(300)
jit.wait_all()
ens.step(300)
best = (1e9, 1e9)
for _ in range(3):
    w, c = time.perf_counter(), time.process_time()
    ens.step(512)
    best = min(best, ((time.perf_counter() - w) / 512 / ens.n * 1e6, (time.process_time() - c) / 512 / ens.n * 1e6))
print(json.dumps({"wall": best[0], "cpu": best[1]}))
"""
#: The child that runs the sweep (its wall time is taken around the process).
_SWEEP = r"""
import sys
from app.cli import main
sys.exit(main(["sweep", "--scenario", "mekf_monte_carlo", "--workers", "0", "--out", sys.argv[1]]))
"""


def _child(tree: Path, code: str, threads: int, *args) -> tuple:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS=str(threads))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=str(tree), env=env, capture_output=True,
                          text=True, check=True)
    return time.perf_counter() - start, proc.stdout


def monte_carlo_rows(before: Path | None = None, repeats: int = 3) -> list[dict]:
    """The ``mekf_monte_carlo`` ensemble and sweep in this tree (and ``before``), interleaved, best of ``repeats``."""
    trees = [("old", before)] if before is not None else []
    trees.append(("new", HERE))
    best: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):
            for label, tree in trees:
                for threads in (1, 2):
                    figures = json.loads(_child(tree, _ENSEMBLE, threads)[1].strip().splitlines()[-1])
                    key = (label, threads)
                    old = best.get(key, {"wall": 1e9, "cpu": 1e9})
                    best[key] = {k: min(old[k], figures[k]) for k in old}
                wall = _child(tree, _SWEEP, 2, str(Path(tmp) / f"{label}.csv"))[0]
                best[(label, "sweep")] = min(best.get((label, "sweep"), 1e9), wall)
    rows = []
    for label, _ in trees:
        one, two = best[(label, 1)], best[(label, 2)]
        rows.append({"what": f"mekf_monte_carlo ensemble, 1,000 MEKFs ({label} tree)",
                     "figure": f"{one['wall']:.2f} us wall a body-step, one thread", "budget": "", "ok": None,
                     "note": f"CPU {one['cpu']:.2f} us; two threads {two['wall']:.2f} us wall "
                             f"({one['wall'] / two['wall']:.2f}x one), CPU {two['cpu']:.2f} us"})
        rows.append({"what": f"attitude-sim sweep --scenario mekf_monte_carlo --workers 0 ({label} tree)",
                     "figure": f"{best[(label, 'sweep')]:.1f} s wall", "budget": "", "ok": None,
                     "note": "6,000 steps of 1,000 bodies, start-up and the kernels' load included"})
    return rows


if __name__ == "__main__":
    from bench.__main__ import table
    parser = argparse.ArgumentParser(prog="python -m bench.estimation")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--monte-carlo", action="store_true", help="the mekf_monte_carlo ensemble and sweep only")
    parser.add_argument("--before", type=Path, help="an exported older tree, measured interleaved with this one")
    options = parser.parse_args()
    if options.monte_carlo or options.before is not None:
        print(table(monte_carlo_rows(options.before)))
    else:
        print(table(rows(options.quick)))
