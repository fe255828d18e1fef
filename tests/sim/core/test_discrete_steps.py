"""Single discrete steps of the integrators against updates written out here.

Each reference below is typed from the seed equations with numpy, not taken
from sim/: V(Q) from Hoffmann (3.26), Euler's equations J dw/dt = T - w x J w
(Hoffmann (4.3), App. A) solved with numpy.linalg, the inertia tensor with
Hoffmann's signs on the products, the Half-Quat and Full-Quat steps of his
Appendices A and B, the classical Runge-Kutta tableau, and his norm controller
Q <- Q + Q (1 - |Q|).  The body is general (all three products of inertia
nonzero), the torque depends on both Q and w, and Q, w are generic, so a
wrong sign, a transposed V, a swapped product of inertia, the old w where the
new one belongs, or a torque taken at the wrong stage all show.

Tolerances: every quantity here is O(1) and the code and the reference
evaluate the same formula in a different order (numpy's matmul and solve
against the code's unrolled sums with its own J^-1), so they differ by a few
units in the last place (measured: at most 2.2e-16); 1e-15 is 4.5 ulps of 1.  A mistake of any kind
moves a step by at least dt x (something O(1)), i.e. by 1e-3 or more.
"""

import math

import numpy as np
import pytest

from sim.core import integrators as integ
from sim.core.body import Body
from sim.model.simulation import Simulation

from oracle import attitude_error

TOL = 1e-15          # 4.5 ulps of the O(1) state components (see above)

# (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz): every product of inertia nonzero
GENERAL = (1.2, 1.7, 2.1, 0.15, -0.25, 0.1)
Q0 = np.array([0.3, -0.5, 0.2, 0.7]) / np.linalg.norm([0.3, -0.5, 0.2, 0.7])
W0 = np.array([0.8, -1.3, 0.6])


def inertia(jxx, jyy, jzz, jxy, jxz, jyz):
    """The inertia tensor with Hoffmann's signs on the products (see sim/__init__.py)."""
    return np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]], dtype=float)


def v_mat(q):
    """V(Q), Hoffmann (3.26), transcribed for this file."""
    q1, q2, q3, q4 = q
    return np.array([[-q4, q3, -q2, q1], [-q3, -q4, q1, q2], [q2, -q1, -q4, q3], [q1, q2, q3, q4]])


def hamilton(a, b):
    """Hamilton product, scalar last."""
    av, a4 = np.asarray(a[:3]), a[3]
    bv, b4 = np.asarray(b[:3]), b[3]
    return np.append(a4 * bv + b4 * av + np.cross(av, bv), a4 * b4 - av @ bv)


def torque(q, w):
    """A torque depending on Q and w: a constant, a damper and a gravity-gradient-like term."""
    q, w = np.asarray(q), np.asarray(w)
    return np.array([0.4, -0.7, 0.25]) - 0.3 * w + 0.5 * np.array([q[1] * q[2], -q[0] * q[3], q[0] * q[1]])


def torque_tuple(q, w):
    return tuple(float(x) for x in torque(q, w))


def euler(w, t, J):
    """dw/dt = J^-1 (T - w x J w), Hoffmann (4.3), by numpy.linalg."""
    return np.linalg.solve(J, t - np.cross(w, J @ w))


def kinematics(q, w):
    """dQ/dt = 1/2 V(Q)^T [w; 0], Hoffmann (5.18)."""
    return 0.5 * v_mat(q).T @ np.append(w, 0.0)


def hoffmann_norm(q):
    """Hoffmann's norm controller Q <- Q + Q (1 - |Q|) (Appendix A)."""
    return q + q * (1.0 - np.linalg.norm(q))


# ------------------------------------------------------- the oracle itself
def test_v_matrix_transcription_is_the_hamilton_kinematics():
    # V(Q) as typed above is orthogonal for |Q| = 1 and 1/2 V^T(Q) [w; 0]
    # equals dQ/dt = -1/2 (w, 0) (x) Q, the conjugate of scipy's r' = 1/2 r (x) (w, 0)
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        w = rng.normal(size=3)
        np.testing.assert_allclose(v_mat(q) @ v_mat(q).T, np.eye(4), atol=1e-15)
        np.testing.assert_allclose(kinematics(q, w), -0.5 * hamilton(np.append(w, 0.0), q), atol=1e-15)


def test_general_body_has_the_products_hoffmann_signs():
    b = Body(GENERAL)
    np.testing.assert_array_equal(b.J, inertia(*GENERAL))
    assert min(abs(b.J[0, 1]), abs(b.J[0, 2]), abs(b.J[1, 2])) > 0.05


# ------------------------------------------------------------- half-quat
@pytest.mark.parametrize("dt", [0.001, 0.05, 0.3])
def test_half_quat_step(dt):
    # Appendix A: w_new = w + dt J^-1 (T(Q, w) - w x J w) with the OLD w,
    # then Q_new = Q + dt/2 V(Q)^T [w_new; 0] with the NEW w.
    J = inertia(*GENERAL)
    w_new = W0 + dt * euler(W0, torque(Q0, W0), J)
    q_new = Q0 + 0.5 * dt * v_mat(Q0).T @ np.append(w_new, 0.0)
    q, w, p = integ.half_quat(tuple(Q0), tuple(W0), None, dt, torque_tuple, Body(GENERAL))
    assert p is None
    np.testing.assert_allclose(w, w_new, rtol=0, atol=TOL)
    np.testing.assert_allclose(q, q_new, rtol=0, atol=TOL)
    # the old w would move Q by dt^2/2 |dw/dt| ~ 1e-7 at dt = 1 ms: far beyond TOL
    q_old_w = Q0 + 0.5 * dt * v_mat(Q0).T @ np.append(W0, 0.0)
    assert np.abs(q_new - q_old_w).max() > 1e4 * TOL


# ------------------------------------------------------------- full-quat
def full_quat_step_by_hand(q, w, dt, J, form):
    """Appendix B: P = 1/2 V^T(Q) [w; 0]; P_new = P + dt (N + M); Q_new = Q + dt P_new.

    N = -2 V^T(Q) J44^-1 C J44 V(Q) P with C = V(Q) V^T(P), Hoffmann (4.15);
    'hoffmann' overwrites C's diagonal and fourth row and column with 0 and
    C44 with 1 (his Manipul); 'lagrange' adds Sherif's constraint force
    -(P.P) Q to Hoffmann's form.  M = 1/2 V^T(Q) J44^-1 [T; 0], T at (Q, w).
    'kane': :func:`kane_by_hand`.
    """
    p = kinematics(q, w)
    w_seen = (2.0 * v_mat(q) @ p)[:3]
    if form == "kane":
        p_new = p + dt * kane_by_hand(q, p, torque(q, w_seen), J)
        return q + dt * p_new, w_seen, p_new
    j44 = np.eye(4)
    j44[:3, :3] = J
    c = v_mat(q) @ v_mat(p).T
    if form in ("hoffmann", "lagrange"):
        np.fill_diagonal(c, 0.0)
        c[3, :] = 0.0
        c[:, 3] = 0.0
        c[3, 3] = 1.0
    n = -2.0 * v_mat(q).T @ np.linalg.solve(j44, c @ j44 @ v_mat(q) @ p)
    m = 0.5 * v_mat(q).T @ np.linalg.solve(j44, np.append(torque(q, w_seen), 0.0))
    a = n + m
    if form == "lagrange":
        a = a - (p @ p) * q
    p_new = p + dt * a
    return q + dt * p_new, w_seen, p_new


@pytest.mark.parametrize("form", integ.FULL_QUAT_FORMS)
@pytest.mark.parametrize("dt", [0.001, 0.05])
def test_full_quat_step(form, dt):
    J = inertia(*GENERAL)
    q_ref, w_ref, p_ref = full_quat_step_by_hand(Q0, W0, dt, J, form)
    q, w, p = integ.full_quat(tuple(Q0), tuple(W0), None, dt, torque_tuple, Body(GENERAL), form)
    np.testing.assert_allclose(p, p_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(q, q_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(w, W0, rtol=0, atol=TOL)      # the w the torque saw: the old one


def test_full_quat_forms_give_different_steps():
    # hoffmann, raw and lagrange are three different steps (the test above tells them apart);
    # kane is lagrange's equation on the unit sphere: from a unit Q with P = dQ/dt tangent
    # (Q.P = 0), as here, its first step is lagrange's to round-off
    J = inertia(*GENERAL)
    steps = {form: full_quat_step_by_hand(Q0, W0, 0.05, J, form)[0] for form in integ.FULL_QUAT_FORMS}
    three = ("hoffmann", "raw", "lagrange")
    for i in range(3):
        for k in range(i):
            assert np.abs(steps[three[i]] - steps[three[k]]).max() > 1e-4
    np.testing.assert_allclose(steps["kane"], steps["lagrange"], rtol=0, atol=1e-14)


def kane_by_hand(q, p, t, J):
    """d2Q/dt2 of Kane's equations (dissertation App. B, (B.58)-(B.59)) with the constraint embedded.

    Typed from the seed with numpy: L = 2 eta E^T is the first three rows of
    2 V(Q) (the convention map e0 = q4, (e1, e2, e3) = -(q1, q2, q3) is checked in
    tests/app/cli/test_formulations.py), K = J L' P + (L P) x J (L P) (B.34), the singular
    mass matrix M = L^T J L and the generalized forces L^T (T - K).  The
    dependent acceleration is that of the largest |q_d|: Q'' = T_d x + b with the
    columns e_i - (q_i/q_d) e_d (i != d) and b = -(P.P / q_d) e_d, from
    Q.Q'' = -P.P; the reduced system T_d^T M T_d x = T_d^T (L^T (T - K) - M b)
    (Joshi's (48)) is solved by numpy.linalg.solve.
    """
    q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
    L = 2.0 * v_mat(q)[:3]
    Ld = 2.0 * v_mat(p)[:3]
    w = L @ p
    K = J @ (Ld @ p) + np.cross(w, J @ w)
    M = L.T @ J @ L
    gamma = L.T @ (np.asarray(t, dtype=float) - K)
    d = int(np.argmax(np.abs(q)))
    cols = [i for i in range(4) if i != d]
    T = np.zeros((4, 3))
    for k, i in enumerate(cols):
        T[i, k] = 1.0
        T[d, k] = -q[i] / q[d]
    b = np.zeros(4)
    b[d] = -(p @ p) / q[d]
    x = np.linalg.solve(T.T @ M @ T, T.T @ (gamma - M @ b))
    return T @ x + b


# ------------------------------------------------------------------- rk4
def rk4_step_by_hand(q, w, dt, J):
    """Classical Runge-Kutta (1/6, 1/3, 1/3, 1/6) on y = (w, Q), torque at every stage."""
    def f(y):
        ws, qs = y[:3], y[3:]
        return np.concatenate([euler(ws, torque(qs, ws), J), kinematics(qs, ws)])

    y = np.concatenate([w, q])
    k1 = f(y)
    k2 = f(y + dt / 2 * k1)
    k3 = f(y + dt / 2 * k2)
    k4 = f(y + dt * k3)
    y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[3:], y[:3]


@pytest.mark.parametrize("dt", [0.001, 0.05, 0.3])
def test_rk4_step(dt):
    q_ref, w_ref = rk4_step_by_hand(Q0, W0, dt, inertia(*GENERAL))
    q, w, p = integ.rk4(tuple(Q0), tuple(W0), None, dt, torque_tuple, Body(GENERAL))
    assert p is None
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=TOL)
    np.testing.assert_allclose(q, q_ref, rtol=0, atol=TOL)


# ------------------------------------------ whole runs, step by step by hand
def run_by_hand(integrator, n, dt, J, q, w, torque_of_step, form="hoffmann"):
    """n steps of Simulation's loop by hand: step, Hoffmann's norm controller, w = 2 V(Q) P for full-quat."""
    q, w = np.array(q, dtype=float), np.array(w, dtype=float)
    p = None
    for k in range(n):
        t = torque_of_step(k)
        if integrator == "half-quat":
            w = w + dt * euler(w, t, J)
            q = q + 0.5 * dt * v_mat(q).T @ np.append(w, 0.0)
        elif integrator == "full-quat":
            if p is None:
                p = kinematics(q, w)
            j44 = np.eye(4)
            j44[:3, :3] = J
            c = v_mat(q) @ v_mat(p).T
            if form != "raw":
                np.fill_diagonal(c, 0.0)
                c[3, :] = 0.0
                c[:, 3] = 0.0
                c[3, 3] = 1.0
            a = (-2.0 * v_mat(q).T @ np.linalg.solve(j44, c @ j44 @ v_mat(q) @ p)
                 + 0.5 * v_mat(q).T @ np.linalg.solve(j44, np.append(t, 0.0)))
            if form == "lagrange":
                a = a - (p @ p) * q
            p = p + dt * a
            q = q + dt * p
        q = hoffmann_norm(q)
        if p is not None:
            w = (2.0 * v_mat(q) @ p)[:3]
    return q, w


@pytest.mark.parametrize("integrator, form", [("half-quat", "hoffmann"), ("full-quat", "hoffmann"),
                                              ("full-quat", "raw"), ("full-quat", "lagrange")])
def test_hoffmann_experiment_step_by_step(integrator, form):
    # Hoffmann's experiment (App. B): T = (5, 5, 5) N m during the first
    # dT = 0.1 s, then free, 10 steps from rest; his aircraft, his norm
    # controller.  The simulation is the recursion written out here, to
    # round-off (10 steps of O(1) quantities: 1e-14).
    J = inertia(0.6, 1.0, 1.5, 0.0, 0.2, 0.0)
    q_ref, w_ref = run_by_hand(integrator, 10, 0.1, J, (0, 0, 0, 1), (0, 0, 0),
                               lambda k: np.full(3, 5.0) if k == 0 else np.zeros(3), form)
    sim = Simulation(integrator=integrator, full_quat_form=form, dt=0.1, torque=(5.0, 5.0, 5.0))
    sim.step(1)
    sim.set("torque", (0.0, 0.0, 0.0))
    sim.step(9)
    s = sim.snapshot()
    np.testing.assert_allclose(s.q, q_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(s.w, w_ref, rtol=0, atol=1e-14)


@pytest.mark.parametrize("integrator", ["half-quat", "full-quat"])
def test_general_body_with_torque_step_by_step(integrator):
    # 200 steps of 10 ms on the general body from a generic state under a
    # constant torque: the simulation follows the recursion to round-off
    J = inertia(*GENERAL)
    t = np.array([0.4, -0.7, 0.25])
    sim = Simulation(integrator=integrator, full_quat_form="hoffmann", inertia=GENERAL, dt=0.01,
                     rates=tuple(W0), angles_deg=(30.0, -20.0, 50.0), torque=tuple(t))
    s0 = sim.snapshot()
    q_ref, w_ref = run_by_hand(integrator, 200, 0.01, J, s0.q, s0.w, lambda k: t)
    sim.step(200)
    s = sim.snapshot()
    np.testing.assert_allclose(s.q, q_ref, rtol=0, atol=1e-13)
    np.testing.assert_allclose(s.w, w_ref, rtol=0, atol=1e-13)
    assert attitude_error(s.q, s0.q) > 0.5          # the body did move


def test_half_quat_spin_up_closed_form_of_the_recursion():
    # From rest with T = 2 e about a principal axis e (moment I): w_n = n dt T / I
    # exactly, and each Half-Quat step multiplies Q by (1 - dt/2 (w_n, 0)),
    # a rotation about e by 2 atan(dt |w_n| / 2) times a stretch that the norm
    # controller removes, so after n steps the attitude is a coordinate
    # rotation about e by sum_k 2 atan(dt |w_k| / 2), |w_k| = 2 k dt / I.
    b = Body()
    dt, n = 0.01, 300
    for k_axis in range(3):
        e = b.principal_axes[:, k_axis]
        i_k = b.principal_moments[k_axis]
        sim = Simulation(integrator="half-quat", dt=dt, torque=tuple(2.0 * e))
        sim.step(n)
        s = sim.snapshot()
        angle = sum(2.0 * math.atan(dt * k * dt * 2.0 / i_k / 2.0) for k in range(1, n + 1))
        expected = np.append(-e * math.sin(angle / 2), math.cos(angle / 2))
        assert attitude_error(s.q, expected) < 1e-12
        # the continuous solution differs by O(dt): the recursion is what is pinned
        assert attitude_error(s.q, np.append(-e * math.sin(n * n * dt * dt / (2 * i_k)),
                                             math.cos(n * n * dt * dt / (2 * i_k)))) > 1e-3
