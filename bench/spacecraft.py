"""The step of a spacecraft in its world, against the plain step (issues 31, 32 and 33).

``python -m bench.spacecraft [orbit|magnetic|navigation]`` (all three without an argument) prints
microseconds per step, the best of three (wall time, perf_counter):

* ``orbit``: the sun_pointing scenario's body (rk4, wheels, quaternion controller) without an orbit, with
  an orbit (inertial pointing) and with sun pointing; one world state (sim.model.world) and one orbit
  state alone.
* ``magnetic``: the momentum_dumping scenario's satellite at dt 0.1 s plain (no orbit), with the orbit,
  Sun and nadir pointing, and with everything of issue 32 on: the IGRF field (sampled every 10 s), the
  torquers dumping, the residual dipole, SRP and drag on the satellite's 208 facets, the gravity
  gradient; then with the tilted dipole, and the detumble scenario's CubeSat (B-dot).
* ``navigation``: the fly_on_estimate scenario's body at dt 0.1 s (an orbit with nadir pointing) with a
  gyro at every step and a star tracker at 10 Hz: without an estimator, with the MEKF watching, flown on,
  with sun sensors and a magnetometer besides, and as the window steps (Runner.advance: a history row
  after every step).  The issues' goal is 100x real time: 1,000 us a step at dt 0.1 s.

The figures are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import sys
import time

from sim.model.simulation import Simulation
from sim.model.world import World
from sim.run.runner import Runner
from sim.run.scenario import Scenario, load


def best_us(advance, count: int = 2000, repeats: int = 3) -> float:
    """Microseconds per unit of ``advance(count)`` (steps or calls), the best of ``repeats``."""
    advance(min(10, count))  # warm: caches, the first field samples
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        advance(count)
        best = min(best, (time.perf_counter() - t0) / count)
    return best * 1e6


def _calls(f):
    """``advance`` for a function of time: ``n`` calls at t = 0, 1, 2, ... s."""
    def advance(n):
        for k in range(n):
            f(float(k))
    return advance


def orbit() -> list:
    s = load("sun_pointing").settings
    world = World(s)
    return [("plain step (rk4, 3 wheels, quaternion controller)",
             best_us(Simulation(s.replace(pointing="inertial", orbit=None)).step)),
            ("with an orbit, Sun, shadow (inertial pointing)", best_us(Simulation(s.replace(pointing="inertial")).step)),
            ("with an orbit, Sun, shadow and sun pointing", best_us(Simulation(s).step)),
            ("one world state (sun pointing: 3 commands)", best_us(_calls(world.state))),
            ("one two-body orbit state", best_us(_calls(world.orbit.state)))]


def magnetic() -> list:
    s = load("momentum_dumping").settings.replace(dt=0.1)
    off = dict(srp=False, drag=False, dumping_gain=0.0, residual_dipole=(0.0, 0.0, 0.0), magnetorquers=0.0,
               magnetic_field="none")
    cases = [("plain step (rk4, 3 wheels, quaternion controller)",
              s.replace(**off, gravity_gradient=False, pointing="inertial", orbit=None, j2=False)),
             ("with the orbit, Sun, shadow, nadir pointing, gravity gradient", s.replace(**off)),
             ("everything on (IGRF, dumping, residual dipole, SRP, drag; 208 facets)", s),
             ("everything on, the tilted dipole instead of IGRF", s.replace(magnetic_field="dipole")),
             ("everything on, without SRP and drag", s.replace(srp=False, drag=False)),
             ("detumble: 3U CubeSat, IGRF, B-dot, no wheels", load("detumble").settings)]
    return [(name, best_us(Simulation(settings).step)) for name, settings in cases]


def navigation() -> list:
    s = load("fly_on_estimate").settings.replace(dt=0.1, star_tracker=(10.0, 10.0))
    none = s.replace(fly_on="truth", estimator="truth")
    return [("no estimator (orbit, nadir pointing, 3 wheels, rk4)", best_us(Simulation(none).step, 1000)),
            ("MEKF watching: gyro every step, star tracker 10 Hz", best_us(Simulation(s.replace(fly_on="truth")).step,
                                                                           1000)),
            ("MEKF flown on (fly_on estimate)", best_us(Simulation(s).step, 1000)),
            ("flown on, with sun sensors and magnetometer at 10 Hz",
             best_us(Simulation(s.replace(sun_sensors=True, magnetometer=1e-7)).step, 1000)),
            ("the window's step: flown on, a history row every step",
             best_us(Runner(Scenario(name="b", settings=s)).advance, 1000)),
            ("the window's step without an estimator", best_us(Runner(Scenario(name="b", settings=none)).advance,
                                                               1000))]


PARTS = {"orbit": orbit, "magnetic": magnetic, "navigation": navigation}


def main(argv=None) -> None:
    names = (sys.argv[1:] if argv is None else argv) or list(PARTS)
    for part in names:
        print(f"-- {part}")
        for name, us in PARTS[part]():
            print(f"{name:75s} {us:8.1f} us  ({1e6 / us:8.0f} a second)")


if __name__ == "__main__":
    main()
