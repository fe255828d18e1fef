"""The spacecraft's own step compiled (issue 42, "the step in its world"), before and after, in one run.

``python -m bench.craft_steps [--before DIR] [NAME ...]`` prints microseconds per step of the built-in
scenarios (default: detumble, sun_pointing, reaction_wheels, momentum_dumping) as the issue measures them:
through ``sim.api.run`` with no rows kept (``every`` = 10^9), the difference of two durations (200 and
1,200 steps, so set-up falls out), best of three, CPU time of the process (``time.process_time``).  The
compiled kernels are loaded first in each tree (the plain advance and the spacecraft's step: ``Kernel.wait``, or before it the modules' ``load``):
what a long run reaches after :data:`sim.core.advance.WARM_AFTER` steps.  With
``--before DIR`` (``git archive <commit> | tar -x -C DIR``) each scenario is measured there too, in a
child process, alternating with this tree's.  The figures are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

NAMES = ("detumble", "sun_pointing", "reaction_wheels", "momentum_dumping")


def us_per_step(name: str, short: int = 200, long: int = 1200, repeats: int = 3) -> float:
    """CPU microseconds per step of ``name`` through sim.api.run with the kernels loaded, best of ``repeats``."""
    from sim import api
    from sim.run.scenario import load

    try:
        from sim.core.jit import load_all  # noqa: F401  (a tree with the one warm-up rule, sim.core.jit.Kernel)
        from sim.core.advance import advance
        from sim.model.advance_craft import advance_craft
        advance.wait()  # the body's kernels, as the modules' load() of a tree before loaded them
        advance_craft.wait()
    except ImportError:  # a tree before it: its modules' own load()
        try:
            from sim.model.advance_craft import load as load_kernels
        except ImportError:  # a tree before the spacecraft's step
            from sim.core.advance import load as load_kernels
        load_kernels()
    dt = load(name).settings.dt

    def run(steps):
        start = time.process_time()
        api.run(name, duration=steps * dt, every=10**9, force=True)
        return time.process_time() - start

    run(short)  # warm the caches
    return min((run(long) - run(short)) / (long - short) for _ in range(repeats)) * 1e6


def _child(folder: str, name: str) -> float:
    env = dict(os.environ, PYTHONPATH=folder)
    code = f"import sys; sys.path.insert(0, {folder!r}); {_SOURCE}\nprint(us_per_step({name!r}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


with open(__file__) as _f:  # this file's function, given to the old tree (which has no bench/craft_steps.py)
    _SOURCE = "import time\n" + _f.read().split("def us_per_step", 1)[1].split("\n\n\ndef _child", 1)[0].join(
        ["def us_per_step", ""])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a checkout of the code before the change, measured alongside")
    parser.add_argument("names", nargs="*", default=NAMES)
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in args.names:
        if args.before:
            old = _child(args.before, name)
            new = _child(here, name)
            print(f"{name:18s} before {old:8.1f} us  after {new:8.1f} us  ({old / new:4.1f}x)", flush=True)
        else:
            print(f"{name:18s} {_child(here, name):8.1f} us", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
