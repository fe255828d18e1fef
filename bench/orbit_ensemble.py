"""The ensemble on an orbit through its compiled loop, this tree beside an older one, one thread and two (issue 42).

``python -m bench.orbit_ensemble [--before DIR] [--rounds 3] [--bodies 10000] [--steps 20]`` times
:func:`sim.ensemble.orbit_loop.advance_orbit_bodies` through ``Ensemble.step`` (``compiled=True``) on
:func:`bench.ensemble._satellite_on_orbit`'s satellite (half-quat at dt 0.1 s, dampers, the quaternion controller,
the gravity gradient, metrics on): Sun pointing and an inertial command, one orbit per body (``orbit_spread``,
``epoch_spread``: issue 42's "one orbit each"; ``sun/epoch``: one orbit each at one epoch, ``orbit_spread``
alone) and one orbit shared; and the settings of two scenarios with the
torquers: ``detumble`` (detumble_sweep's CubeSats: rk4 at dt 0.1 s, B-dot on IGRF) and ``dumping``
(momentum_dumping's satellite: rk4 at dt 0.5 s, three wheels, IGRF and the dumping law, SRP and drag on 208
facets, the gravity gradient, nadir pointing); and two with an estimator on the orbit the bodies share (an estimator
flies on no other): ``triad`` (sun_mag_triad: TRIAD from the sun sensors and a magnetometer, rk4 at dt 1 s) and
``fly`` (fly_on_estimate: nadir pointing flown on an MEKF, three wheels, the gravity gradient, rk4 at dt 0.5 s),
through :func:`sim.ensemble.nav_bodies.advance_nav_bodies` (issue 42, stop 50; 47a3a29 steps them through the numpy
columns).  An older tree that does not cover a case steps it through the
numpy columns (cfc65b6: the torquers' and the wheels' cases).  Each figure is a child process of its tree
(``--before``: e.g. ``git archive 498b390 | tar -x -C DIR``), the trees and the thread counts taken in turns, round
after round, so the other users' load falls on all alike (each child steps twice untimed first, waiting for the kernels it started loading, then times three calls and counts the least: a kernel that a later call first wants loads during one of them, stop 54): ns a body-step in CPU time on one thread (best of the
rounds), and on two threads in wall time against one thread's wall time (``numba.set_num_threads``).  The
children print a digest of their end states: the trees, and one thread against two, must agree to the bit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import hashlib, json, sys, time
import numba
from bench.ensemble import _satellite_on_orbit
from sim.ensemble import Ensemble, EnsembleSpec, nav_bodies, orbit_loop
orbit_loop.advance_orbit_bodies.wait()
nav_bodies.advance_nav_bodies.wait()
case, n, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
SCENARIOS = {"detumble": "detumble_sweep", "dumping": "momentum_dumping", "triad": "sun_mag_triad",
             "fly": "fly_on_estimate"}
pointing, orbits = case.split("/")
spread = dict(orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=86400.0) if orbits == "own" else {}
if orbits == "epoch":  # one orbit each, one epoch for all (the Sun the same for every body)
    spread = dict(orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0))
if pointing in SCENARIOS:  # a scenario's settings: the field with the torquers (and wheels, SRP, drag)
    from sim.run.scenario import load
    settings = load(SCENARIOS[pointing]).settings
    if spread:  # their orbits are circular: no spread of e
        spread["orbit_spread"] = (50.0, 0.0, 2.0, 30.0, 10.0, 180.0)
else:
    settings = _satellite_on_orbit(pointing)
ens = Ensemble(settings, EnsembleSpec(bodies=n, seed=1, rate_spread=0.5 if pointing not in SCENARIOS else 0.05,
                                      **spread), compiled=True)
numba.set_num_threads(threads)
from sim.core import jit
for _ in range(2):  # warm: the first call's one-time costs (the world on rows' kernels loaded, pages touched), and
    ens.step(steps)  # every kernel a numpy path called as Python until it loads (sim.core.jit.Kernel) loaded
    jit.wait_all()
best_wall = best_cpu = float("inf")
for _ in range(3):  # the least of three calls: a kernel that a later call first wants loads in one of them
    wall, cpu = time.perf_counter(), time.process_time()
    ens.step(steps)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    jit.wait_all()
wall, cpu = best_wall, best_cpu
print(json.dumps({"wall": wall / steps / n * 1e9, "cpu": cpu / steps / n * 1e9,
                  "digest": hashlib.sha256(ens._x.tobytes()).hexdigest()[:16]}))
"""

CASES = ("sun/own", "sun/epoch", "inertial/own", "sun/shared", "inertial/shared", "detumble/shared", "detumble/own",
         "dumping/shared", "dumping/own", "triad/shared", "fly/shared")


def one(tree: str, case: str, n: int, steps: int, threads: int, cache: str) -> dict:
    """``{"wall", "cpu", "digest"}`` of a child of ``tree`` stepping ``case`` (ns a body-step)."""
    env = dict(os.environ, PYTHONPATH=tree, ATTITUDE_SIM_CACHE=cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", CHILD, case, str(n), str(steps), str(threads)], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a checkout of the code before the change, timed alongside")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bodies", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--cases", nargs="*", default=CASES, choices=CASES)
    parser.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "attitude-sim"),
                        help="the disk cache of the kernels (each tree's own folder in it; compiled on first use)")
    args = parser.parse_args(argv)
    trees = {"new": ROOT, **({"old": os.path.abspath(args.before)} if args.before else {})}
    for tree in trees.values():  # each tree's kernels into the cache first: no round pays a compile
        one(tree, args.cases[0], 10, 1, 1, args.cache)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start; N = {args.bodies:,}, "
          f"{args.steps} steps a round, {args.rounds} rounds")
    for case in args.cases:
        runs = {(name, t): [] for name in trees for t in (1, 2)}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                for t in (1, 2):
                    runs[name, t].append(one(tree, case, args.bodies, args.steps, t, args.cache))
        cells = []
        for name in trees:
            cpu1 = min(r["cpu"] for r in runs[name, 1])
            scale = sorted(a["wall"] / b["wall"] for a, b in zip(runs[name, 1], runs[name, 2]))
            digests = {r["digest"] for t in (1, 2) for r in runs[name, t]}
            cells.append(f"{name} {cpu1:6.0f} ns (two threads {scale[0]:.2f}-{scale[-1]:.2f}x one in wall time"
                         f"{'' if len(digests) == 1 else ', NOT bit-identical'})")
        same = len({r["digest"] for r in sum(runs.values(), [])}) == 1
        print(f"{case:16s} " + "  ".join(cells) + ("  same bits" if same else "  trees differ"), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
