"""Each formula of sim/ is written once: on floats (one body) and on numpy columns (the ensemble) it agrees.

The same function is evaluated body by body with ``ops = FLOAT`` (Python
floats) and at once on columns with ``ops = COLUMN`` (numpy rows, one value
per body).  Where a formula uses only arithmetic, comparisons, selections and
the square root (correctly rounded in both), the two must agree bit for bit:
IEEE 754 arithmetic rounds a float64 the same in Python and in numpy.  Where
it goes through sin, atan2 or hypot, numpy's own implementations may round
differently from libm's in the last place (sim/core/ops.py says so), and the
tolerance is a few ulps of the O(1) results.

The states are random and generic (quaternions not exactly unit, all
products of inertia non-zero), and include the branches: the shortest-path
choice both ways, the limiter active and not, every axis flag, the singular
aircraft angles at theta = +-90 deg, and the three SLERP branches.
"""

import math

import numpy as np
import pytest

from sim.core import algebra, angles, control, energy, integrators, interpolation, multiplier, norm
from sim.core.body import Body
from sim.core.ops import COLUMN
from sim.core.quaternion import from_aircraft_angles

N = 64
RNG = np.random.default_rng(20)
GENERAL = Body((1.2, 1.7, 2.1, 0.15, -0.25, 0.1))
ULPS = 8 * np.finfo(float).eps  # a few ulps of an O(1) result


def _quaternions(n, rng, stretch=1e-3):
    """Random quaternions of length 1 +- stretch, as a (4, n) array."""
    q = rng.normal(size=(4, n))
    return q / np.linalg.norm(q, axis=0) * (1.0 + stretch * rng.uniform(-1.0, 1.0, n))


Q = _quaternions(N, RNG)
W = RNG.normal(size=(3, N))
QC = _quaternions(N, RNG, stretch=0.0)
P = RNG.normal(size=(4, N))


def _col(a):
    return tuple(np.asarray(a, dtype=float))


def _body(a, j):
    return tuple(float(x) for x in np.asarray(a)[:, j])


def _per_body(f, *arrays):
    """``f`` on floats, body by body, stacked into arrays (one row per output component)."""
    out = [f(*(_body(a, j) for a in arrays)) for j in range(N)]
    return np.array(out).T


def assert_bits(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = np.broadcast_arrays(a, b)
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), np.abs(a - b).max()


def assert_ulps(a, b, tol=ULPS):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=tol)


# ----------------------------------------------------------- norm modes
@pytest.mark.parametrize("mode", sorted(norm.NORM_MODES))
def test_norm_modes_agree_bit_for_bit(mode):
    f = norm.NORM_MODES[mode]
    floats = _per_body(lambda q: (*f(q)[0], f(q)[1]), Q)
    q, c = f(_col(Q), COLUMN)
    assert_bits(floats[:4], np.array(np.broadcast_arrays(*q)))
    assert_bits(floats[4], np.broadcast_to(c, (N,)))


# ---------------------------------------------------------- torque model
@pytest.mark.parametrize("shortest_path", [True, False])
def test_quaternion_error_and_controller_agree_bit_for_bit(shortest_path):
    gains = (6.0, 10.0, 12.0)
    floats = _per_body(lambda q, qc: control.quaternion_error(q, qc, shortest_path), Q, QC)
    assert_bits(floats, control.quaternion_error(_col(Q), _col(QC), shortest_path, COLUMN))
    if shortest_path:  # both choices are taken somewhere, so the selection is exercised
        took_minus = np.abs(floats - (QC - Q)).max(axis=0) > 0
        assert took_minus.any() and not took_minus.all()
    for axes in [(True, True, True), (True, False, True), (False, True, False)]:
        floats = _per_body(lambda q, qc: control.quaternion_controller_torque(q, qc, gains, axes, shortest_path),
                           Q, QC)
        cols = control.quaternion_controller_torque(_col(Q), _col(QC), gains, axes, shortest_path, COLUMN)
        assert_bits(floats, np.array(np.broadcast_arrays(*cols, np.zeros(N))[:3]))


def test_damper_and_limiter_agree_bit_for_bit():
    k = (3.0, 4.0, 6.0)
    assert_bits(_per_body(lambda w: control.damper_torque(w, k), W), control.damper_torque(_col(W), k))
    limits = (0.5, 1.0, 2.0)  # N(0, 1) torques: some clipped, some not, on each axis
    floats = _per_body(lambda t: control.limit(t, limits), W)
    assert_bits(floats, control.limit(_col(W), limits, COLUMN))
    assert (np.abs(floats) < np.array(limits)[:, None]).any(axis=1).all()
    assert (np.abs(floats) == np.array(limits)[:, None]).any(axis=1).all()


@pytest.mark.parametrize("controller", ["none", "quaternion"])
@pytest.mark.parametrize("dampers_on", [False, True])
@pytest.mark.parametrize("limiter_on", [False, True])
def test_torque_model_agrees_bit_for_bit(controller, dampers_on, limiter_on):
    gains = RNG.uniform(1.0, 12.0, size=(3, N))  # per body, as with a gains grid
    scalar, column = control.TorqueModel(), control.TorqueModel(COLUMN)
    for tm in (scalar, column):
        tm.command, tm.dampers_on, tm.controller = (0.3, -0.2, 0.1), dampers_on, controller
        tm.limiter_on, tm.limits = limiter_on, (1.0, 0.5, 0.8)
    column.gains, column.qc = _col(gains), _col(QC)
    floats = []
    for j in range(N):
        scalar.gains, scalar.qc = _body(gains, j), _body(QC, j)
        floats.append(scalar(_body(Q, j), _body(W, j)))
    cols = column(_col(Q), _col(W))
    assert_bits(np.array(floats).T, np.array(np.broadcast_arrays(*cols, np.zeros(N))[:3]))


# ------------------------------------------------- angles and the Euler controller
def _with_singular(q):
    """``q`` with a few columns at theta = +-90 deg exactly (the singular aircraft angles)."""
    q = q.copy()
    singular = [(0.3, math.pi / 2, -1.0), (-2.0, -math.pi / 2, 0.5), (0.0, math.pi / 2, 0.0)]
    for j, (psi, theta, phi) in enumerate(singular):
        q[:, j] = from_aircraft_angles(psi, theta, phi)
    return q


def test_cayley_entries_agree_bit_for_bit():
    assert_bits(_per_body(angles.cayley_entries, Q), angles.cayley_entries(_col(Q)))


def test_aircraft_angles_agree_to_an_ulp_including_the_singular_ones():
    q = _with_singular(Q)
    floats = _per_body(angles.aircraft_angles, q)
    cols = np.array(angles.aircraft_angles(_col(q), COLUMN))
    assert_ulps(floats, cols)
    assert floats[0, 0] == cols[0, 0] == 0.0  # the singular branch reports psi = 0 in both


def test_euler_controller_agrees_to_an_ulp():
    gains, command = (6.0, 10.0, 12.0), (0.2, -0.4, 1.0)
    for axes in [(True, True, True), (False, True, True)]:
        floats = _per_body(lambda a: control.euler_controller_torque(a, command, gains, axes), W)
        cols = control.euler_controller_torque(_col(W), command, gains, axes, COLUMN)
        assert_ulps(floats, np.array(np.broadcast_arrays(*cols, np.zeros(N))[:3]), tol=12 * ULPS)


@pytest.mark.parametrize("fold", [True, False])
def test_rotation_angle_agrees_to_an_ulp(fold):
    qn = Q / np.linalg.norm(Q, axis=0)
    angle = algebra.rotation_angle if fold else algebra.path_angle
    floats = _per_body(lambda p, q: (angle(p, q),), qn, QC)[0]
    assert_ulps(floats, angle(_col(qn), _col(QC), COLUMN))


# ------------------------------------------------------------------ SLERP
def test_slerp_columns_agree_with_one_path_per_body_on_every_branch():
    qe = tuple(float(x) for x in from_aircraft_angles(0.4, -0.2, 0.1))
    qi = QC.copy()
    qi[:, 1] = qe                                               # linear: no angle at all
    qi[:, 2] = from_aircraft_angles(0.4 + math.radians(0.5), -0.2, 0.1)  # linear: below 1 degree
    qi[:, 3] = [-x for x in qe]                                 # antipodal (without the shortest path)
    columns = interpolation.SlerpColumns(qi, qe, shortest_path=False)
    paths = [interpolation.SlerpPath(qi[:, j], qe, shortest_path=False) for j in range(N)]
    assert [p.mode for p in paths[1:4]] == ["linear", "linear", "antipodal"]
    assert paths[0].mode == "sine"
    for t in (0.0, 0.3, 0.999, 1.0):
        floats = np.array([p(t) for p in paths]).T
        assert_ulps(floats, columns(t))


@pytest.mark.parametrize("shortest_path", [True, False])
def test_slerp_columns_evaluate_the_single_source_formulas_bit_for_bit(shortest_path):
    """The ensemble's SLERP (buffers kept between steps, sin(a) once) is the single-source formulas' arithmetic."""
    qe = tuple(float(x) for x in from_aircraft_angles(0.4, -0.2, 0.1))
    qi = np.concatenate([QC, Q / np.linalg.norm(Q, axis=0)], axis=1)
    qi[:, 1] = qe                                               # linear: no angle at all
    qi[:, 2] = from_aircraft_angles(0.4 + math.radians(0.5), -0.2, 0.1)  # linear: below 1 degree
    qi[:, 3] = [-x for x in qe]                                 # antipodal without the shortest path
    columns = interpolation.SlerpColumns(qi, qe, shortest_path=shortest_path)
    assert columns.linear.sum() >= 2 and bool(columns.antipodal.any()) != shortest_path
    for t in (-0.5, 0.0, 1e-9, 0.25, 0.5, 0.999, 1.0, 2.0):
        assert_bits(columns.formulas(t), columns(t))
    first = columns(0.3)
    columns(0.7)
    assert np.array_equal(first, columns.formulas(0.3)), "each call returns a new array"


# ----------------------------------------------------- energy and dynamics
def test_energy_and_momentum_agree_bit_for_bit():
    jr = GENERAL.j_rows
    assert_bits(_per_body(lambda w: energy.body_momentum(w, jr), W), energy.body_momentum(_col(W), jr))
    assert_bits(_per_body(lambda w: (energy.kinetic_energy(w, jr),), W)[0], energy.kinetic_energy(_col(W), jr))
    floats = _per_body(lambda q, w: energy.inertial_momentum(angles.cayley_entries(q), energy.body_momentum(w, jr)),
                       Q, W)
    cols = energy.inertial_momentum(angles.cayley_entries(_col(Q)), energy.body_momentum(_col(W), jr))
    assert_bits(floats, cols)
    assert_bits(_per_body(lambda q, p: (multiplier.multiplier(q, p, jr),), Q, P)[0],
                multiplier.multiplier(_col(Q), _col(P), jr))


@pytest.mark.parametrize("name, form", [("half-quat", None), ("rk4", None), ("full-quat", "hoffmann"),
                                        ("full-quat", "raw"), ("full-quat", "lagrange")])
def test_integrators_with_the_torque_model_agree_bit_for_bit(name, form):
    step = integrators.integrator(name, form or "hoffmann")
    scalar, column = control.TorqueModel(), control.TorqueModel(COLUMN)
    for tm in (scalar, column):
        tm.dampers_on, tm.controller, tm.limiter_on, tm.qc = True, "quaternion", True, (0.1, -0.2, 0.3, 0.927)
    p0 = P if name == "full-quat" else None
    floats = []
    for j in range(N):
        q, w, p = step(_body(Q, j), _body(W, j), None if p0 is None else _body(p0, j), 0.01, scalar, GENERAL)
        floats.append((*q, *w, *(p or ())))
    q, w, p = step(_col(Q), _col(W), None if p0 is None else _col(p0), 0.01, column, GENERAL)
    assert_bits(np.array(floats).T, np.array([*q, *w, *(p or ())]))
