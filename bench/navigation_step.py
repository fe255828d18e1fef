"""The window's step with the navigation loop (issue 33) against the same step without it.

``python -m bench.navigation_step``: microseconds per step of the fly_on_estimate scenario's body at
dt 0.1 s (rk4, three wheels, quaternion controller, gravity gradient, an orbit with nadir pointing) with
a gyro at every step and a star tracker at 10 Hz: without an estimator, with the MEKF watching, and
with the controller flying on it; then with the sun sensors and the magnetometer (IGRF-14) at 10 Hz
besides; then as the window steps (:meth:`sim.run.runner.Runner.advance`: a history row, with the estimate's
columns, after every step).  The issue's goal is 100x real time: 1,000 us a step at dt 0.1 s.  Wall time (perf_counter),
the best of three.
"""

from __future__ import annotations

import time

from sim.model.simulation import Simulation
from sim.run.runner import Runner
from sim.run.scenario import Scenario, load


def _per_step(sim, steps=1000, repeats=3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        sim.step(steps)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def _per_row(runner, steps=1000, repeats=3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        runner.advance(steps)
        best = min(best, (time.perf_counter() - t0) / steps)
    return best * 1e6


def rows() -> list[tuple[str, float]]:
    s = load("fly_on_estimate").settings.replace(dt=0.1, star_tracker=(10.0, 10.0))
    return [
        ("no estimator (orbit, nadir pointing, 3 wheels, rk4)", _per_step(Simulation(s.replace(fly_on="truth",
                                                                                               estimator="truth")))),
        ("MEKF watching: gyro every step, star tracker 10 Hz", _per_step(Simulation(s.replace(fly_on="truth")))),
        ("MEKF flown on (fly_on estimate)", _per_step(Simulation(s))),
        ("flown on, with sun sensors and magnetometer at 10 Hz",
         _per_step(Simulation(s.replace(sun_sensors=True, magnetometer=1e-7)))),
        ("the window's step: flown on, a history row every step", _per_row(Runner(Scenario(name="b", settings=s)))),
        ("the window's step without an estimator", _per_row(Runner(Scenario(name="b", settings=s.replace(
            fly_on="truth", estimator="truth"))))),
    ]


def main() -> None:
    for name, us in rows():
        print(f"{name:55s} {us:8.1f} us  ({1e5 / us:6.0f}x real time at dt 0.1 s)")


if __name__ == "__main__":
    main()
