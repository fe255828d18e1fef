"""Sensors and the MEKF (issue 33): one propagation and one update against the plain step, and a Monte Carlo.

Rows: the single filter's propagation with a gyro sample (gyro draw included)
and one star-tracker update, beside the plain single-body step of
:class:`sim.model.simulation.Simulation` (half-quat, dt 0.1 s); a Monte Carlo
of 1,000 MEKFs flown as one column over 10 minutes at dt 0.1 s with a gyro at
every step and a star tracker at 10 Hz.  CPU time of this process
(``time.process_time``), as the other rows.  ``python -m bench.estimation``.
"""

from __future__ import annotations

import statistics
import time

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


if __name__ == "__main__":
    import sys

    from bench.__main__ import table
    print(table(rows("--quick" in sys.argv)))
