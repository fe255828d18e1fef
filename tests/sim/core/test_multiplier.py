"""The Lagrange multiplier of the norm constraint (sim.core.multiplier), Sherif et al.

Sherif's Euler parameters p and L map to Hoffmann's Q and the first three rows
of V(Q).  References: Sherif's identities (10)-(12), the closed-form inverse
(35) of the augmented mass matrix, the value lambda = 4T = 2 w.J w for exact
motion (30), the non-uniqueness of the generalized force (section 4), the
second derivative of Q along the exact motion (finite differences of a fine
rk4 trajectory, and the analytic derivative of dQ/dt = -1/2 (w, 0) (x) Q).
"""

import numpy as np
import pytest

from sim.core import integrators as integ
from sim.core import multiplier as mult
from sim.core.body import Body
from sim.core.quaternion import v_matrix
from sim.model.simulation import Simulation

W0 = (1.0, 0.2, -0.5)
BODIES = {
    "hoffmann": Body(),
    "general": Body((0.8, 1.2, 1.7, 0.05, 0.1, -0.07)),
    "sphere": Body((1.0, 1.0, 1.0, 0.0, 0.0, 0.0)),
}


def hamilton(a, b):
    av, a4 = np.asarray(a[:3]), a[3]
    bv, b4 = np.asarray(b[:3]), b[3]
    return np.append(a4 * bv + b4 * av + np.cross(av, bv), a4 * b4 - av @ bv)


def random_state(seed, unit=True):
    """(Q, w, P = dQ/dt, torque) with P from the kinematics written here."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=4)
    if unit:
        q /= np.linalg.norm(q)
    w = rng.normal(size=3)
    p = -0.5 * hamilton(np.append(w, 0.0), q)
    return q, w, p, rng.normal(size=3)


SEEDS = range(12)


# ----------------------------------------------------- Sherif's identities
@pytest.mark.parametrize("seed", SEEDS)
def test_sherif_identities_for_v_matrix_rows(seed):
    # (10) L L^T = I, (11) L^T L = I4 - p p^T, (12) L p = 0, Ldot pdot = 0
    q, w, p, _ = random_state(seed)
    L = v_matrix(q)[:3]
    Ld = v_matrix(p)[:3]
    np.testing.assert_allclose(L @ L.T, np.eye(3), atol=1e-15)
    np.testing.assert_allclose(L.T @ L, np.eye(4) - np.outer(q, q), atol=1e-15)
    np.testing.assert_allclose(L @ q, 0.0, atol=1e-15)
    np.testing.assert_allclose(Ld @ p, 0.0, atol=1e-15)
    # (17) w = 2 L pdot and (16) [w x] = 2 L Ldot^T
    np.testing.assert_allclose(2 * L @ p, w, atol=1e-14)
    skew = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    np.testing.assert_allclose(2 * L @ Ld.T, skew, atol=1e-14)


@pytest.mark.parametrize("body_name", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
def test_augmented_matrix_inverse_closed_form(seed, body_name):
    # Sherif (35): [[4 L^T J L, p], [p^T, 0]]^-1 = [[1/4 L^T J^-1 L, p], [p^T, 0]]
    body = BODIES[body_name]
    q, _, p, t = random_state(seed)
    a, _ = mult.augmented_system(q, p, body.J, t)
    L = v_matrix(q)[:3]
    inv = np.zeros((5, 5))
    inv[:4, :4] = 0.25 * L.T @ np.linalg.inv(body.J) @ L
    inv[:4, 4] = q
    inv[4, :4] = q
    np.testing.assert_allclose(a @ inv, np.eye(5), atol=1e-13)
    np.testing.assert_allclose(a, a.T, atol=0)


# -------------------------------------------------- multiplier = 4T
@pytest.mark.parametrize("body_name", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
def test_multiplier_equals_four_times_energy(seed, body_name):
    # Sherif (30): lambda = -8 p^T Ldot^T J L pdot = 2 w.J w = 4T
    body = BODIES[body_name]
    q, w, p, _ = random_state(seed)
    four_t = 2.0 * w @ body.J @ w
    assert mult.multiplier(tuple(q), tuple(p), body.j_rows) == pytest.approx(four_t, rel=1e-13)


@pytest.mark.parametrize("body_name", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
def test_augmented_system_as_built_gives_lambda_four_t(seed, body_name):
    # Sherif (39) solved directly (no shift by default): lambda = 4T = 2 w.J w, whatever the torque
    body = BODIES[body_name]
    q, w, p, _ = random_state(seed)
    a, b = mult.augmented_system(q, p, body.J, (0.3, -0.2, 0.1))
    assert np.linalg.solve(a, b)[4] == pytest.approx(2.0 * w @ body.J @ w, rel=1e-11)


@pytest.mark.parametrize("body_name", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("unit", [True, False], ids=["unit", "non_unit"])
def test_solve_augmented_agrees_with_multiplier(seed, body_name, unit):
    # For any Q (multiplier's docstring: exact for any |Q|) and any P,
    # premultiplying Sherif (29) by Q^T isolates lambda because L Q = 0.
    body = BODIES[body_name]
    q, _, p, t = random_state(seed, unit=unit)
    p = p + np.random.default_rng(1000 + seed).normal(size=4) * 0.1  # also P with Q.P != 0
    _, lam = mult.solve_augmented(q, p, body.J, t)
    assert mult.multiplier(tuple(q), tuple(p), body.j_rows) == pytest.approx(lam, rel=1e-11, abs=1e-12)


@pytest.mark.parametrize("shift", [-3.0, 0.5, 7.25, 1e3])
@pytest.mark.parametrize("seed", SEEDS)
def test_shift_moves_lambda_only(seed, shift):
    # Sherif section 4: adding c p to the generalized force shifts lambda by c
    # and leaves the Euler-parameter accelerations (the motion) unchanged.
    body = BODIES["hoffmann"]
    q, _, p, t = random_state(seed)
    pdd0, lam0 = mult.solve_augmented(q, p, body.J, t)
    pdd1, lam1 = mult.solve_augmented(q, p, body.J, t, shift=shift)
    assert lam1 - lam0 == pytest.approx(shift, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(pdd1, pdd0, atol=1e-13 * max(1.0, abs(shift)))
    assert mult.multiplier(tuple(q), tuple(p), body.j_rows, shift=shift) == pytest.approx(lam1, rel=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_form_one_multiplier_is_zero(seed):
    # Sherif (34)-(37): with the full gyroscopic term 8 L^T L Ldot^T J L pdot
    # (Form I, (23)) the same augmented matrix gives lambda = 0 and the same p''.
    body = BODIES["general"]
    q, _, p, t = random_state(seed)
    a, b3 = mult.augmented_system(q, p, body.J, t)
    L, Ld = v_matrix(q)[:3], v_matrix(p)[:3]
    b1 = np.empty(5)
    b1[:4] = -8.0 * L.T @ L @ Ld.T @ body.J @ L @ p + 2.0 * L.T @ t
    b1[4] = -p @ p
    x1 = np.linalg.solve(a, b1)
    x3 = np.linalg.solve(a, b3)
    assert abs(x1[4]) < 1e-13
    np.testing.assert_allclose(x1[:4], x3[:4], atol=1e-13)


# ------------------------------------------------------ p'' is the motion
@pytest.mark.parametrize("body_name", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
def test_solve_augmented_acceleration_is_exact_second_derivative(seed, body_name):
    # Q'' = d/dt (-1/2 (w, 0) (x) Q) = -1/2 (dw/dt, 0) (x) Q - 1/2 (w, 0) (x) P
    # with Euler's dw/dt = J^-1 (T - w x J w)
    body = BODIES[body_name]
    q, w, p, t = random_state(seed)
    w_dot = np.linalg.solve(body.J, t - np.cross(w, body.J @ w))
    exact = -0.5 * hamilton(np.append(w_dot, 0.0), q) - 0.5 * hamilton(np.append(w, 0.0), p)
    pdd, _ = mult.solve_augmented(q, p, body.J, t)
    np.testing.assert_allclose(pdd, exact, atol=1e-13)
    # and the Lagrange form of Full-Quat is this acceleration (Sherif (38)/(40))
    np.testing.assert_allclose(integ.full_quat_acceleration(tuple(q), tuple(p), tuple(t), body, "lagrange"),
                               pdd, atol=1e-13)


def test_solve_augmented_matches_finite_differences_of_rk4():
    # Central second differences of an rk4 trajectory with h = 1e-3:
    # truncation h^2 |Q''''| / 12 ~ 1e-7, rk4 error per step ~1e-15,
    # rounding eps / h^2 ~ 2e-10: tolerance 1e-6.
    body = BODIES["hoffmann"]
    h = 1e-3
    sim = Simulation(integrator="rk4", norm="none", dt=h, rates=W0, angles_deg=(10.0, 20.0, -30.0))
    states = [sim.snapshot()]
    for _ in range(3000):
        sim.step(1)
        states.append(sim.snapshot())
    for k in (1, 700, 1500, 2999):
        qm, q0, qp = (np.array(states[k + d].q) for d in (-1, 0, 1))
        fd = (qp - 2 * q0 + qm) / h ** 2
        pdd, lam = mult.solve_augmented(q0, states[k].p, body.J, (0.0, 0.0, 0.0))
        np.testing.assert_allclose(pdd, fd, atol=1e-6)
        assert lam == pytest.approx(states[k].four_t, rel=1e-9)


# ------------------------------------------------- along simulated motion
def test_snapshot_multiplier_equals_four_t_along_rk4():
    sim = Simulation(integrator="rk4", dt=1e-3, rates=W0)
    four_t0 = sim.snapshot().four_t
    assert four_t0 == pytest.approx(2.0 * np.array(W0) @ BODIES["hoffmann"].J @ np.array(W0), rel=1e-15)
    for _ in range(10):
        sim.step(500)
        s = sim.snapshot()
        assert s.multiplier == pytest.approx(s.four_t, rel=1e-12)
        # torque-free: lambda = 4T is itself a constant of the motion
        assert s.multiplier == pytest.approx(four_t0, rel=1e-9)


def test_snapshot_multiplier_equals_four_t_with_torques():
    # lambda does not depend on the applied torque (L^T n is orthogonal to p)
    sim = Simulation(integrator="rk4", dt=1e-2, rates=W0, dampers_on=True, controller="quaternion",
                     command_deg=(40.0, -20.0, 70.0), slerp_time=1.0)
    for _ in range(10):
        sim.step(30)
        s = sim.snapshot()
        assert s.multiplier == pytest.approx(s.four_t, rel=1e-12, abs=1e-14)


def test_snapshot_multiplier_full_quat_lagrange_tracks_four_t():
    # Full-Quat's own (Q, P): Q.P stays small, so lambda stays near 4T
    # (first order in dt: within 1 % at dt = 1 ms over 5 s)
    sim = Simulation(integrator="full-quat", full_quat_form="lagrange", dt=1e-3, rates=W0)
    for _ in range(5):
        sim.step(1000)
        s = sim.snapshot()
        assert s.multiplier == pytest.approx(s.four_t, rel=1e-2)
        assert abs(s.q_dot_p) < 1e-2
