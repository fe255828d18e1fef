"""The navigation inside the craft's compiled loop (sim/model/craft_nav.py, issue 42): many steps a call, the
sensors, the estimator and the torque held at the estimate between them, bit for bit with the Python step
(``Simulation._step_python``: sample, hold, step, then the gyro and the MEKF's propagation) and with the loop's own
Python source (``NUMBA_DISABLE_JIT=1``), across the ends of the noise blocks the loop returns at."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from sim.model import advance_craft as craft
from sim.model.simulation import Simulation, SimulationFault
from sim.run.scenario import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    craft.advance_craft.wait()


def _bits(x):
    return np.asarray(x, dtype=float).view(np.uint64)


def _everything(sim):
    """The true state, the row (the estimate's columns, the availability), what the navigation holds (estimate,
    covariance, rates, the timeline, the gyro's true bias), the torque held, and where each noise stream stands."""
    nav = sim.navigation
    p = nav.filter.p if nav.filter is not None else nav.p_att
    held = sim._law.value if sim._law is not sim._torque else ()
    streams = [s.streams.present()[1] for s in (nav.gyro, nav.star, nav.sun, nav.mag) if s is not None]
    return (np.concatenate([np.ravel(x) for x in ((*sim.q, *sim._w, sim._correction, sim.t, sim.steps), sim.row(),
                                                  nav.q, p, nav.rates, nav.available, held,
                                                  nav.gyro.true_bias if nav.gyro is not None else ())]), streams)


class _Counted:
    """advance_craft, its calls' steps counted."""

    def __init__(self, kernel):
        self.kernel, self.steps = kernel, []

    def __getattr__(self, name):
        return getattr(self.kernel, name)

    def __call__(self, *args):
        out = self.kernel(*args)
        self.steps.append(out[1])
        return out


#: Cases: the scenario, its changes, the chunks the steps are taken in (odd sizes: the calls end anywhere against
#: the blocks of 256 samples; cubesat_year's field samples every 100 steps).  sun_mag_triad's magnetometer reads
#: IGRF of the epoch's year computed in the loop (the run has no field of its own).
CASES = {"fly_on_estimate": ("fly_on_estimate", {}, (1, 254, 3, 700, 542)),
         "cubesat_year": ("cubesat_year", {}, (1, 17, 300, 1182)),
         "mekf": ("mekf", {}, (2, 511, 987)),
         "triad": ("sun_mag_triad", {}, (1, 300, 699)),
         "quest": ("sun_mag_triad", {"estimator": "quest"}, (1, 300, 699))}


@pytest.mark.parametrize("case", sorted(CASES))
def test_many_steps_a_call_bit_for_bit(case, monkeypatch):
    counted = _Counted(craft.advance_craft)
    monkeypatch.setattr(craft, "advance_craft", counted)
    name, changes, chunks = CASES[case]
    s = load(name).settings.replace(**changes)
    a, b = Simulation(s), Simulation(s)
    for chunk in chunks:
        a.step(chunk)
        b._step_python(chunk)
        (xa, sa), (xb, sb) = _everything(a), _everything(b)
        assert np.array_equal(_bits(xa), _bits(xb)), case
        assert sa == sb
    assert max(counted.steps) >= 100 and len(counted.steps) < sum(chunks) / 20  # the loop took many steps a call


def test_a_fault_inside_the_loop_is_todays():
    """The norm runs away at t = 315 s, step 630, inside a call of many steps: the same fault, the same last good
    state, the navigation as the Python step leaves it (the faulting step's samples taken once)."""
    s = load("fly_on_estimate").settings.replace(norm="none", rates=(1.0, 0.6, 0.3))
    a, b = Simulation(s), Simulation(s)
    a.step(300)
    b._step_python(300)
    with pytest.raises(SimulationFault) as fa:
        a.step(10_000)
    with pytest.raises(SimulationFault) as fb:
        b._step_python(10_000)
    assert str(fa.value) == str(fb.value) and a.steps == b.steps > 300
    (xa, sa), (xb, sb) = _everything(a), _everything(b)
    assert np.array_equal(_bits(xa), _bits(xb)) and sa == sb


def test_a_slerp_under_way_steps_one_a_call_then_the_loop(monkeypatch):
    """Flown on the estimate in inertial pointing with a SLERP under way: one step a call (Python makes the command
    between), the navigation in Python between; once the SLERP ends, the loop with the navigation inside."""
    counted = _Counted(craft.advance_craft)
    monkeypatch.setattr(craft, "advance_craft", counted)
    s = load("fly_on_estimate").settings.replace(pointing="inertial", slerp_time=10.0)
    a, b = Simulation(s), Simulation(s)
    for sim in (a, b):
        sim.set("command_deg", (30.0, 10.0, -20.0))
    a.step(600)
    b._step_python(600)
    (xa, sa), (xb, sb) = _everything(a), _everything(b)
    assert np.array_equal(_bits(xa), _bits(xb)) and sa == sb
    assert counted.steps[:20] == [1] * 20 and max(counted.steps) > 100


def _loop_run(name, steps):
    sim = Simulation(load(name).settings)
    sim.step(steps)
    x, s = _everything(sim)
    return x.tolist(), s


#: The runs compared with the loop's Python source: scenario and steps.
LOOPED = (("fly_on_estimate", 300), ("cubesat_year", 120), ("sun_mag_triad", 40))


def test_the_loops_python_source_gives_the_compiled_numbers():
    """The loop (advance_craft, craft_nav, sensing.navigation) run as its Python source with the JIT off, in a
    child process, many steps a call: the compiled loop's numbers to the bit."""
    code = ("import json, sys; from sim.model import advance_craft as c; c.advance_craft.wait(); "
            "from tests.sim.model.test_navigation_loop import _loop_run; "
            "json.dump([_loop_run(n, k) for n, k in " + repr(LOOPED) + "], sys.stdout)")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    slow = json.loads(out.stdout)
    for (xs, ss), (name, steps) in zip(slow, LOOPED):
        xc, sc = _loop_run(name, steps)
        assert np.array_equal(_bits(xc), _bits(xs)) and sc == ss, name


def test_the_tuple_of_a_run_without_navigation_has_the_loops_types():
    """The navigation tuple of a run without sensors (``ctl[on]`` 0, nothing to run) has, field by field
    (:data:`sim.model.craft_nav.NAV_FIELDS`), numba's type of the arrays a navigated run hands the craft kernel
    (:meth:`Navigation.loop_arrays`): one compiled loop serves both, never a second compilation or a typing error.
    Made anew here (``_none``): :data:`NO_NAV` is made once, when the module is imported."""
    import numba

    from sim.model import craft_nav

    sim = Simulation(load("fly_on_estimate").settings)
    real = sim._nav.loop_arrays(sim.settings.dt, True, True, False)
    none = craft_nav._none()
    assert len(none) == len(real) == len(craft_nav.NAV_FIELDS)
    for name, a, b in zip(craft_nav.NAV_FIELDS, real, none):
        assert numba.typeof(b) == numba.typeof(a), name
    assert none[0].shape == (craft_nav.CTL_SIZE,) and not none[0].any()  # ctl[on] 0: the loop runs no navigation
    assert all(a.size == 0 for a in none[1:])


def test_zero_steps_of_a_spacecraft_flown_on_its_estimate_change_no_readout():
    """``step(0)`` takes no step: the history row after it (the torque held over the last step, the wheels'
    commands, the law's torque at the estimate) is the row before it, bit for bit, on fly_on_estimate whose
    steps go through the craft kernel; and the run goes on as a twin's that never took it."""
    settings = load("fly_on_estimate").settings
    a, b = Simulation(settings), Simulation(settings)
    a.step(3)
    b.step(3)
    before = np.array(a.snapshot().row())
    a.step(0)
    assert a.steps == 3
    assert np.array_equal(_bits(a.snapshot().row()), _bits(before))
    a.step(2)
    b.step(2)
    assert np.array_equal(_bits(a.snapshot().row()), _bits(b.snapshot().row()))
