"""A 1,000-body B-dot detumble sweep over 3 orbits (issue 32).

``python -m bench.detumble_sweep [BODIES] [ORBITS]``: the detumble_sweep scenario's 3U CubeSats (rk4,
dt 0.1 s, IGRF sampled every 10 s and shared by the bodies, proportional B-dot at 1 s) flown as one
:class:`~sim.ensemble.Ensemble` in this process for ``ORBITS`` orbits (default 3: 17,040 s, 170,400
steps); prints the wall time, the cost per step and per body-step, and the time to detumble's median and
95th percentile.  ``ORBITS`` may be a fraction (0.05 takes a minute) for a quick look at the cost.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import numpy as np

from sim.ensemble import Ensemble
from sim.run.scenario import load

#: One orbit of the scenario's 500 km circular orbit, rounded up to whole seconds (2 pi sqrt(a^3 / mu)).
ORBIT_S = 5680.0


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    bodies = int(argv[0]) if argv else 1000
    orbits = float(argv[1]) if len(argv) > 1 else 3.0
    scenario = load("detumble_sweep")
    s, spec = scenario.settings, replace(scenario.ensemble, bodies=bodies)
    steps = round(orbits * ORBIT_S / s.dt)
    t0 = time.perf_counter()
    ens = Ensemble(s, spec)
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    ens.step(steps)
    wall = time.perf_counter() - t0
    d = ens.metrics()["detumble_time"]
    never = np.isnan(d)
    finite = np.where(never, np.inf, d)
    p50, p95 = (float(np.percentile(finite, p, method="nearest")) for p in (50, 95))
    print(f"{bodies:,} bodies x {steps:,} steps ({orbits:g} orbits at dt {s.dt:g} s): set-up {setup:.2f} s, "
          f"stepping {wall:.1f} s wall; {wall / steps * 1e3:.3f} ms per step, "
          f"{wall / steps / bodies * 1e6:.2f} us per body-step")
    print(f"time to detumble (|w| < {spec.detumble_deg_s:g} deg/s): median {p50:.0f} s, p95 {p95:.0f} s; "
          f"{int(never.sum()):,} of {bodies:,} not yet")


if __name__ == "__main__":
    main()
