"""One step with an orbit, the Sun, the shadow and a pointing mode against the plain step (issue 31).

``python -m bench.orbit_step``: microseconds per step of the sun_pointing scenario's body (rk4, wheels,
quaternion controller) without an orbit, with an orbit (inertial pointing) and with sun pointing, and
the cost of one world state (sim.model.world) and one orbit state alone.
"""

from __future__ import annotations

import time

from sim.model.simulation import Simulation
from sim.model.world import World
from sim.run.scenario import load


def _per_step(sim, steps=2000, repeats=3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim.step(steps)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def _per_call(f, n=2000, repeats=3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for k in range(n):
            f(float(k))
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e6


def main() -> None:
    s = load("sun_pointing").settings
    plain = s.replace(pointing="inertial", orbit=None)
    rows = [("plain step (rk4, 3 wheels, quaternion controller)", _per_step(Simulation(plain))),
            ("with an orbit, Sun, shadow (inertial pointing)", _per_step(Simulation(s.replace(pointing="inertial")))),
            ("with an orbit, Sun, shadow and sun pointing", _per_step(Simulation(s)))]
    world = World(s)
    rows.append(("one world state (sun pointing: 3 commands)", _per_call(world.state)))
    rows.append(("one two-body orbit state", _per_call(world.orbit.state)))
    for name, us in rows:
        print(f"{name:55s} {us:8.1f} us")


if __name__ == "__main__":
    main()
