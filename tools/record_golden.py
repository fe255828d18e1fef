"""Record the golden outputs of every built-in scenario (tests/golden/, read by tests/project/test_golden.py).

Run once, on the code before a change that must not change the numbers (issue 42: the compiled kernels)::

    PYTHONPATH=. python -m tools.record_golden [NAME ...]

For each scenario, through :func:`sim.api.run` (the CSV's columns, every comparison body included):

* ``first``: the first 1,000 steps, every 10th row (101 rows, t = 0 and step 1,000 among them);
* ``whole``: the whole run, about 100 rows evenly spaced (the last row always), where the run takes
  less than ``--max-seconds`` here;
* ``spread``: per column of ``whole``, the largest difference between the run and the same run with
  its initial state moved by one ulp (:func:`one_ulp`): the rounding the dynamics amplify.  A
  scenario whose ``spread`` exceeds 1e-10 of the column's scale amplifies rounding; the test then
  accepts a difference up to that spread (issue 42, "Done when") and no more;
* ``spread_rows``: the same difference row by row (``spread`` is its largest per column), so a test that
  checks only a prefix of the whole run accepts only the spread of that prefix.

One ``<name>.npz`` per scenario, written through a temporary file.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

from sim import api
from sim.run.scenario import builtin_names, load

FIRST_STEPS = 1000
FIRST_EVERY = 10
WHOLE_ROWS = 100
HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "golden")


def _matrix(result: dict) -> tuple:
    cols = tuple(result)
    return cols, np.column_stack([np.asarray(result[c], dtype=float) for c in cols])


def whole_every(name: str) -> tuple:
    """The whole run's steps and the decimation used for it."""
    sc = load(name)
    steps = round(sc.duration / sc.settings.dt)
    return steps, max(1, -(-steps // WHOLE_ROWS))


def one_ulp(settings) -> dict:
    """The initial state moved by one ulp: the largest of the body rates and the angles moved to the next float
    up, or with the body at rest at zero angles, psi by 2**-52 rad (one ulp of the quaternion's scalar)."""
    rates, angles = list(settings.rates), list(settings.angles_deg)
    big = max(range(6), key=lambda i: abs(rates[i]) if i < 3 else abs(math.radians(angles[i - 3])))
    if big < 3 and rates[big] != 0.0:
        rates[big] = math.nextafter(rates[big], math.inf)
        return {"rates": tuple(rates)}
    i = big - 3 if big >= 3 else 0
    angles[i] = math.nextafter(angles[i], math.inf) if angles[i] != 0.0 else math.degrees(2.0**-52)
    return {"angles_deg": tuple(angles)}


def record(name: str, max_seconds: float) -> dict:
    sc = load(name)
    dt = sc.settings.dt
    cols, first = _matrix(api.run(name, duration=FIRST_STEPS * dt, every=FIRST_EVERY, force=True))
    out = {"columns": np.array(cols), "first": first}
    steps, every = whole_every(name)
    t0 = time.perf_counter()
    per_step = None
    api.run(name, duration=100 * dt, every=10**9, force=True)
    per_step = (time.perf_counter() - t0) / 100
    if per_step * steps < max_seconds:
        _, whole = _matrix(api.run(name, every=every, force=True))
        _, other = _matrix(api.run(name, every=every, force=True, **one_ulp(sc.settings)))
        out["whole"] = whole
        out["spread_rows"] = np.abs(other - whole)
        out["spread"] = out["spread_rows"].max(axis=0)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--max-seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    os.makedirs(HERE, exist_ok=True)
    for name in args.names or builtin_names():
        t0 = time.perf_counter()
        data = record(name, args.max_seconds)
        path = os.path.join(HERE, f"{name}.npz")
        tmp = path + ".tmp.npz"
        np.savez_compressed(tmp, **data)
        os.replace(tmp, path)
        print(f"{name}: {len(data['columns'])} columns, whole run {'yes' if 'whole' in data else 'no'}, "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
