"""History rows written by the compiled advance (issue 42): the same bits as the Python row after each step.

:meth:`Simulation.step_rows` takes ``n`` steps and fills a row after each: where :func:`sim.core.advance.covers`
the body the compiled loop writes them (:func:`sim.core.row_formula.plain_row`), everywhere else one step and
one :meth:`Simulation.row` at a time.  The reference is a second body stepped one step at a time whose rows are
its :meth:`Snapshot.row` (the layout of :func:`sim.model.rows.history_row`, written independently of
``plain_row``'s), compared as float64 bit patterns.  The angle, momentum and energy columns are checked against
scipy and the conservation laws as well, so a formula wrong in both paths alike would fail too.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import advance as compiled
from sim.model.rows import history_columns_of
from sim.model.simulation import Simulation, SimulationFault
from sim.run.scenario import builtin_names, load

GENERAL = (1.2, 1.7, 2.1, 0.15, -0.25, 0.1)   # every product of inertia non-zero

#: Plain bodies the compiled loop covers: each integrator, each norm mode, the torque law's branches.
COVERED = {
    "default": {},
    "rk4, torque-free": {"integrator": "rk4", "rates": (1.0, 0.2, -0.5), "dampers_on": False},
    "rk4, general inertia, controller": {"integrator": "rk4", "inertia": GENERAL, "controller": "quaternion",
                                         "command_deg": (170.0, -20.0, 50.0), "slerp_time": 0.0, "limiter_on": True,
                                         "shortest_path": True},
    "elimination": {"norm": "elimination", "rates": (1.0, 2.0, 3.0), "dampers_on": False},
    "renormalize, command torque": {"norm": "renormalize", "torque": (0.1, -0.2, 0.05), "rates": (0.3, 0.0, 1.0)},
}
#: Bodies the compiled loop does not cover: their rows go through the Python row, one step at a time.
NOT_COVERED = {
    "full-quat with P": {"integrator": "full-quat", "rates": (1.0, 0.2, -0.5)},
}


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    compiled.advance.wait()  # else a process loads it only after sim.core.advance.WARM_AFTER steps in Python


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


def _reference(sim, n):
    rows = []
    for _ in range(n):
        sim.step(1)
        rows.append(sim.snapshot().row())
    return np.array(rows)


def _batch(sim, n):
    out = np.full((n, len(history_columns_of(sim.settings))), np.nan)
    sim.step_rows(n, out)
    return out


@pytest.mark.parametrize("name", list(COVERED))
def test_compiled_rows_are_the_python_rows_bit_for_bit(name):
    a, b = Simulation(**COVERED[name]), Simulation(**COVERED[name])
    assert a._packed(10**6) is not None, "these settings should step compiled"
    rows = _batch(a, 1500)
    assert np.array_equal(_bits(rows), _bits(_reference(b, 1500)))
    assert np.array_equal(_bits(a.q), _bits(b.q)) and a.steps == b.steps == 1500


@pytest.mark.parametrize("name", list(NOT_COVERED))
def test_rows_of_bodies_the_loop_does_not_cover_are_the_python_rows(name):
    a, b = Simulation(**NOT_COVERED[name]), Simulation(**NOT_COVERED[name])
    assert np.array_equal(_bits(_batch(a, 300)), _bits(_reference(b, 300)))


@pytest.mark.parametrize("name", builtin_names())
def test_rows_of_every_builtin_scenario_are_the_python_rows(name):
    settings = load(name).settings
    a, b = Simulation(settings), Simulation(settings)
    n = max(3, min(200, round(2.0 / settings.dt)))
    assert np.array_equal(_bits(_batch(a, n)), _bits(_reference(b, n)))


def test_row_k_is_the_state_after_step_k_plus_one():
    """Not the state before the step: the time column and the state of each row are those after the step."""
    settings = COVERED["rk4, torque-free"]
    a, b = Simulation(**settings), Simulation(**settings)
    rows = _batch(a, 50)
    cols = history_columns_of(a.settings)
    t, q1 = cols.index("t"), cols.index("q1")
    for k in range(50):
        b.step(1)
        assert rows[k, t] == b.t == (k + 1) * b.settings.dt
        assert tuple(rows[k, q1:q1 + 4]) == b.q


def test_compiled_rows_against_scipy_and_the_conservation_laws():
    """Torque-free rk4 with a general inertia: the angle columns are scipy's (Hoffmann's Q is the conjugate of
    scipy's ZYX quaternion, docs/NOTES), the energy is 1/2 w J w, the inertial momentum keeps its first value."""
    sim = Simulation(integrator="rk4", inertia=GENERAL, rates=(1.0, 0.2, -0.5), dampers_on=False, dt=0.001)
    assert sim._packed(10**6) is not None
    rows = _batch(sim, 2000)
    c = {name: i for i, name in enumerate(history_columns_of(sim.settings))}
    q = rows[:, [c["q1"], c["q2"], c["q3"], c["q4"]]]
    conj = q * np.array((-1.0, -1.0, -1.0, 1.0))
    zyx = np.degrees(Rotation.from_quat(conj).as_euler("ZYX"))
    assert np.allclose(rows[:, [c["psi_deg"], c["theta_deg"], c["phi_deg"]]], zyx, rtol=0, atol=1e-9)
    jxx, jyy, jzz, jxy, jxz, jyz = GENERAL
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = rows[:, [c["wx"], c["wy"], c["wz"]]]
    assert np.allclose(rows[:, c["energy"]], 0.5 * np.einsum("ni,ij,nj->n", w, j, w), rtol=1e-13, atol=0)
    h = rows[:, [c["hx"], c["hy"], c["hz"]]]
    h_ref = Rotation.from_quat(conj).apply(w @ j)  # C^T J w, C^T the body-to-inertial rotation
    assert np.allclose(h, h_ref, rtol=0, atol=1e-12)
    assert np.allclose(h, h[0], rtol=0, atol=1e-9)   # conserved without torque
    assert np.allclose(rows[:, c["four_t"]], 4.0 * rows[:, c["energy"]], rtol=0, atol=0)
    assert np.all(rows[:, [c["tx"], c["ty"], c["tz"]]] == 0.0)


def test_a_fault_keeps_the_rows_of_the_good_steps():
    settings = {"norm": "none", "rates": (3.0, 1.0, 2.0), "dampers_on": False}
    a, b = Simulation(**settings), Simulation(**settings)
    out = np.full((5000, len(history_columns_of(a.settings))), np.nan)
    with pytest.raises(SimulationFault, match="norm error"):
        a.step_rows(5000, out)
    good = a.steps
    assert 0 < good < 5000 and np.all(np.isnan(out[good:]))
    assert np.array_equal(_bits(out[:good]), _bits(_reference(b, good)))
    assert math.isfinite(a.t)
