"""The navigation loop's one source (issue 42): the compiled sensors and filter (sim.gnc.sensing, sim.gnc.kalman)
give bit for bit the numbers of the same source run as Python (``NUMBA_DISABLE_JIT=1``, numba's math and the
Python path's ``math`` both libm), for every sensor and each estimator that reads them."""

import json
import math
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


def test_a_body_that_blows_up_on_its_estimate_is_todays_fault():
    """A run flown on the MEKF whose state overflows ends in SimulationFault at the last good state (the
    compiled sensors and filter pass inf and NaN on, numpy's error model, and raise nothing of their own),
    the estimate of that state still finite."""
    from dataclasses import replace

    from sim.model.simulation import Simulation, SimulationFault
    from sim.run.scenario import load

    s = replace(load("fly_on_estimate").settings, gains=(1e6, 1e6, 1e6), dampers=(1e6, 1e6, 1e6),
                inertia=(1e-6, 1e-6, 1e-6, 0.0, 0.0, 0.0), wheels="none")
    sim = Simulation(s)
    with pytest.raises(SimulationFault, match="no longer finite"):
        sim.step(2000)
    assert sim.t < 5.0
    assert np.all(np.isfinite(sim.navigation.q)) and np.all(np.isfinite(sim.attitude))


def test_the_compiled_loop_passes_nan_and_inf_on_and_raises_nothing():
    """Fed a non-finite true state, every sensor's kernel and the filter's return NaN or inf in the estimate
    (numpy's error model: the fault is found by the finiteness check after the step, as on the Python path)
    and raise nothing of their own."""
    from dataclasses import replace

    from sim.model.navigation import Navigation
    from sim.model.world import World
    from sim.run.scenario import load

    s = replace(load("fly_on_estimate").settings, sun_sensors=True, magnetometer=1e-7, star_tracker=(10.0, 10.0),
                dt=0.1)
    world = World(s).state(0.0)
    for bad in (math.nan, math.inf):
        nav = Navigation(s, [0], (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0))
        nav.start_step(0.0, 0.1, (bad, 0.0, 0.0, 1.0), world)
        nav.end_step((bad, 0.0, 0.0), (0.0, 0.0, 0.0), 0.1)
        assert not np.all(np.isfinite(nav.q)) and not np.all(np.isfinite(nav.rates))
