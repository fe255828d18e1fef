"""One step with everything of issue 32 on against the plain step.

``python -m bench.magint_step``: microseconds per step of the momentum_dumping scenario's satellite (rk4,
three wheels, quaternion controller, dt 0.1 s) plain (no orbit), with the orbit, Sun and nadir pointing
(issue 31), and with everything on: the IGRF field (sampled every 10 s), the torquers dumping, the
residual dipole, SRP and drag on the satellite's 208 facets, the gravity gradient; then the same with the
tilted dipole, and the detumble scenario's CubeSat (12 facets, no surfaces, B-dot).
"""

from __future__ import annotations

import time

from sim.model.simulation import Simulation
from sim.run.scenario import load


def _per_step(settings, steps=2000, repeats=3) -> float:
    sim = Simulation(settings)
    sim.step(10)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim.step(steps)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def main() -> None:
    s = load("momentum_dumping").settings.replace(dt=0.1)
    off = dict(srp=False, drag=False, dumping_gain=0.0, residual_dipole=(0.0, 0.0, 0.0), magnetorquers=0.0,
               magnetic_field="none")
    rows = [("plain step (rk4, 3 wheels, quaternion controller)",
             _per_step(s.replace(**off, gravity_gradient=False, pointing="inertial", orbit=None, j2=False))),
            ("with the orbit, Sun, shadow, nadir pointing, gravity gradient", _per_step(s.replace(**off))),
            ("everything on (IGRF, dumping, residual dipole, SRP, drag; 208 facets)", _per_step(s)),
            ("everything on, the tilted dipole instead of IGRF", _per_step(s.replace(magnetic_field="dipole"))),
            ("everything on, without SRP and drag", _per_step(s.replace(srp=False, drag=False))),
            ("detumble: 3U CubeSat, IGRF, B-dot, no wheels", _per_step(load("detumble").settings))]
    for name, us in rows:
        print(f"{name:75s} {us:8.1f} us  ({1e6 / us:6.0f} steps/s)")


if __name__ == "__main__":
    main()
