"""The cost of a CMG step and of the thruster formulas (issue 45), beside the wheel step of today.

``python -m bench.actuators``.  Rows:

* ``cmg_advance`` (sim/core/cmg.py, compiled by sim.core.jit): one RK4 step of the craft with a
  four-CMG pyramid, the steering law evaluated at every step, per steering law; many steps in one
  call (the compiled loop) and one step per call (what a Python loop calling it per step pays);
* the wheel step for the same integrator: ``Simulation(integrator="rk4", wheels="pyramid")``, compiled
  (:mod:`sim.model.advance_craft`, loaded first);
* a PWPF step and a thruster wrench of 12 thrusters, compiled, one call each;
* the goal's ratio, wired (issue 45): one ``Simulation.step`` of the scenario ``cmg_fast_slew`` on its CMGs
  (:mod:`sim.model.cmg_step`: the torque law in Python, then one compiled ``cmg_advance`` step) beside the
  same scenario on its comparison body's wheels (the same body, controller and command, wheels in place of
  the CMGs), both under the quaternion controller after the command;
* the wired thruster step (issue 45, sim.model.thruster_drive) against the wheel step of the same scenario:
  ``pwpf_slew`` (thrusters fly the controller) beside the same settings on three wheels instead, and
  ``thruster_unloading`` (wheels and thrusters) beside the same on wheels alone; ``thruster_limit_cycle``'s
  dead-band step beside the same body on wheels (``thruster_vs_wheel_rows``).

Times are CPU time of this process (``time.process_time``), medians of repeats.

The goal measured against the compiled wheel step (``python -m bench.actuators --goal [--before DIR]``,
:func:`goal_rows`): ``cmg_fast_slew`` on its CMGs and on its comparison body's wheels, one ``Simulation.step``
call of many steps, every kernel the run would load (``cmg_advance``, :func:`sim.core.advance.advance`,
:func:`sim.model.advance_craft.advance_craft`, the world's) loaded first, as a long run has them; best of 3;
the same on a 500 km orbit with the gravity gradient (:data:`ORBIT`).  With
``--before DIR`` (a tree of an older commit, ``git archive REV | tar -x -C DIR``) each measurement is a fresh
process of this file with ``PYTHONPATH`` the old tree or this one, old and new alternating (old, new, new,
old, old, new), so the machine's load falls on both alike.
``python -m bench.actuators --ensemble`` measures an ensemble's CMG body-step (every body's gimbals a row, issue 45)
against the same bodies on wheels (:func:`ensemble_cmg_pair_us`).
``python -m bench.actuators --thrusters [--before DIR]`` measures only the thruster rows as the goal asks
(a thruster step at most 1.5x the compiled wheel step of the same scenario): each scenario's thruster step
and its wheel step (:func:`thruster_pair_us`, best of three, every kernel loaded first: what a long run
reaches), in a child process of this tree and, with ``--before DIR`` (``git archive 06c9771 | tar -x -C
DIR``), of the old tree, alternating.  The figures are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import json
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

from sim.core import cmg, jit
from sim.core import thrusters as th
from sim.model.simulation import Simulation
from sim.run.scenario import load

_clock = time.process_time
DT = 0.01


def _state():
    j = np.array([[40.0, 1.2, -0.5], [1.2, 55.0, 0.8], [-0.5, 0.8, 35.0]])
    g, s0 = cmg.pyramid()
    return (np.array([0.0, 0.0, 0.0, 1.0]), np.array([0.01, -0.02, 0.01]), np.radians([10.0, -20.0, 30.0, 5.0]),
            j, np.linalg.inv(j), 2.5, g, s0)


def cmg_us_per_step(law: int, steps: int, per_call: int, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        q, w, d, j, ji, h0, g, s0 = _state()
        rates = np.zeros(4)
        args = (j, ji, h0, g, s0, np.array([0.05, -0.02, 0.03]), np.zeros(3), law, 0.01, 10.0, 1.0, 1.5)
        start = _clock()
        for n in range(steps // per_call):
            cmg.cmg_advance(q, w, d, *args, n * per_call * DT, 0.01, 0.5 * np.pi, DT, per_call, rates)
        times.append((_clock() - start) / steps * 1e6)
    return statistics.median(times)


def wheel_us_per_step(steps: int, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        sim = Simulation(integrator="rk4", wheels="pyramid", rates=(0.01, -0.02, 0.01), dt=DT)
        start = _clock()
        sim.step(steps)
        times.append((_clock() - start) / steps * 1e6)
    return statistics.median(times)


def scenario_us_per_step(settings, steps: int, repeats: int = 5, command=None) -> float:
    """``Simulation.step`` of ``settings`` (after a new ``command``, deg, when given: ``cmg_fast_slew``'s 30 deg
    yaw), us per step."""
    times = []
    for _ in range(repeats):
        sim = Simulation(settings)
        if command is not None:
            sim.set("command_deg", command)
        sim.step(10)  # compiled kernels loaded, the first rows (the command, a first firing) out of the way
        start = _clock()
        sim.step(steps)
        times.append((_clock() - start) / steps * 1e6)
    return statistics.median(times)


def wired_rows(steps: int) -> list[tuple[str, float]]:
    """The goal's ratio on one scenario: ``cmg_fast_slew`` on CMGs and on its comparison body's wheels."""
    sc = load("cmg_fast_slew")
    cmgs = scenario_us_per_step(sc.settings, steps, command=(30.0, 0.0, 0.0))
    wheels = scenario_us_per_step(sc.settings.replace(**dict(sc.compare)["wheels"]), steps, command=(30.0, 0.0, 0.0))
    return [("cmg_fast_slew on CMGs, Simulation.step (us/step)", cmgs),
            ("cmg_fast_slew on wheels, Simulation.step (us/step)", wheels),
            ("ratio CMG step / wheel step (goal <= 2)", cmgs / wheels)]


jit.numba_module()  # the jitable formulas registered with numba before the compiled loops below can call them


@numba.njit(cache=False)
def _pwpf_loop(n):
    f, out, acc = 0.0, 0.0, 0.0
    for _ in range(n):
        f, out = th.pwpf_step(0.3, f, out, 4.5, 0.3, 0.45, 0.15, 1.0, 1e-3)
        acc += out
    return acc


@numba.njit(cache=False)
def _wrench_loop(pos, dirs, force, level, n):
    acc = 0.0
    for _ in range(n):
        torque, _ = th.thruster_wrench(pos, dirs, force, level, np.zeros(3))
        acc += torque[0]
    return acc


def compiled_loop_us(fn, *args, n=200_000, repeats=5) -> float:
    fn(*args, 10)
    times = []
    for _ in range(repeats):
        start = _clock()
        fn(*args, n)
        times.append((_clock() - start) / n * 1e6)
    return statistics.median(times)


def thruster_vs_wheel_rows(steps: int) -> list[tuple[str, float]]:
    """The wired thruster step and the wheel step of the same scenario (us/step), and their ratio."""
    from sim.model import thruster_drive

    thruster_drive.load()  # the compiled kernels, as a long run has them (outside the timing)
    off = dict(thrusters="none", thruster_unloading=0.0)
    out = []
    for name, wheels in THRUSTER_WHEELS:
        s = load(name).settings
        thr = scenario_us_per_step(s, steps)
        wheel = scenario_us_per_step(s.replace(**off, **wheels), steps)
        out.append((f"{name}: thruster step, Simulation.step (us/step)", thr))
        out.append((f"{name}: the same on wheels only (us/step)", wheel))
        out.append((f"{name}: thruster step / wheel step", thr / wheel))
    return out


def load_kernels() -> None:
    """Every kernel of the tree loaded now, as a long run has them: this tree's one rule
    (:func:`sim.core.jit.load_all`), or the modules' own load() in a tree before it (``--before``: this file runs
    the old tree's sim)."""
    try:
        from sim.core.jit import load_all
    except ImportError:
        from sim.core import advance
        from sim.model import advance_craft, world

        advance.load(), advance_craft.load(), world.load()
        return
    import sim.model.advance_craft, sim.model.world, sim.model.thruster_drive  # noqa: F401, E401  (their samples)
    load_all(stream=False)


def _load_kernels(settings) -> None:
    """Every kernel a long run of ``settings`` has loaded: the plain and the spacecraft step, the world's, the CMG
    steps."""
    load_kernels()
    q, w, d, j, ji, h0, g, s0 = _state()
    cmg.cmg_advance.wait(q, w, d, j, ji, h0, g, s0, np.zeros(3), np.zeros(3), 0, 0.01, 10.0, 1.0, 1.5, 0.0, 0.01,
                         1.0, DT, 1, np.zeros(4), stream=False)
    from sim.model import cmg_step

    if hasattr(cmg_step, "cmg_run"):  # the many-step CMG kernel (not in a tree before it)
        cmg_step.cmg_run.wait(*Simulation(settings)._cmg._sample(), stream=False)


#: The same slew on a 500 km orbit with the gravity gradient: the world made between steps (one step a call).
ORBIT = dict(orbit=(500.0, 0.0, 51.6, 0.0, 0.0, 0.0), gravity_gradient=True)


def goal_once(steps: int, repeats: int = 3) -> dict:
    """``cmg_fast_slew`` after its 30 deg command: us a step on its CMGs and on its comparison body's wheels, each the
    best of ``repeats`` runs of ``steps`` steps in one ``Simulation.step`` call, the kernels loaded first."""
    sc = load("cmg_fast_slew")
    wheels = sc.settings.replace(**dict(sc.compare)["wheels"])
    _load_kernels(sc.settings)
    out = {}
    for name, settings in (("cmg", sc.settings), ("wheels", wheels), ("cmg_orbit", sc.settings.replace(**ORBIT)),
                           ("wheels_orbit", wheels.replace(**ORBIT))):
        times = []
        for _ in range(repeats):
            sim = Simulation(settings)
            sim.set("command_deg", (30.0, 0.0, 0.0))
            sim.step(10)
            start = _clock()
            sim.step(steps)
            times.append((_clock() - start) / steps * 1e6)
        out[name] = min(times)
    out["sim"] = str(Path(sys.modules["sim"].__file__).resolve().parents[1])
    return out


def goal_rows(steps: int, before: str | None = None, rounds: int = 3) -> list[tuple[str, float]]:
    """The goal's rows (:func:`goal_once`); with ``before`` old and new alternating in fresh processes, best of
    ``rounds`` each."""
    if before is None:
        found = goal_once(steps)
        return [("cmg_fast_slew on CMGs (us/step)", found["cmg"]),
                ("cmg_fast_slew on wheels, compiled (us/step)", found["wheels"]),
                ("ratio CMG step / wheel step (goal <= 2)", found["cmg"] / found["wheels"]),
                ("the same on an orbit, gravity gradient: CMGs (us/step)", found["cmg_orbit"]),
                ("the same on an orbit, gravity gradient: wheels (us/step)", found["wheels_orbit"]),
                ("the same on an orbit: ratio (goal <= 2)", found["cmg_orbit"] / found["wheels_orbit"])]
    here = str(Path(__file__).resolve().parents[1])
    sides = {"old": str(Path(before).resolve()), "new": here}
    found = {"old": [], "new": []}
    for k in range(rounds):
        for side in (("old", "new") if k % 2 == 0 else ("new", "old")):
            env = dict(os.environ, PYTHONPATH=sides[side])
            text = subprocess.run([sys.executable, __file__, "--goal-once", str(steps)], env=env, cwd=sides[side],
                                  capture_output=True, text=True, check=True).stdout
            run = json.loads(text.strip().splitlines()[-1])
            if run["sim"] != sides[side]:
                raise RuntimeError(f"the {side} side measured {run['sim']}, not {sides[side]}")
            found[side].append(run)
    out = []
    for side in ("old", "new"):
        for key, where in (("", ""), ("_orbit", " on an orbit, gravity gradient")):
            cmgs = min(r["cmg" + key] for r in found[side])
            wheel = min(r["wheels" + key] for r in found[side])
            out += [(f"{side}: cmg_fast_slew{where} on CMGs (us/step)", cmgs),
                    (f"{side}: cmg_fast_slew{where} on wheels, compiled (us/step)", wheel),
                    (f"{side}: ratio CMG step / wheel step (goal <= 2)", cmgs / wheel)]
    return out
#: The thruster scenarios and what turns each into its wheel comparison (thruster_vs_wheel_rows).
THRUSTER_WHEELS = (("pwpf_slew", dict(wheels="orthogonal", wheel_inertia=0.05)), ("thruster_unloading", {}),
                   ("thruster_limit_cycle", dict(wheels="orthogonal")))


def thruster_pair_us(name: str, wheels: dict, steps: int = 20_000, repeats: int = 3) -> tuple:
    """``(thruster step, wheel step)`` of scenario ``name`` (us, CPU time, best of ``repeats`` runs of ``steps``
    steps after 10), the wheel step on ``name``'s settings with the thrusters taken off and ``wheels`` put on;
    every compiled kernel of the tree loaded first."""
    from sim.model import thruster_drive
    from sim.model.simulation import Simulation
    from sim.run.scenario import load

    load_kernels()
    thruster_drive.load()
    settings = load(name).settings
    out = []
    for s in (settings, settings.replace(thrusters="none", thruster_unloading=0.0, **wheels)):
        best = float("inf")
        for _ in range(repeats):
            sim = Simulation(s)
            sim.step(10)
            start = time.process_time()
            sim.step(steps)
            best = min(best, (time.process_time() - start) / steps * 1e6)
        out.append(best)
    return tuple(out)


def ensemble_pair_us(name: str, wheels: dict, bodies: int = 100, steps: int = 300, repeats: int = 3) -> tuple:
    """``(thruster body-step, wheel body-step)`` of an ensemble of ``bodies`` of scenario ``name`` (us per body and
    step, CPU time, best of ``repeats``), every body's drive a row (:class:`sim.model.thruster_drive.DriveColumns`,
    its :func:`~sim.model.thruster_drive.drive_bodies` compiled first), beside the same on ``wheels``."""
    from sim.ensemble import Ensemble, EnsembleSpec
    from sim.model.thruster_drive import load_bodies
    from sim.run.scenario import load

    load_bodies()
    settings = load(name).settings
    spec = EnsembleSpec(bodies=bodies, seed=1, rate_spread=0.01)
    out = []
    for s in (settings, settings.replace(thrusters="none", thruster_unloading=0.0, **wheels)):
        best = float("inf")
        for _ in range(repeats):
            ens = Ensemble(s, spec)
            ens.step(10)
            start = time.process_time()
            ens.step(steps)
            best = min(best, (time.process_time() - start) / (steps * bodies) * 1e6)
        out.append(best)
    return tuple(out)


def ensemble_cmg_pair_us(bodies: int, steps: int, repeats: int = 3) -> tuple:
    """``(CMG body-step, wheel body-step)`` of an ensemble of ``bodies`` of ``cmg_fast_slew`` after its 30 deg
    command (us per body and step, CPU time, best of ``repeats``): every body's gimbals a row
    (:class:`sim.ensemble.cmg_bodies.CmgColumns`, its prange loop :func:`~sim.ensemble.cmg_bodies.cmg_bodies`
    loaded first), beside the same bodies on the scenario's comparison wheels (the ensemble's numpy rk4 columns)."""
    from sim.ensemble import Ensemble, EnsembleSpec
    from sim.ensemble import cmg_bodies

    cmg_bodies.cmg_bodies.wait(stream=False)
    sc = load("cmg_fast_slew")
    spec = EnsembleSpec(bodies=bodies, seed=1, rate_spread=0.01, inertia_spread=5.0)
    out = []
    for s in (sc.settings, sc.settings.replace(**dict(sc.compare)["wheels"])):
        best = float("inf")
        for _ in range(repeats):
            ens = Ensemble(s, spec)
            ens.set("command_deg", (30.0, 0.0, 0.0))
            ens.step(10)
            start = time.process_time()
            ens.step(steps)
            best = min(best, (time.process_time() - start) / (steps * bodies) * 1e6)
        out.append(best)
    return tuple(out)


#: ``cmg_fast_slew`` holding its attitude with cube thrusters unloading its cluster
#: (tests/sim/model/test_cmg_thrusters.py).
CMG_THRUSTERS = dict(command_deg=(0.0, 0.0, 0.0), cmg_angles=(40.0, -20.0, 10.0, 30.0), thrusters="cube",
                     thruster_force=0.25, thruster_unloading=0.2, thruster_on=0.2, thruster_off=0.05,
                     thruster_period=0.5)


def cmg_thruster_pair_us(steps: int = 20_000, repeats: int = 3) -> tuple:
    """``(CMG + thrusters step, CMG step)`` of one body (us, CPU time, best of ``repeats`` runs of ``steps`` steps in
    one call after 10): ``cmg_fast_slew`` with :data:`CMG_THRUSTERS` and without its thrusters, ``cmg_run`` (the
    drive inside its loop) and every kernel loaded first."""
    settings = load("cmg_fast_slew").settings.replace(**CMG_THRUSTERS)
    _load_kernels(settings)
    out = []
    for s in (settings, settings.replace(thrusters="none", thruster_unloading=0.0)):
        best = float("inf")
        for _ in range(repeats):
            sim = Simulation(s)
            sim.step(10)
            start = time.process_time()
            sim.step(steps)
            best = min(best, (time.process_time() - start) / steps * 1e6)
        out.append(best)
    return tuple(out)


def ensemble_main() -> None:
    """The ensemble's CMG body-step against its wheel body-step (:func:`ensemble_cmg_pair_us`), 100 and 1,000 bodies,
    and one body's CMG step with thrusters against it without (:func:`cmg_thruster_pair_us`), with the load
    average before and after."""
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)
    both, alone = cmg_thruster_pair_us()
    print(f"cmg_fast_slew one body, thrusters unloading the CMGs {both:8.3f} us  CMGs alone {alone:8.3f} us  "
          f"ratio {both / alone:5.2f}", flush=True)
    for bodies, steps in ((100, 500), (1000, 100)):
        cmgs, wheels = ensemble_cmg_pair_us(bodies, steps)
        print(f"cmg_fast_slew ensemble of {bodies:5d}, per body-step: CMGs {cmgs:8.3f} us  wheels {wheels:8.3f} us  "
              f"ratio {cmgs / wheels:5.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)


with open(__file__) as _f:  # this file's function, given to the old tree's child process
    _PAIR_SOURCE = "import time\n" + _f.read().split("def thruster_pair_us", 1)[1].split("\n\n\nwith open", 1)[0].join(
        ["def thruster_pair_us", ""])


def _child(folder: str, name: str, wheels: dict) -> tuple:
    env = dict(os.environ, PYTHONPATH=folder)
    code = f"import sys; sys.path.insert(0, {folder!r}); {_PAIR_SOURCE}\nprint(*thruster_pair_us({name!r}, {wheels!r}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                         check=True)
    return tuple(float(x) for x in out.stdout.strip().splitlines()[-1].split())


def thrusters_main(before: str | None) -> None:
    """The thruster rows, old (``before``) and new alternating, each in a child process (module docstring)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)
    for name, wheels in THRUSTER_WHEELS:
        trees = (("before", before), ("after", here)) if before else (("after", here),)
        for label, folder in trees:
            thr, wheel = _child(folder, name, wheels)
            print(f"{name:22s} {label:6s} thruster {thr:8.3f} us  wheels {wheel:8.3f} us  ratio {thr / wheel:5.2f}",
                  flush=True)
    for name, wheels in THRUSTER_WHEELS[:1]:  # (an ensemble refused thrusters before)
        thr, wheel = ensemble_pair_us(name, wheels)
        print(f"{name:22s} ensemble of 100, per body-step: thruster {thr:8.3f} us  wheels {wheel:8.3f} us  "
              f"ratio {thr / wheel:5.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}", flush=True)


def rows(quick: bool = False) -> list[tuple[str, float]]:
    steps = 2_000 if quick else 20_000
    # compiled (or loaded from the disk cache) outside the timing; a call of a kernel not loaded yet runs its
    # Python (sim.core.jit.Kernel), which the first row measured before it waited here
    _load_kernels(load("cmg_fast_slew").settings)
    out = []
    for law, name in enumerate(cmg.STEERING_LAWS):
        out.append((f"cmg rk4 step, {name}, {steps} steps in one call (us/step)", cmg_us_per_step(law, steps, steps)))
        out.append((f"cmg rk4 step, {name}, one step per call (us/step)", cmg_us_per_step(law, steps, 1)))
    out.append(("wheel rk4 step, pyramid, Simulation.step, compiled (us/step)", wheel_us_per_step(steps)))
    out += wired_rows(steps)
    rng = np.random.default_rng(0)
    pos, dirs = rng.normal(size=(12, 3)), rng.normal(size=(12, 3))
    out.append(("PWPF step, compiled loop (us/step)", compiled_loop_us(_pwpf_loop)))
    out.append(("12-thruster wrench, compiled loop (us/call)",
                compiled_loop_us(_wrench_loop, pos, dirs, np.ones(12), np.full(12, 0.5))))
    out += thruster_vs_wheel_rows(steps)
    return out


if __name__ == "__main__":
    if "--goal-once" in sys.argv:   # one side's measurement, for goal_rows: a JSON line
        print(json.dumps(goal_once(int(sys.argv[sys.argv.index("--goal-once") + 1]))))
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--goal", action="store_true", help="the CMG goal's rows (cmg_fast_slew against its wheels)")
    parser.add_argument("--thrusters", action="store_true", help="only the thruster rows, in child processes")
    parser.add_argument("--ensemble", action="store_true",
                        help="the ensemble's CMG body-step against wheels, CMGs with thrusters")
    parser.add_argument("--before", help="with --goal or --thrusters: a copy of the old tree, measured alongside")
    args = parser.parse_args()
    if args.thrusters:
        thrusters_main(args.before)
    elif args.ensemble:
        ensemble_main()
    else:
        table = goal_rows(2_000 if args.quick else 20_000, args.before) if args.goal else rows(quick=args.quick)
        for label, value in table:
            print(f"{value:10.3f}  {label}")
