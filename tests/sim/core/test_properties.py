"""Property tests (hypothesis) for every quaternion and interpolation function.

Inputs: random, near-identity and near-antipodal quaternions, and magnitudes
from 1e-150 to 1e150.  Every function must either return finite values or
raise the documented ValueError.  References are identities (norm
multiplicativity, |Q|^2 times a rotation, inverse pairs) and scipy's
Rotation.  derandomize=True makes every run draw the same examples.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from sim.core import interpolation as interp
from sim.core import quaternion as quat
from oracle import attitude_error, scipy_rotation

PROPS = settings(max_examples=200, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])




# ---------------------------------------------------------------- strategies
components = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


@st.composite
def unit_quats(draw):
    """Random, near-identity or near-antipodal-to-identity unit quaternions."""
    kind = draw(st.sampled_from(["random", "near_identity", "near_minus_identity", "axis"]))
    if kind == "random":
        q = np.array(draw(st.tuples(components, components, components, components)))
        assume(np.linalg.norm(q) > 1e-3)
    elif kind == "axis":
        q = np.zeros(4)
        q[draw(st.integers(0, 3))] = draw(st.sampled_from([1.0, -1.0]))
    else:
        eps = np.array(draw(st.tuples(components, components, components))) * 10.0 ** draw(st.integers(-12, -2))
        q = np.append(eps, 1.0 if kind == "near_identity" else -1.0)
    return q / np.linalg.norm(q)


exponents = st.integers(-150, 150)


@st.composite
def scaled_quats(draw, low=-150, high=150):
    """A unit quaternion times 10**k, k in [low, high]: |q| from 1e-150 to 1e150."""
    return draw(unit_quats()) * 10.0 ** draw(st.integers(low, high))


@st.composite
def wild_floats(draw):
    """0 or +-10**x, x in [-150, 150]: every component its own magnitude."""
    if draw(st.booleans()) and draw(st.booleans()):
        return 0.0
    return draw(st.sampled_from([1.0, -1.0])) * 10.0 ** draw(st.floats(-150.0, 150.0))


wild_quats = st.tuples(wild_floats(), wild_floats(), wild_floats(), wild_floats()).map(np.array)
wild_vectors = st.tuples(wild_floats(), wild_floats(), wild_floats()).map(np.array)
angles = st.floats(-10.0, 10.0, allow_nan=False)


def finite(x):
    return bool(np.all(np.isfinite(np.asarray(x, dtype=float))))


def call_finite_or_valueerror(f, *args):
    """f(*args) returns finite values or raises ValueError; anything else fails."""
    try:
        out = f(*args)
    except ValueError:
        return None
    assert finite(out), (f.__name__, args, out)
    return out


# ------------------------------------------------------ no surprise exceptions
@pytest.mark.slow
@PROPS
@given(wild_quats, wild_quats, wild_vectors)
def test_quaternion_functions_finite_or_valueerror(q, s, w):
    for f in (quat.conjugate, quat.norm, quat.normalize, quat.r_matrix, quat.cayley, quat.v_matrix,
              quat.as_aircraft_angles, quat.as_euler_zxz):
        call_finite_or_valueerror(f, q)
    call_finite_or_valueerror(quat.product, q, s)
    call_finite_or_valueerror(quat.qdot_from_rates, q, w)
    call_finite_or_valueerror(quat.rates_from_qdot, q, s)
    call_finite_or_valueerror(quat.from_axis_angle, w, 0.7)


@PROPS
@given(st.floats(-1e150, 1e150), st.floats(-1e150, 1e150), st.floats(-1e150, 1e150))
def test_from_angles_finite_for_any_finite_angles(a, b, c):
    for f in (quat.from_aircraft_angles, quat.from_euler_zxz):
        q = f(a, b, c)
        assert finite(q)
        assert quat.norm(q) == pytest.approx(1.0, abs=1e-14)


@PROPS
@given(st.one_of(st.just(()), st.lists(st.floats(-1, 1), min_size=1, max_size=8).filter(lambda v: len(v) != 4)))
def test_bad_shapes_raise_valueerror(values):
    for f in (quat.conjugate, quat.norm, quat.normalize, quat.cayley, quat.v_matrix, quat.as_aircraft_angles):
        with pytest.raises(ValueError, match=r"shape \(4,\)"):
            f(values)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.product(values, (0.0, 0.0, 0.0, 1.0))


@PROPS
@given(wild_vectors, st.floats(-1e6, 1e6))
def test_from_axis_angle_unit_or_valueerror(axis, angle):
    if not np.any(axis):
        with pytest.raises(ValueError, match="rotation axis"):
            quat.from_axis_angle(axis, angle)
        return
    q = quat.from_axis_angle(axis, angle)
    assert quat.norm(q) == pytest.approx(1.0, abs=1e-14)
    # the axis is kept: the vector part is parallel to -axis sin(a/2)
    n = axis / np.linalg.norm(axis)
    np.testing.assert_allclose(q[:3], -n * math.sin(angle / 2), atol=1e-14)


# ------------------------------------------------------------ algebra
@PROPS
@given(unit_quats(), unit_quats(), exponents, exponents)
def test_product_norm_multiplicative(u, v, k1, k2):
    # keep |p||q| within 1e-150..1e150 (the norm of a 1e300 quaternion
    # overflows its sum of squares)
    assume(abs(k1 + k2) <= 150)
    p, q = u * 10.0 ** k1, v * 10.0 ** k2
    assert quat.norm(quat.product(p, q)) == pytest.approx(quat.norm(p) * quat.norm(q), rel=1e-14)


@PROPS
@given(scaled_quats(-50, 50), scaled_quats(-50, 50), scaled_quats(-50, 50))
def test_product_associative_and_conjugate_rule(a, b, c):
    scale = quat.norm(a) * quat.norm(b) * quat.norm(c)
    np.testing.assert_allclose(quat.product(quat.product(a, b), c), quat.product(a, quat.product(b, c)),
                               rtol=0, atol=1e-14 * scale)
    np.testing.assert_allclose(quat.conjugate(quat.product(a, b)), quat.product(quat.conjugate(b), quat.conjugate(a)),
                               rtol=0, atol=1e-14 * quat.norm(a) * quat.norm(b))
    # the matrix form through BLAS (which may fuse multiply-adds) against the formula itself: a few ulp of the scale
    np.testing.assert_allclose(quat.r_matrix(a) @ b, quat.product(a, b), rtol=0,
                               atol=4e-16 * quat.norm(a) * quat.norm(b))


@PROPS
@given(scaled_quats())
def test_conjugate_involution_and_norm(q):
    np.testing.assert_array_equal(quat.conjugate(quat.conjugate(q)), q)
    assert quat.norm(quat.conjugate(q)) == quat.norm(q)


@PROPS
@given(scaled_quats())
def test_normalize_any_scale(q):
    n = quat.normalize(q)
    assert quat.norm(n) == pytest.approx(1.0, abs=4e-16)
    assert attitude_error(n, q / np.max(np.abs(q))) < 1e-14


# ------------------------------------------------------------ cayley, V
@PROPS
@given(unit_quats(), exponents)
def test_cayley_is_norm_squared_times_rotation(u, k):
    # |q|^2 = 10^(2k) exactly up to rounding of u
    q = u * 10.0 ** k
    c = quat.cayley(q)
    assert finite(c)
    r = c / (10.0 ** k) ** 2
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-13)
    assert np.linalg.det(r) == pytest.approx(1.0, abs=1e-13)
    np.testing.assert_allclose(r, scipy_rotation(u).as_matrix().T, atol=1e-13)


@PROPS
@given(unit_quats(), exponents)
def test_v_matrix_orthogonal_times_norm(u, k):
    q = u * 10.0 ** k
    v = quat.v_matrix(q) / 10.0 ** k
    np.testing.assert_allclose(v @ v.T, np.eye(4), atol=1e-14)
    np.testing.assert_allclose(v @ u, [0.0, 0.0, 0.0, 1.0], atol=1e-14)


@PROPS
@given(unit_quats(), st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)))
def test_rates_qdot_inverse_pair(q, w):
    w = np.array(w)
    p = quat.qdot_from_rates(q, w)
    assert abs(q @ p) <= 1e-15 * max(1.0, np.linalg.norm(w))
    np.testing.assert_allclose(quat.rates_from_qdot(q, p), w, rtol=0, atol=1e-14 * max(1.0, np.linalg.norm(w)))


# ---------------------------------------------------------- Euler angles
aircraft = st.tuples(st.floats(-math.pi, math.pi), st.floats(-math.pi / 2 + 1e-6, math.pi / 2 - 1e-6),
                     st.floats(-math.pi, math.pi))


@PROPS
@given(aircraft)
def test_aircraft_angles_round_trip(a):
    q = quat.from_aircraft_angles(*a)
    np.testing.assert_allclose(quat.cayley(q), Rotation.from_euler("ZYX", a).as_matrix().T, atol=1e-14)
    back = quat.as_aircraft_angles(q)
    # angles wrap at +-pi; the loss near the lock is ~eps / cos(theta)
    diff = (np.array(back) - np.array(a) + math.pi) % (2 * math.pi) - math.pi
    tol = 1e-13 / math.cos(a[1])
    assert np.all(np.abs(diff) < tol) or attitude_error(quat.from_aircraft_angles(*back), q) < tol


@PROPS
@given(scaled_quats())
def test_as_aircraft_angles_attitude_round_trip(q):
    c = scipy_rotation(q).as_matrix()  # body -> inertial; C = c.T
    cos_theta = math.hypot(c[0, 0], c[1, 0])
    a = quat.as_aircraft_angles(q)
    assert -math.pi <= a[0] <= math.pi and -math.pi / 2 <= a[1] <= math.pi / 2 and -math.pi <= a[2] <= math.pi
    # the error grows like eps / cos(theta) toward the lock (at most ~1e-4
    # rad just outside the exact-singularity band); exactly at the lock the
    # decoding is exact again (test below)
    assert attitude_error(quat.from_aircraft_angles(*a), q) < 1e-14 / max(cos_theta, 1e-10)


@PROPS
@given(st.floats(-math.pi, math.pi), st.sampled_from([-90.0, 90.0]), st.floats(-math.pi, math.pi), exponents)
def test_as_aircraft_angles_exact_gimbal_lock_round_trip(psi, theta_deg, phi, k):
    q = quat.from_aircraft_angles(psi, math.radians(theta_deg), phi) * 10.0 ** k
    a = quat.as_aircraft_angles(q)
    assert a[0] == 0.0
    assert attitude_error(quat.from_aircraft_angles(*a), q) < 1e-12


@PROPS
@given(scaled_quats())
def test_as_euler_zxz_attitude_round_trip(q):
    c = scipy_rotation(q).as_matrix()
    sin_theta = math.hypot(c[2, 0], c[2, 1])
    a = quat.as_euler_zxz(q)
    assert 0.0 <= a[1] <= math.pi
    assert attitude_error(quat.from_euler_zxz(*a), q) < 1e-14 / max(sin_theta, 1e-10)


@PROPS
@given(st.floats(-math.pi, math.pi), st.sampled_from([0.0, math.pi]), st.floats(-math.pi, math.pi), exponents)
def test_as_euler_zxz_exact_singularity_round_trip(phi, theta, psi, k):
    q = quat.from_euler_zxz(phi, theta, psi) * 10.0 ** k
    a = quat.as_euler_zxz(q)
    assert a[2] == 0.0
    assert attitude_error(quat.from_euler_zxz(*a), q) < 1e-12


# ------------------------------------------------------------ rotation_angle
@PROPS
@given(unit_quats(), unit_quats(), st.integers(-60, 60), st.integers(-60, 60))
def test_rotation_angle_range_sign_and_scale(u, v, k1, k2):
    a = quat.rotation_angle(u, v)
    assert 0.0 <= a <= math.pi
    assert a == pytest.approx(attitude_error(u, v), abs=1e-14)
    assert quat.rotation_angle(-u, v) == a
    assert quat.rotation_angle(u * 10.0 ** k1, v * 10.0 ** k2) == pytest.approx(a, abs=1e-14)


@PROPS
@example(np.array([0.6, 0.0, 0.0, 0.8]), np.array([0.0, 0.6, 0.0, 0.8]), 150, 150)
@example(np.array([0.6, 0.0, 0.0, 0.8]), np.array([0.0, 0.6, 0.0, 0.8]), -150, -150)
@given(unit_quats(), unit_quats(), exponents, exponents)
def test_rotation_angle_any_scale(u, v, k1, k2):
    a = quat.rotation_angle(u * 10.0 ** k1, v * 10.0 ** k2)
    assert a == pytest.approx(quat.rotation_angle(u, v), abs=1e-14)
    b = interp.bivector_angle(u * 10.0 ** k1, v * 10.0 ** k2)
    assert b == pytest.approx(interp.bivector_angle(u, v), abs=1e-14)


@PROPS
@given(unit_quats(), unit_quats())
def test_bivector_angle_range_and_symmetry(p, q):
    a = interp.bivector_angle(p, q)
    assert 0.0 <= a <= math.pi
    assert interp.bivector_angle(q, p) == pytest.approx(a, abs=1e-15)
    assert interp.bivector_angle(p, -q) == pytest.approx(math.pi - a, abs=1e-14)
    # the folded version is the attitude angle
    assert quat.rotation_angle(p, q) == pytest.approx(2 * min(a, math.pi - a), abs=1e-14)


# --------------------------------------------------------------------- slerp
@st.composite
def slerp_pairs(draw):
    qi = draw(unit_quats())
    kind = draw(st.sampled_from(["random", "near", "near_antipodal", "antipodal", "same"]))
    if kind == "random":
        qe = draw(unit_quats())
    elif kind == "same":
        qe = qi.copy()
    elif kind == "antipodal":
        qe = -qi
    else:
        eps = np.array(draw(st.tuples(components, components, components, components))) * 10.0 ** draw(
            st.integers(-12, -2))
        qe = qi + eps if kind == "near" else -qi + eps
        qe = qe / np.linalg.norm(qe)
    return qi, qe


@PROPS
@given(slerp_pairs(), st.floats(0.0, 1.0), st.booleans())
def test_slerp_unit_and_between_endpoints(pair, t, shortest):
    qi, qe = pair
    if not shortest:
        # exactly antipodal pairs have no defined great circle at all
        assume(interp.bivector_angle(qi, qe) < math.pi - interp.ANTIPODAL_WITHIN)
    r = interp.slerp(qi, qe, t, shortest)
    assert finite(r)
    assert quat.norm(r) == pytest.approx(1.0, abs=1e-14)
    end = interp.slerp(qi, qe, 1.0, shortest)
    # on the path: 4D angles from the ends add up to the whole (geodesic)
    a_total = interp.bivector_angle(qi, end)
    a1, a2 = interp.bivector_angle(qi, r), interp.bivector_angle(r, end)
    assert a1 + a2 == pytest.approx(a_total, abs=1e-12)
    # constant rate; below 1 deg the linear branch deviates by up to
    # ~a^3 / 60 ~ 1e-7 rad (a = 1 deg): tolerance 3e-7
    assert a1 == pytest.approx(t * a_total, abs=3e-7)
    if shortest:
        # the short path never turns by more than 180 deg (4D angle pi/2)
        assert a_total <= math.pi / 2 + 1e-12
        assert qi @ end >= -1e-15


@PROPS
@given(slerp_pairs(), st.floats(0.0, 1.0))
def test_slerp_does_not_mutate(pair, t):
    qi, qe = pair
    ki, ke = qi.copy(), qe.copy()
    interp.slerp(qi, qe, t)
    interp.slerp(qi, qe, t, shortest_path=False)
    np.testing.assert_array_equal(qi, ki)
    np.testing.assert_array_equal(qe, ke)
