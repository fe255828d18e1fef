"""The spacecraft's step in its world through ``sim.api.run`` (issue 42's table), before and after, in one run.

``python -m bench.world_steps [--before DIR] [NAME ...]`` prints microseconds per step of the built-in
scenarios (default: sun_pointing, detumble, momentum_dumping, fly_on_estimate) as the issue measures them:
through ``sim.api.run`` with no rows kept (``every`` = 10^9), the difference of two durations (200 and 1,200
steps, so set-up falls out), best of three, in CPU time of the process (``time.process_time``: on a shared
machine wall time also counts the waits for a core).  With ``--before DIR`` (a checkout of the code before
the change, e.g. ``git archive e160f8c | tar -x -C DIR``) each scenario is measured there too, in a child
process, alternating with this tree's: old and new in one run.  The compiled world
(``sim.core.jit.load_all``; a run loads it by itself after ``WARM_AFTER`` states), the compiled advance and the
spacecraft's step are loaded first where the tree has them, and every other kernel the warm-up run calls.  The figures are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time

NAMES = ("sun_pointing", "detumble", "momentum_dumping", "fly_on_estimate")
#: Cases besides the built-in scenarios (``--rows``' table, issue 42): name -> (scenario, settings changed, short
#: and long steps).  The plain body's step is 0.05-0.15 us: 100,000-200,000 steps make tens of ms of CPU.
CASES = {
    "aircraft": ("default", {}, 1000, 201_000),
    "rk4_free": ("default", {"integrator": "rk4", "rates": (1.0, 0.2, -0.5), "dampers_on": False}, 1000, 101_000),
}
#: ``--rows`` without names: issue 42's table of a row every step against none.
ROW_NAMES = ("aircraft", "rk4_free", "sun_pointing", "detumble", "momentum_dumping", "nadir_pointing",
             "fly_on_estimate")


def us_per_step(name: str, short: int = 200, long: int = 1200, repeats: int = 3, every: int = 10**9) -> float:
    """CPU microseconds per step of ``name`` (a built-in scenario or one of :data:`CASES`) through sim.api.run,
    the best of ``repeats`` differences; a history row kept every ``every`` steps (default none: 10^9; 1 is the
    window's and ``--every 1``'s figure)."""
    from sim import api
    from sim.run.scenario import load

    name, changes, short, long = CASES.get(name, (name, {}, short, long))
    dt = load(name).settings.replace(**changes).dt
    _load_kernels()

    def run(steps):
        start = time.process_time()
        api.run(name, duration=steps * dt, every=every, force=True, **changes)
        return time.process_time() - start

    run(short)  # compile or load the kernels, warm the caches
    try:
        from sim.core import jit
        jit.wait_all()  # the kernels that run started loading in threads of their own: what is timed runs compiled
    except (ImportError, AttributeError):
        pass  # a tree before the kernels' loader
    return min((run(long) - run(short)) / (long - short) for _ in range(repeats)) * 1e6


def _load_kernels() -> None:
    """Every compiled kernel the tree has, loaded now (a long run loads each after its ``WARM_AFTER`` steps or
    states, or its calls' ``WARM_SECONDS``): the compiled advance, the spacecraft's step, the world."""
    try:
        from sim.core import jit
        jit.WARM_SECONDS = 0.0  # a kernel the warm-up run calls starts loading at its first call
    except (ImportError, AttributeError):
        pass
    try:
        from sim.core.jit import load_all  # every kernel by the one warm-up rule (sim.core.jit.Kernel)
        import sim.model.advance_craft  # their kernels' sample arguments
        import sim.model.world  # noqa: F401
        load_all(stream=False)
        return
    except ImportError:
        pass  # a tree before it: its modules' own load()
    for module in ("sim.core.advance", "sim.model.advance_craft", "sim.model.world"):
        try:
            __import__(module, fromlist=["load"]).load()
        except (ImportError, AttributeError):
            pass  # the code before that kernel


def state_us(name: str, states: int = 500, repeats: int = 3) -> float:
    """CPU microseconds of one ``World.state`` of ``name``'s settings, ``states`` states 0.1 s apart (IGRF
    samples every 10 s included), best of ``repeats``; the compiled world where the tree has it."""
    from sim.model import world
    from sim.run.scenario import load

    _load_kernels()
    w = world.World(load(name).settings)
    w.state(0.0)
    best = math.inf
    for _ in range(repeats):
        start = time.process_time()
        for i in range(states):
            w.state(i * 0.1)
        best = min(best, (time.process_time() - start) / states * 1e6)
    return best


def _child(folder: str, name: str, what: str = "us_per_step", every: int = 10**9) -> float:
    env = dict(os.environ, PYTHONPATH=folder)
    call = f"{what}({name!r})" if what != "us_per_step" else f"{what}({name!r}, every={every})"
    out = subprocess.run([sys.executable, "-c", f"from bench.world_steps import {what}; print({call})"], cwd=folder,
                         env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a checkout of the code before the change, measured alongside")
    parser.add_argument("--state", action="store_true", help="time World.state alone instead of the step")
    parser.add_argument("--every", type=int, default=10**9, help="a history row every N steps (default: none)")
    parser.add_argument("--repeat", type=int, default=1, help="measure old and new this many times, alternating")
    parser.add_argument("--rows", action="store_true",
                        help="each name with no rows and with a row every step (issue 42's 2x goal), old and new")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    args.names = args.names or (ROW_NAMES if args.rows else NAMES)
    if args.rows:
        return _rows_table(args)
    what = "state_us" if args.state else "us_per_step"
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    every = args.every
    for name in args.names:
        if args.before:
            # the old tree has no bench/world_steps.py (or an older one): give it this file's function
            os.makedirs(os.path.join(args.before, "bench"), exist_ok=True)
            with open(__file__) as src, open(os.path.join(args.before, "bench", "world_steps.py"), "w") as dst:
                dst.write(src.read())
            olds, news = [], []
            try:
                for _ in range(args.repeat):  # alternating: the machine's load falls on both alike
                    olds.append(_child(args.before, name, what, every))
                    news.append(_child(here, name, what, every))
            except subprocess.CalledProcessError:  # a scenario the old tree does not have
                print(f"{name:18s} before        - us  after {_child(here, name, what, every):8.2f} us", flush=True)
                continue
            old, new = min(olds), min(news)
            print(f"{name:18s} before {old:8.2f} us  after {new:8.2f} us  ({old / new:4.1f}x)", flush=True)
        else:
            print(f"{name:18s} {_child(here, name, what, every):8.2f} us", flush=True)
    return 0


def _rows_table(args) -> int:
    """For each name: no rows and a row every step, in the old tree (``--before``) and this one, alternating
    (best of ``--repeat`` rounds, each round a best of three); the ratio rows / no rows of each tree."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = [("new", here)]
    if args.before:
        os.makedirs(os.path.join(args.before, "bench"), exist_ok=True)
        with open(__file__) as src, open(os.path.join(args.before, "bench", "world_steps.py"), "w") as dst:
            dst.write(src.read())
        trees.insert(0, ("old", args.before))
    for name in args.names:
        best = {}
        for _ in range(args.repeat):
            for label, folder in trees:
                for every in (10**9, 1):
                    us = _child(folder, name, "us_per_step", every)
                    best[label, every] = min(best.get((label, every), math.inf), us)
        parts = [f"{label} {best[label, 10**9]:8.3f} / {best[label, 1]:8.3f} us ({best[label, 1] / best[label, 10**9]:5.1f}x)"
                 for label, _ in trees]
        print(f"{name:18s} " + "   ".join(parts) + "   (no rows / a row every step)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
