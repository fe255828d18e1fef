"""A year of a CubeSat (issue 42): the cost of a step of ``cubesat_year`` and the year it projects, before and after.

``python -m bench.cubesat_year [--before DIR] [--every N]`` prints the microseconds a step of the built-in
scenario ``cubesat_year`` costs through :func:`sim.api.run` (CPU time of the process, the difference of a
1,200-step and a 200-step run, best of three, every kernel loaded first, as :mod:`bench.world_steps`), with
no rows kept and with a row every ``N`` steps (default 600: a row a simulated minute, the rows decimated as a
year's run keeps them), and projects the whole year on one core: ``steps x us``.  The issue's goal: a year in an hour or
less, 11.4 us a step.  With ``--before DIR`` (a checkout of older code) the same settings are measured
there too, each side in a child process of its own, alternating (old code that has no such scenario runs
its settings, read from this tree's TOML file).  Figures in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

NAME = "cubesat_year"
#: The year's steps: a Julian year at dt 0.1 s.
YEAR_STEPS = 315_576_000
#: The issue's goal: a year in an hour on one core.
GOAL_US = 3600e6 / YEAR_STEPS
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOML = os.path.join(HERE, "assets", "scenarios", f"{NAME}.toml")


def us_per_step(every: int, toml: str = TOML, short: int = 200, long: int = 1200, repeats: int = 3) -> float:
    """CPU microseconds per step of the scenario's settings (read from ``toml``) through sim.api.run, a row kept
    every ``every`` steps: the best of ``repeats`` differences of a ``long`` and a ``short`` run."""
    import tomllib

    from sim import api
    from sim.model.settings import Settings

    with open(toml, "rb") as f:
        raw = tomllib.load(f)["settings"]
    settings = Settings(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})

    def run(steps):
        start = time.process_time()
        api.run(settings, duration=steps * settings.dt, every=every, force=True)
        return time.process_time() - start

    _load_kernels()
    run(short)  # compile or load the kernels, warm the caches
    try:
        from sim.core import jit
        jit.wait_all()  # the kernels that run started loading in threads (IGRF's): what is timed runs compiled
    except (ImportError, AttributeError):
        pass  # a tree before the kernels' loader
    return min((run(long) - run(short)) / (long - short) for _ in range(repeats)) * 1e6


def _load_kernels() -> None:
    """Every compiled kernel the tree has, loaded before the timing (a long run loads each after its warm-up
    steps: a year's run is compiled from its first seconds), as :mod:`bench.world_steps` does."""
    try:
        from sim.core import jit
        jit.WARM_SECONDS = 0.0
        import sim.model.advance_craft  # their kernels' sample arguments
        import sim.model.world  # noqa: F401
        jit.load_all(stream=False)
    except (ImportError, AttributeError):
        pass  # a tree before the kernels' loader


def _child(folder: str, every: int) -> float:
    env = dict(os.environ, PYTHONPATH=folder)
    code = (f"import importlib.util, sys; spec = importlib.util.spec_from_file_location('b', {__file__!r}); "
            f"b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b); "
            f"print(b.us_per_step({every}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def year_hours(us: float) -> float:
    """The year's CPU hours on one core at ``us`` microseconds a step."""
    return us * YEAR_STEPS / 3600e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a checkout of the code before the change, measured alongside")
    parser.add_argument("--every", type=int, default=600, help="a row every N steps (default 600: a minute)")
    args = parser.parse_args(argv)
    print(f"{NAME}: {YEAR_STEPS:,} steps a year; goal {GOAL_US:.1f} us a step (a year in an hour)")
    for every, what in ((10**9, "no rows"), (args.every, f"a row every {args.every} steps")):
        sides = [("before", args.before)] if args.before else []
        for side, folder in sides + [("after", HERE)]:
            us = _child(folder, every)
            print(f"  {what:24s} {side:6s} {us:8.1f} us a step   a year: {year_hours(us):6.1f} h", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
