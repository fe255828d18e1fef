"""Single-gimbal CMG clusters (sim/core/cmg.py) against references no one here wrote.

The pyramid's momentum against Wie's closed form (ch. 7), the Jacobian against finite
differences, m = det(A A^T) against numpy's SVD, the internal singularity at
delta = (90, 0, -90, 0) deg (the singular surfaces and the envelope: test_cmg_surfaces.py),
the steering laws against numpy's pseudo-inverse and the SR inverse's
stated error, and the total angular momentum of craft and cluster conserved to RK4's order.
"""

import math

import numpy as np
import pytest

from cmg_oracle import CRAFT, hoffmann_inertia, wie_pyramid_momentum
from sim.core import cmg
from sim.core.quaternion import cayley

H0 = CRAFT["h0"]
G, S0 = cmg.pyramid()
BETA = math.radians(cmg.PYRAMID_SKEW_DEG)


def test_skew_angle_is_54_73_deg():
    assert cmg.PYRAMID_SKEW_DEG == pytest.approx(54.7356, abs=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_pyramid_momentum_is_wies_closed_form(seed):
    d = np.random.default_rng(seed).uniform(-np.pi, np.pi, 4)
    np.testing.assert_allclose(cmg.cluster_momentum(H0, G, S0, d), wie_pyramid_momentum(H0, BETA, d),
                               rtol=0, atol=1e-14)


def test_axes_are_orthonormal_and_the_gimbal_axis_is_fixed():
    d = np.random.default_rng(3).uniform(-np.pi, np.pi, 4)
    s, t = cmg.spin_transverse(G, S0, d)
    for i in range(4):
        frame = np.array([G[i], s[i], t[i]])
        np.testing.assert_allclose(frame @ frame.T, np.eye(3), atol=1e-15)
        assert np.linalg.det(frame) == pytest.approx(1.0)   # g x s = t, right-handed


@pytest.mark.parametrize("seed", range(4))
def test_jacobian_is_the_derivative_of_the_momentum(seed):
    d = np.random.default_rng(seed).uniform(-np.pi, np.pi, 4)
    a = cmg.jacobian(H0, G, S0, d)
    eps = 1e-6
    for i in range(4):
        e = np.zeros(4)
        e[i] = eps
        fd = (wie_pyramid_momentum(H0, BETA, d + e) - wie_pyramid_momentum(H0, BETA, d - e)) / (2 * eps)
        np.testing.assert_allclose(a[:, i], fd, atol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_singularity_measure_is_the_product_of_squared_singular_values(seed):
    d = np.random.default_rng(seed).uniform(-np.pi, np.pi, 4)
    a = cmg.jacobian(H0, G, S0, d)
    sv = np.linalg.svd(a, compute_uv=False)
    assert cmg.singularity_measure(a) == pytest.approx(np.prod(sv ** 2), rel=1e-12)
    np.testing.assert_allclose(cmg.inverse3(cmg.gram(a)), np.linalg.inv(a @ a.T), rtol=1e-10)


def test_internal_singularity_90_0_minus90_0():
    # Wie, ch. 7: delta = (90, 0, -90, 0) deg is singular, h = (-2 h0 cos(beta), 0, 0) = -1.15 h0 x
    d = np.radians([90.0, 0.0, -90.0, 0.0])
    a = cmg.jacobian(H0, G, S0, d)
    assert np.linalg.matrix_rank(a, tol=1e-12) == 2
    assert abs(cmg.singularity_measure(a)) < 1e-12 * H0 ** 6
    h = cmg.cluster_momentum(H0, G, S0, d)
    np.testing.assert_allclose(h / H0, [-2 * math.cos(BETA), 0.0, 0.0], atol=1e-15)
    assert -2 * math.cos(BETA) == pytest.approx(-1.1547, abs=1e-4)
    # x is the singular direction: no CMG can make torque about it
    np.testing.assert_allclose(a[0], 0.0, atol=1e-15)
    # the zero-momentum set (0,0,0,0) is not singular: the pyramid's rest point has all three axes
    assert cmg.singularity_measure(cmg.jacobian(H0, G, S0, np.zeros(4))) > 0.5 * H0 ** 6


@pytest.mark.parametrize("seed", range(4))
def test_moore_penrose_is_numpys_pseudo_inverse(seed):
    rng = np.random.default_rng(seed)
    d = rng.uniform(-np.pi, np.pi, 4)
    hdot = rng.normal(size=3)
    a = cmg.jacobian(H0, G, S0, d)
    rates = cmg.moore_penrose(a, hdot)
    np.testing.assert_allclose(rates, np.linalg.pinv(a) @ hdot, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(a @ rates, hdot, atol=1e-12)


def test_moore_penrose_blows_up_at_the_singularity_and_sr_does_not():
    d = np.radians([90.0, 0.0, -90.0, 0.0])
    hdot = np.array([0.1, 0.05, 0.0])
    a = cmg.jacobian(H0, G, S0, d)
    mp = cmg.moore_penrose(a, hdot)
    assert not np.all(np.isfinite(mp)) or np.abs(mp).max() > 1e10
    sr = cmg.singularity_robust(a, hdot, 0.01, 10.0)
    assert np.all(np.isfinite(sr)) and np.abs(sr).max() < 10.0
    # and near it, Moore-Penrose's rates grow as the singular direction's share / sigma_min
    near = d + np.radians([0.1, 0.0, 0.0, 0.0])
    assert np.abs(cmg.moore_penrose(cmg.jacobian(H0, G, S0, near), hdot)).max() > 20 * np.abs(sr).max()


@pytest.mark.parametrize("deg", [(90.0, 0.0, -90.0, 0.0), (10.0, 20.0, -30.0, 40.0), (85.0, 3.0, -88.0, 2.0)])
def test_sr_torque_error_is_as_stated(deg):
    d = np.radians(deg)
    hdot = np.array([0.1, -0.05, 0.02])
    a = cmg.jacobian(H0, G, S0, d)
    lam0, mu = 0.01, 10.0
    lam = lam0 * math.exp(-mu * cmg.singularity_measure(a))
    made = a @ cmg.singularity_robust(a, hdot, lam0, mu)
    err = cmg.sr_torque_error(a, hdot, lam)
    np.testing.assert_allclose(made - hdot, err, atol=1e-12)
    # the stated bound lam / (sigma_min^2 + lam) |hdot|, with sigma_min from numpy's SVD
    smin = np.linalg.svd(a, compute_uv=False).min()
    assert np.linalg.norm(err) <= lam / (smin ** 2 + lam) * np.linalg.norm(hdot) * (1 + 1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_measure_gradient_is_the_derivative_of_m(seed):
    d = np.random.default_rng(seed).uniform(-np.pi, np.pi, 4)
    grad = cmg.measure_gradient(H0, G, S0, d)
    eps = 1e-6
    for i in range(4):
        e = np.zeros(4)
        e[i] = eps
        a_p, a_m = (np.linalg.svd(cmg.jacobian(H0, G, S0, d + s * e), compute_uv=False) for s in (1, -1))
        fd = (np.prod(a_p ** 2) - np.prod(a_m ** 2)) / (2 * eps)
        assert grad[i] == pytest.approx(fd, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_gradient_law_makes_the_torque_asked_and_raises_m(seed):
    rng = np.random.default_rng(seed)
    d = rng.uniform(-np.pi, np.pi, 4)
    a = cmg.jacobian(H0, G, S0, d)
    hdot = rng.normal(size=3)
    rates = cmg.gradient_steering(H0, G, S0, d, hdot, 1.0)
    np.testing.assert_allclose(a @ rates, hdot, atol=1e-10)            # null motion makes no torque
    nm = rates - np.linalg.pinv(a) @ hdot
    assert np.linalg.norm(nm) > 0
    # m grows along the null motion (numpy's SVD, not the code's measure)
    m = lambda x: np.prod(np.linalg.svd(cmg.jacobian(H0, G, S0, x), compute_uv=False) ** 2)  # noqa: E731
    assert m(d + 1e-5 * nm) > m(d)


def test_rate_limit_scales_all_rates_together():
    r = cmg.rate_limit(np.array([2.0, -4.0, 1.0, 0.0]), 1.0)
    np.testing.assert_allclose(r, [0.5, -1.0, 0.25, 0.0])
    np.testing.assert_array_equal(cmg.rate_limit(np.array([0.2, -0.3]), 1.0), [0.2, -0.3])


def _inertial_momentum(j, q, w, d):
    return cayley(q).T @ (j @ w + cmg.cluster_momentum(H0, G, S0, d))


def _fly(dt, duration, law=1, compiled=True):
    j = hoffmann_inertia(CRAFT["inertia"])
    q = np.array([0.1, -0.2, 0.3, 0.9])
    q /= np.linalg.norm(q)
    w = np.array(CRAFT["rates"])
    d = np.radians(CRAFT["angles"])
    h_start = _inertial_momentum(j, q, w, d)
    rates = np.zeros(4)
    fn = cmg.cmg_advance.dispatcher if compiled else cmg.cmg_advance.py_func  # numba's, compiled now
    status = fn(q, w, d, j, np.linalg.inv(j), H0, G, S0, np.array([0.3, -0.2, 0.25]), np.zeros(3), law,
                0.01, 10.0, 1.0, 1.5, 0.0, 0.01, 0.5 * np.pi, dt, round(duration / dt), rates)
    assert status == -1
    return np.linalg.norm(_inertial_momentum(j, q, w, d) - h_start), q, w, d


@pytest.mark.parametrize("law", [0, 1, 2, 3])
def test_total_momentum_is_conserved_to_rk4s_order(law):
    # the cluster trades momentum with the body (0.3 N m asked for 8 s), the total stays put in
    # inertial axes; the gimbal rates are held over each step, so within a step the equations are
    # smooth and RK4's error in the conserved momentum falls as dt^4 (ratio 16 per halving)
    e1, *_ = _fly(0.04, 8.0, law)
    e2, q, w, d = _fly(0.02, 8.0, law)
    assert e2 < 1e-8
    assert 10 < e1 / e2 < 24
    assert np.linalg.norm(w - CRAFT["rates"]) > 0.02   # the body's rates changed: the test is not of a body at rest


@pytest.mark.parametrize("law", [0, 1, 2, 3])
def test_compiled_advance_is_the_python_one(law):
    e_c, *state_c = _fly(0.05, 1.0, law, compiled=True)
    e_p, *state_p = _fly(0.05, 1.0, law, compiled=False)
    for a, b in zip(state_c, state_p):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)


@pytest.mark.parametrize("seed", range(3))
def test_generalized_sr_torque_error_is_as_stated(seed):
    rng = np.random.default_rng(seed)
    d = np.radians([90.0, 0.0, -90.0, 0.0]) + rng.normal(scale=0.05, size=4)
    hdot = rng.normal(size=3)
    a = cmg.jacobian(H0, G, S0, d)
    e = cmg.dither_matrix(0.1, 0.5 * np.pi, rng.uniform(0, 10))
    assert np.all(np.linalg.eigvalsh(e) > 0)                      # Wie's E stays positive definite
    lam = 0.01 * math.exp(-10.0 * cmg.singularity_measure(a))
    made = a @ cmg.generalized_sr(a, hdot, 0.01, 10.0, e)
    np.testing.assert_allclose(made - hdot, cmg.gsr_torque_error(a, hdot, lam, e), atol=1e-12)
    # numpy's solve as the oracle of the law itself
    np.testing.assert_allclose(made, a @ a.T @ np.linalg.solve(a @ a.T + lam * e, hdot), atol=1e-12)
    # with E = I it is the SR inverse
    np.testing.assert_allclose(cmg.generalized_sr(a, hdot, 0.01, 10.0, np.eye(3)),
                               cmg.singularity_robust(a, hdot, 0.01, 10.0), atol=1e-13)


def _slew_along_x(law, seconds=60.0, dt=0.1):
    """A torque of 0.05 N m about +x from the pyramid at rest (h = 0): the momentum runs along -x
    through delta = (d, 0, -d, 0) into the internal singularity at (90, 0, -90, 0), |h| = 1.15 h0."""
    j = np.diag([50.0, 50.0, 50.0])
    q, w, d, rates = np.array([0.0, 0.0, 0.0, 1.0]), np.zeros(3), np.zeros(4), np.zeros(4)
    status = cmg.cmg_advance(q, w, d, j, np.linalg.inv(j), 1.0, G, S0, np.array([0.05, 0.0, 0.0]), np.zeros(3),
                             law, 0.01, 10.0, 0.5, 1.0, 0.0, 0.1, 0.5 * np.pi, dt, round(seconds / dt), rates)
    assert status == -1
    assert np.abs(rates).max() <= 1.0 * (1 + 1e-15)      # the gimbal-rate limit held
    return cmg.cluster_momentum(1.0, G, S0, d)


def test_singularity_traps_moore_penrose_and_sr_and_the_generalized_sr_passes():
    # Moore-Penrose stalls at the singular set (rates rate-limited, the x row of A going to zero),
    # the SR inverse sits on it (asked exactly along the singular direction, A^T gives no rate),
    # null motion is zero there by symmetry; Wie's dither turns the gimbals off it (Wie 2005)
    singular = 2 * math.cos(BETA)
    for law in (0, 1, 2):
        h = _slew_along_x(law)
        assert -h[0] == pytest.approx(singular, abs=0.01)
    h = _slew_along_x(3)
    assert -h[0] > 1.5                  # through and beyond the singular momentum, 3 N m s asked in all
    assert abs(h[1]) < 0.1 and abs(h[2]) < 0.2   # its torque error about y and z stays small
