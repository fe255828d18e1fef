"""The navigation loop's one source (issue 42): the compiled sensors and filter (sim.gnc.sensing, sim.gnc.kalman)
give bit for bit the numbers of the same source run as Python (``NUMBA_DISABLE_JIT=1``, numba's math and the
Python path's ``math`` both libm), for every sensor and each estimator that reads them."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from sim import api

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CASES = {
    # an MEKF updated by the star tracker, the coarse sun sensors and the magnetometer, flown on its estimate
    "mekf, every sensor": ("fly_on_estimate", 20.0, {"sun_sensors": True, "magnetometer": 1e-7,
                                                     "star_tracker": [10.0, 10.0], "dt": 0.1}),
    "triad": ("sun_mag_triad", 30.0, {}),
    "quest": ("sun_mag_triad", 30.0, {"estimator": "quest"}),
}


def _run(name, duration, changes):
    r = api.run(name, duration=duration, every=1, **changes)
    return {k: np.asarray(v, float).tolist() for k, v in r.items() if np.asarray(v).dtype.kind in "fb"}


@pytest.fixture(scope="module")
def python_path():
    """The cases run with the JIT off, in a child process."""
    code = ("import json, sys; from tests.sim.model.test_navigation_compiled import CASES, _run; "
            "json.dump({k: _run(*v) for k, v in CASES.items()}, sys.stdout)")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_navigation_is_the_python_bit_for_bit(case, python_path):
    compiled = _run(*CASES[case])
    slow = python_path[case]
    assert sorted(compiled) == sorted(slow)
    for column in compiled:
        a, b = np.array(compiled[column]), np.array(slow[column])
        assert np.array_equal(a, b, equal_nan=True), (case, column, np.nanmax(np.abs(a - b)))
    moved = np.array(compiled["qe1"])
    assert np.ptp(moved) > 0.0      # the estimate moves: the loop ran
