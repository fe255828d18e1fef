"""Quaternion algebra and conversions (sim.core.quaternion) against independent references.

Conventions (sim/__init__.py): Q = (q1, q2, q3, q4), q4 the scalar, Q the
coordinate transformation inertial -> body, x_B = cayley(Q) @ x_I.  In scipy's
terms cayley(Q) == Rotation.from_quat(conj(Q)).as_matrix().T, i.e. scipy's
rotation of Q is the body -> inertial attitude and its quaternion (x, y, z, w)
is the conjugate of Q.

References used here: scipy.spatial.transform.Rotation, the dot/cross form of
the product written with numpy (Hoffmann (1.9)), the sandwich product (2.2),
closed forms (2.8), (3.30)-(3.32), and finite differences.  Attitude errors are
angles (scipy's magnitude of the relative rotation), so Q and -Q compare equal.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import quaternion as quat
from oracle import attitude_error, scipy_rotation

EPS = np.finfo(float).eps
SEED = 20240601


# ----------------------------------------------------------------- helpers


def product_dot_cross(q, s):
    """Hoffmann (1.9): (q4 s4 - q.s) + (q4 s + s4 q + q x s), scalar last."""
    q = np.asarray(q, dtype=float)
    s = np.asarray(s, dtype=float)
    v = q[3] * s[:3] + s[3] * q[:3] + np.cross(q[:3], s[:3])
    return np.append(v, q[3] * s[3] - q[:3] @ s[:3])


def skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def random_quats(n, seed=SEED, unit=True):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    if unit:
        q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q


def random_aircraft_angles(n, seed=SEED):
    rng = np.random.default_rng(seed)
    psi = rng.uniform(-math.pi, math.pi, n)
    theta = rng.uniform(-0.49 * math.pi, 0.49 * math.pi, n)
    phi = rng.uniform(-math.pi, math.pi, n)
    return np.column_stack([psi, theta, phi])


UNIT_QUATS = random_quats(25)
GENERAL_QUATS = random_quats(25, seed=SEED + 1, unit=False)

#: Named attitudes (unit quaternions, scalar last).
NAMED = {
    "identity": (0.0, 0.0, 0.0, 1.0),
    "minus_identity": (0.0, 0.0, 0.0, -1.0),
    "x_180": (1.0, 0.0, 0.0, 0.0),
    "y_180": (0.0, 1.0, 0.0, 0.0),
    "z_180": (0.0, 0.0, 1.0, 0.0),
    "x_90": (-math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)),
    "small_angle": tuple(quat.from_axis_angle((1.0, 2.0, 3.0), 1e-9)),
}


# ------------------------------------------------------------------ product
@pytest.mark.parametrize("i", range(len(GENERAL_QUATS) - 1))
def test_product_matrix_form_equals_dot_cross_form(i):
    q, s = GENERAL_QUATS[i], GENERAL_QUATS[i + 1]
    np.testing.assert_allclose(quat.product(q, s), product_dot_cross(q, s), rtol=0, atol=16 * EPS)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        # Hoffmann (1.4): i.j = k, j.k = i, k.i = j, i.i = -1, j.i = -k
        ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0)),
        ((0, 1, 0, 0), (0, 0, 1, 0), (1, 0, 0, 0)),
        ((0, 0, 1, 0), (1, 0, 0, 0), (0, 1, 0, 0)),
        ((1, 0, 0, 0), (1, 0, 0, 0), (0, 0, 0, -1)),
        ((0, 1, 0, 0), (1, 0, 0, 0), (0, 0, -1, 0)),
        ((0, 0, 0, 1), (0.3, -0.2, 0.1, 0.9), (0.3, -0.2, 0.1, 0.9)),
    ],
    ids=["i_j", "j_k", "k_i", "i_i", "j_i", "identity"],
)
def test_product_basis_table(a, b, expected):
    np.testing.assert_array_equal(quat.product(a, b), np.array(expected, dtype=float))


@pytest.mark.parametrize("i", range(len(UNIT_QUATS) - 1))
def test_product_composes_coordinate_transformations(i):
    # (2.9)-(2.10): x3 = Q2.x2.Q2' with x2 = Q1.x1.Q1', so Q = Q2.Q1 and
    # C(Q2.Q1) = C(Q2) C(Q1).
    q1, q2 = UNIT_QUATS[i], UNIT_QUATS[i + 1]
    np.testing.assert_allclose(quat.cayley(quat.product(q2, q1)), quat.cayley(q2) @ quat.cayley(q1),
                               rtol=0, atol=32 * EPS)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS) - 1))
def test_product_matches_scipy_composition(i):
    # C(Q) = R(Q)^T, so C(Q2) C(Q1) = (R(Q1) R(Q2))^T: Q2.Q1 is scipy's r1 * r2.
    q1, q2 = UNIT_QUATS[i], UNIT_QUATS[i + 1]
    composed = scipy_rotation(q1) * scipy_rotation(q2)
    assert attitude_error(quat.product(q2, q1), np.append(-composed.as_quat()[:3], composed.as_quat()[3])) < 1e-14
    assert (composed.inv() * scipy_rotation(quat.product(q2, q1))).magnitude() < 1e-14


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS) - 2))
def test_product_associative(i):
    a, b, c = GENERAL_QUATS[i:i + 3]
    left = quat.product(quat.product(a, b), c)
    right = quat.product(a, quat.product(b, c))
    scale = np.linalg.norm(a) * np.linalg.norm(b) * np.linalg.norm(c)
    np.testing.assert_allclose(left, right, rtol=0, atol=64 * EPS * scale)


def test_product_not_commutative():
    a, b = UNIT_QUATS[0], UNIT_QUATS[1]
    assert np.linalg.norm(quat.product(a, b) - quat.product(b, a)) > 1e-3


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS) - 1))
def test_product_conjugate_rule(i):
    # Hoffmann (1.12): (Q.S)' = S'.Q'
    q, s = GENERAL_QUATS[i], GENERAL_QUATS[i + 1]
    np.testing.assert_allclose(quat.conjugate(quat.product(q, s)),
                               quat.product(quat.conjugate(s), quat.conjugate(q)), rtol=0, atol=32 * EPS)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS) - 1))
def test_product_norm_multiplicative(i):
    q, s = GENERAL_QUATS[i], GENERAL_QUATS[i + 1]
    assert quat.norm(quat.product(q, s)) == pytest.approx(np.linalg.norm(q) * np.linalg.norm(s), rel=8 * EPS)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_product_with_conjugate_is_norm_squared(i):
    # Hoffmann (1.14): Q.Q' = |Q|^2 (a pure scalar)
    q = GENERAL_QUATS[i]
    np.testing.assert_allclose(quat.product(q, quat.conjugate(q)), [0, 0, 0, q @ q], rtol=0, atol=16 * EPS)


@pytest.mark.parametrize("bad", [(1.0, 2.0, 3.0), (1.0, 2.0, 3.0, 4.0, 5.0), np.ones((4, 3)), (), 1.0],
                         ids=["three", "five", "matrix_of_threes", "empty", "scalar"])
def test_product_bad_shape_raises(bad):
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.product(bad, (0.0, 0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.product((0.0, 0.0, 0.0, 1.0), bad)


def test_product_conjugate_and_cayley_of_a_stack_are_those_of_each_row():
    # one quaternion module (issue 41): a stack (N, 4) is taken row by row, each row as if alone, bit for bit
    qs, ss = np.array(GENERAL_QUATS[:-1]), np.array(GENERAL_QUATS[1:])
    stacked, conj, c = quat.product(qs, ss), quat.conjugate(qs), quat.cayley(qs)
    assert stacked.shape == (len(qs), 4) and conj.shape == (len(qs), 4) and c.shape == (len(qs), 3, 3)
    for k in range(len(qs)):
        assert np.array_equal(stacked[k], quat.product(qs[k], ss[k]))
        assert np.array_equal(conj[k], quat.conjugate(qs[k]))
        assert np.array_equal(c[k], quat.cayley(qs[k]))
    # and against scipy, the oracle: C(Q) is scipy's as_matrix() of the same four numbers (scalar last), and
    # C(Q . S) = C(Q) C(S) for unit quaternions
    from scipy.spatial.transform import Rotation
    u, v = qs / np.linalg.norm(qs, axis=1)[:, None], ss / np.linalg.norm(ss, axis=1)[:, None]
    np.testing.assert_allclose(quat.cayley(u), Rotation.from_quat(u).as_matrix(), rtol=0, atol=1e-14)
    want = Rotation.from_quat(u).as_matrix() @ Rotation.from_quat(v).as_matrix()
    np.testing.assert_allclose(quat.cayley(quat.product(u, v)), want, rtol=0, atol=1e-14)


# --------------------------------------------------- conjugate, norm, normalize
def test_conjugate_flips_vector_part():
    np.testing.assert_array_equal(quat.conjugate((1.0, -2.0, 3.0, -4.0)), [-1.0, 2.0, -3.0, -4.0])


def test_conjugate_is_inverse_for_unit():
    for q in UNIT_QUATS:
        np.testing.assert_allclose(quat.product(q, quat.conjugate(q)), [0, 0, 0, 1], atol=4 * EPS)
        np.testing.assert_allclose(quat.cayley(quat.conjugate(q)), quat.cayley(q).T, atol=8 * EPS)


def test_conjugate_and_normalize_do_not_mutate_input():
    q = np.array([1.0, -2.0, 3.0, -4.0])
    keep = q.copy()
    quat.conjugate(q)
    quat.normalize(q)
    quat.cayley(q)
    quat.product(q, q)
    quat.rotation_angle(q, q[::-1].copy())
    np.testing.assert_array_equal(q, keep)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_norm_and_normalize(i):
    q = GENERAL_QUATS[i]
    assert quat.norm(q) == pytest.approx(math.sqrt(sum(x * x for x in q)), rel=2 * EPS)
    n = quat.normalize(q)
    assert quat.norm(n) == pytest.approx(1.0, abs=4 * EPS)
    # same direction
    np.testing.assert_allclose(n * np.linalg.norm(q), q, rtol=4 * EPS)


@pytest.mark.parametrize("bad", [(0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0), (math.inf, 0.0, 0.0, 1.0)],
                         ids=["zero", "nan", "inf"])
def test_normalize_zero_or_nonfinite_raises(bad):
    with pytest.raises(ValueError, match="cannot normalise"):
        quat.normalize(bad)


@pytest.mark.parametrize("bad", [(1.0, 0.0, 0.0), np.zeros((2, 4))], ids=["three", "matrix"])
def test_normalize_bad_shape_raises(bad):
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.normalize(bad)


# ------------------------------------------------------------------- cayley
@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_cayley_matches_scipy(i):
    q = UNIT_QUATS[i]
    np.testing.assert_allclose(quat.cayley(q), scipy_rotation(q).as_matrix().T, rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("name", list(NAMED))
def test_cayley_named_attitudes_match_scipy(name):
    q = NAMED[name]
    np.testing.assert_allclose(quat.cayley(q), scipy_rotation(q).as_matrix().T, rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_cayley_orthonormal_det_one(i):
    c = quat.cayley(UNIT_QUATS[i])
    np.testing.assert_allclose(c @ c.T, np.eye(3), rtol=0, atol=8 * EPS)
    assert np.linalg.det(c) == pytest.approx(1.0, abs=8 * EPS)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_cayley_non_unit_is_norm_squared_times_rotation(i):
    q = GENERAL_QUATS[i]
    n2 = q @ q
    np.testing.assert_allclose(quat.cayley(q), n2 * scipy_rotation(q).as_matrix().T, rtol=0, atol=16 * EPS * n2)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_cayley_equals_sandwich_product(i):
    # Hoffmann (2.2): x2 = Q.x1.Q' with x as a pure quaternion (x, 0); the
    # fourth component of the sandwich is zero.
    q = GENERAL_QUATS[i]
    x = np.random.default_rng(i).normal(size=3)
    sandwich = quat.product(quat.product(q, np.append(x, 0.0)), quat.conjugate(q))
    scale = (q @ q) * np.linalg.norm(x)
    assert abs(sandwich[3]) < 16 * EPS * scale
    np.testing.assert_allclose(quat.cayley(q) @ x, sandwich[:3], rtol=0, atol=16 * EPS * scale)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0, math.pi / 2, 2.5, math.pi, -1.2])
def test_cayley_rotation_about_z_closed_form(alpha):
    # Hoffmann (2.4), (2.8): Q = cos(a/2) - k sin(a/2) gives the coordinate
    # transformation [[c, s, 0], [-s, c, 0], [0, 0, 1]].
    q = (0.0, 0.0, -math.sin(alpha / 2), math.cos(alpha / 2))
    c, s = math.cos(alpha), math.sin(alpha)
    np.testing.assert_allclose(quat.cayley(q), [[c, s, 0], [-s, c, 0], [0, 0, 1]], rtol=0, atol=4 * EPS)


def test_cayley_bad_shape_raises():
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.cayley((1.0, 0.0, 0.0))


def test_cayley_zero_quaternion_is_zero_matrix():
    # |Q|^2 times a rotation with |Q| = 0: the documented scaling, no exception.
    np.testing.assert_array_equal(quat.cayley((0.0, 0.0, 0.0, 0.0)), np.zeros((3, 3)))


# ----------------------------------------------------------------- v_matrix
@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_v_matrix_orthogonality(i):
    # Hoffmann (3.27): V V^T = I for unit Q, |Q|^2 I in general; V^T V too.
    q = GENERAL_QUATS[i]
    v = quat.v_matrix(q)
    np.testing.assert_allclose(v @ v.T, (q @ q) * np.eye(4), rtol=0, atol=16 * EPS * (q @ q))
    np.testing.assert_allclose(v.T @ v, (q @ q) * np.eye(4), rtol=0, atol=16 * EPS * (q @ q))
    vu = quat.v_matrix(UNIT_QUATS[i])
    np.testing.assert_allclose(vu @ vu.T, np.eye(4), rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("i", range(len(GENERAL_QUATS)))
def test_v_matrix_times_q(i):
    # Hoffmann (3.33): V(Q) Q = (0, 0, 0, 1) for unit Q, (0, 0, 0, |Q|^2) in general.
    q = GENERAL_QUATS[i]
    np.testing.assert_allclose(quat.v_matrix(q) @ q, [0, 0, 0, q @ q], rtol=0, atol=16 * EPS * (q @ q))
    np.testing.assert_allclose(quat.v_matrix(UNIT_QUATS[i]) @ UNIT_QUATS[i], [0, 0, 0, 1], rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_v_matrix_derivative_identities(i):
    # (3.34)-(3.35): V(P) Q = -V(Q) P in the first three rows (any Q, P);
    # for P = dQ/dt the fourth rows add to d|Q|^2/dt = 2 Q.P = 0.
    # (3.36): V(P) P = (0, 0, 0, |P|^2), i.e. Vdot Qdot vanishes in rows 1-3,
    # and |P|^2 = |w|^2 / 4 for unit Q.
    rng = np.random.default_rng(100 + i)
    q = UNIT_QUATS[i]
    w = rng.normal(size=3)
    p = quat.qdot_from_rates(q, w)
    any_p = rng.normal(size=4)
    s = quat.v_matrix(any_p) @ q + quat.v_matrix(q) @ any_p
    np.testing.assert_allclose(s[:3], 0.0, atol=16 * EPS)
    assert s[3] == pytest.approx(2 * q @ any_p, abs=16 * EPS)
    np.testing.assert_allclose(quat.v_matrix(p) @ q + quat.v_matrix(q) @ p, 0.0, atol=16 * EPS)
    np.testing.assert_allclose(quat.v_matrix(p) @ p, [0, 0, 0, w @ w / 4], rtol=0, atol=16 * EPS)


@pytest.mark.parametrize("alpha_dot", [0.7, -2.0])
@pytest.mark.parametrize("alpha", [0.0, 0.4, 2.0, -3.0])
def test_v_matrix_rotation_about_z_example(alpha, alpha_dot):
    # Hoffmann (3.30)-(3.32): Q = (0, 0, -sin(a/2), cos(a/2)) turning at
    # a_dot gives [w; 0] = 2 V(Q) dQ/dt = (0, 0, a_dot, 0).
    q = np.array([0.0, 0.0, -math.sin(alpha / 2), math.cos(alpha / 2)])
    qdot = 0.5 * alpha_dot * np.array([0.0, 0.0, -math.cos(alpha / 2), -math.sin(alpha / 2)])
    np.testing.assert_allclose(2 * quat.v_matrix(q) @ qdot, [0, 0, alpha_dot, 0], rtol=0, atol=8 * EPS)
    np.testing.assert_allclose(quat.rates_from_qdot(q, qdot), [0, 0, alpha_dot], rtol=0, atol=8 * EPS)
    np.testing.assert_allclose(quat.qdot_from_rates(q, (0.0, 0.0, alpha_dot)), qdot, rtol=0, atol=8 * EPS)


# ------------------------------------------------- qdot_from_rates / rates
@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_rates_from_qdot_inverts_qdot_from_rates(i):
    rng = np.random.default_rng(200 + i)
    q = UNIT_QUATS[i]
    w = rng.normal(size=3) * 3
    np.testing.assert_allclose(quat.rates_from_qdot(q, quat.qdot_from_rates(q, w)), w, rtol=0, atol=32 * EPS)
    # and the other way for a P orthogonal to Q (a tangent of the unit sphere)
    p = rng.normal(size=4)
    p -= (p @ q) * q
    np.testing.assert_allclose(quat.qdot_from_rates(q, quat.rates_from_qdot(q, p)), p, rtol=0, atol=32 * EPS)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_qdot_from_rates_is_tangent(i):
    # (1.15): Q.Qdot = 0, and |Qdot| = |w|/2
    q = UNIT_QUATS[i]
    w = np.random.default_rng(300 + i).normal(size=3)
    p = quat.qdot_from_rates(q, w)
    assert abs(q @ p) < 8 * EPS
    assert np.linalg.norm(p) == pytest.approx(np.linalg.norm(w) / 2, rel=8 * EPS)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS)))
def test_qdot_from_rates_gives_cayley_derivative(i):
    # Poisson: a vector fixed in inertial space seen from the body, (3.1):
    # dC/dt = -[w x] C.  Central differences with h = 1e-5: truncation
    # ~ h^2 |w|^3 ~ 1e-10, rounding ~ eps/h ~ 1e-11.
    q = UNIT_QUATS[i]
    w = np.random.default_rng(400 + i).normal(size=3)
    p = quat.qdot_from_rates(q, w)
    h = 1e-5
    dc = (quat.cayley(q + h * p) - quat.cayley(q - h * p)) / (2 * h)
    np.testing.assert_allclose(dc, -skew(w) @ quat.cayley(q), rtol=0, atol=1e-9)


def test_qdot_from_rates_matches_scipy_body_rate():
    # scipy's attitude r (body -> inertial) turning at body rate w for time h
    # is r * Rotation.from_rotvec(w h); Hoffmann's Q is its conjugate.
    h = 1e-6
    for i, q in enumerate(UNIT_QUATS[:10]):
        w = np.random.default_rng(500 + i).normal(size=3)
        r_next = scipy_rotation(q) * Rotation.from_rotvec(w * h)
        x = r_next.as_quat()
        q_next = np.array([-x[0], -x[1], -x[2], x[3]])
        if q_next @ q < 0:
            q_next = -q_next
        np.testing.assert_allclose((q_next - q) / h, quat.qdot_from_rates(q, w), rtol=0, atol=1e-6)


def test_rates_bad_shape_raises():
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.rates_from_qdot((0.0, 0.0, 0.0, 1.0), (1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.qdot_from_rates((0.0, 0.0, 1.0), (1.0, 2.0, 3.0))


# ---------------------------------------------------------- from_axis_angle
AXES = {
    "x": (1.0, 0.0, 0.0),
    "y": (0.0, 1.0, 0.0),
    "z": (0.0, 0.0, 1.0),
    "oblique": (1.0, -2.0, 0.5),
    "tiny_axis": (1e-12, 3e-12, -2e-12),
}


@pytest.mark.parametrize("angle", [0.0, 1e-9, 0.5, math.pi / 2, 3.0, math.pi, -2.0, 5.0],
                         ids=["zero", "small_angle", "half", "quarter_turn", "three", "half_turn", "negative",
                              "over_pi"])
@pytest.mark.parametrize("axis_name", list(AXES))
def test_from_axis_angle_matches_scipy_rotvec(axis_name, angle):
    # (2.1) is a coordinate-system rotation: its Cayley matrix is the
    # transpose of scipy's (active) rotation by the same rotation vector.
    axis = np.array(AXES[axis_name])
    n = axis / np.linalg.norm(axis)
    q = quat.from_axis_angle(axis, angle)
    expected = Rotation.from_rotvec(n * angle).as_matrix().T
    np.testing.assert_allclose(quat.cayley(q), expected, rtol=0, atol=16 * EPS)
    assert quat.norm(q) == pytest.approx(1.0, abs=4 * EPS)
    np.testing.assert_allclose(q, [*(-n * math.sin(angle / 2)), math.cos(angle / 2)], rtol=0, atol=4 * EPS)


def test_from_axis_angle_right_hand_screw():
    # Coordinate system turned +90 deg about z: the old x axis is seen along
    # -y of the new system, the old y axis along +x (Hoffmann (2.8)).
    c = quat.cayley(quat.from_axis_angle((0, 0, 1), math.pi / 2))
    np.testing.assert_allclose(c @ [1, 0, 0], [0, -1, 0], atol=4 * EPS)
    np.testing.assert_allclose(c @ [0, 1, 0], [1, 0, 0], atol=4 * EPS)


@pytest.mark.parametrize("axis", [(0.0, 0.0, 0.0), (math.nan, 0.0, 1.0), (math.inf, 0.0, 0.0), (1.0, 0.0),
                                  (1.0, 0, 0, 0)],
                         ids=["zero_axis", "nan_axis", "inf_axis", "two", "four"])
def test_from_axis_angle_bad_axis_raises(axis):
    with pytest.raises(ValueError, match="rotation axis"):
        quat.from_axis_angle(axis, 1.0)


# ------------------------------------------------------- aircraft angles
AIRCRAFT_GRID = random_aircraft_angles(60)

AIRCRAFT_NAMED = {
    "identity": (0.0, 0.0, 0.0),
    "yaw_90": (math.pi / 2, 0.0, 0.0),
    "pitch_45": (0.0, math.pi / 4, 0.0),
    "roll_90": (0.0, 0.0, math.pi / 2),
    "hoffmann_standard": tuple(np.radians([15.0, 30.0, 15.0])),
    "small_angle": (1e-9, -2e-9, 3e-9),
    "yaw_near_pi": (math.pi - 1e-9, 0.1, 0.2),
    "near_gimbal_lock_up": tuple(np.radians([30.0, 89.999, 20.0])),
    "near_gimbal_lock_down": tuple(np.radians([-120.0, -89.999, 45.0])),
}


@pytest.mark.parametrize("i", range(len(AIRCRAFT_GRID)))
def test_from_aircraft_angles_matches_scipy(i):
    psi, theta, phi = AIRCRAFT_GRID[i]
    q = quat.from_aircraft_angles(psi, theta, phi)
    r = Rotation.from_euler("ZYX", [psi, theta, phi])
    np.testing.assert_allclose(quat.cayley(q), r.as_matrix().T, rtol=0, atol=16 * EPS)
    x = r.as_quat()
    expected = np.array([-x[0], -x[1], -x[2], x[3]])
    # same quaternion up to sign (scipy may return the other hemisphere)
    sign = 1.0 if expected @ q >= 0 else -1.0
    np.testing.assert_allclose(q, sign * expected, rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("name", list(AIRCRAFT_NAMED))
def test_from_aircraft_angles_named_match_scipy(name):
    psi, theta, phi = AIRCRAFT_NAMED[name]
    q = quat.from_aircraft_angles(psi, theta, phi)
    r = Rotation.from_euler("ZYX", [psi, theta, phi])
    np.testing.assert_allclose(quat.cayley(q), r.as_matrix().T, rtol=0, atol=16 * EPS)


@pytest.mark.parametrize("theta_deg", [90.0, -90.0, 89.999, -89.999])
def test_from_aircraft_angles_gimbal_lock_matches_scipy(theta_deg):
    # The forward map has no singularity.
    a = np.radians([40.0, theta_deg, -25.0])
    np.testing.assert_allclose(quat.cayley(quat.from_aircraft_angles(*a)),
                               Rotation.from_euler("ZYX", a).as_matrix().T, rtol=0, atol=16 * EPS)


def test_from_aircraft_angles_is_product_of_single_axis_rotations():
    # (7.18): Q = Q_phi . Q_theta . Q_psi, about z, then y, then x.
    for psi, theta, phi in AIRCRAFT_GRID[:10]:
        expected = quat.product(quat.product(quat.from_axis_angle((1, 0, 0), phi),
                                             quat.from_axis_angle((0, 1, 0), theta)),
                                quat.from_axis_angle((0, 0, 1), psi))
        np.testing.assert_allclose(quat.from_aircraft_angles(psi, theta, phi), expected, rtol=0, atol=8 * EPS)


@pytest.mark.parametrize("i", range(len(AIRCRAFT_GRID)))
def test_as_aircraft_angles_matches_scipy(i):
    psi, theta, phi = AIRCRAFT_GRID[i]
    x = Rotation.from_euler("ZYX", [psi, theta, phi]).as_quat()
    q = np.array([-x[0], -x[1], -x[2], x[3]])
    np.testing.assert_allclose(quat.as_aircraft_angles(q), [psi, theta, phi], rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(quat.as_aircraft_angles(-q), [psi, theta, phi], rtol=0, atol=64 * EPS)
    np.testing.assert_allclose(quat.aircraft_angles(tuple(q)), [psi, theta, phi], rtol=0, atol=64 * EPS)


@pytest.mark.parametrize("name", list(AIRCRAFT_NAMED))
def test_as_aircraft_angles_named_round_trip(name):
    a = np.array(AIRCRAFT_NAMED[name])
    q = quat.from_aircraft_angles(*a)
    back = quat.as_aircraft_angles(q)
    # angles: the error grows like eps / cos(theta) near the lock
    tol = 64 * EPS / max(math.cos(a[1]), 1e-300) if abs(a[1]) > 1.5 else 64 * EPS
    np.testing.assert_allclose(back, a, rtol=0, atol=tol)
    assert attitude_error(quat.from_aircraft_angles(*back), q) < 1e-9


def test_as_aircraft_angles_ranges():
    for q in UNIT_QUATS:
        psi, theta, phi = quat.as_aircraft_angles(q)
        assert -math.pi <= psi <= math.pi
        assert -math.pi / 2 <= theta <= math.pi / 2
        assert -math.pi <= phi <= math.pi


def test_as_aircraft_angles_wraps_to_equivalent_angles():
    # theta beyond 90 deg is represented by (psi + pi, pi - theta, phi + pi).
    a = np.radians([10.0, 120.0, 30.0])
    back = quat.as_aircraft_angles(quat.from_aircraft_angles(*a))
    np.testing.assert_allclose(np.degrees(back), [-170.0, 60.0, -150.0], atol=1e-12)


@pytest.mark.parametrize("theta_deg", [89.9, 89.999, 89.99999, -89.9, -89.999, -89.99999])
@pytest.mark.parametrize("psi_deg, phi_deg", [(30.0, 20.0), (-120.0, 45.0), (170.0, -170.0)])
def test_as_aircraft_angles_near_gimbal_lock_attitude_round_trips(psi_deg, theta_deg, phi_deg):
    # Near the lock psi and phi lose accuracy (eps / cos theta), but the
    # decoded angles still describe the same attitude.
    q = quat.from_aircraft_angles(*np.radians([psi_deg, theta_deg, phi_deg]))
    back = quat.as_aircraft_angles(q)
    err = attitude_error(quat.from_aircraft_angles(*back), q)
    assert err < 1e-12 / math.cos(math.radians(theta_deg))


@pytest.mark.parametrize("theta_deg", [90.0, -90.0], ids=["gimbal_lock_up", "gimbal_lock_down"])
@pytest.mark.parametrize("psi_deg, phi_deg", [(30.0, 20.0), (-120.0, 45.0), (0.0, 0.0), (170.0, -170.0)])
def test_as_aircraft_angles_gimbal_lock_attitude_round_trips(psi_deg, theta_deg, phi_deg):
    # At theta = +-90 deg only phi -+ psi is defined: psi = 0 is reported and
    # phi carries the whole angle, so the attitude still round-trips.
    q = quat.from_aircraft_angles(*np.radians([psi_deg, theta_deg, phi_deg]))
    back = quat.as_aircraft_angles(q)
    assert back[1] == pytest.approx(math.radians(theta_deg), abs=1e-7)
    assert back[0] == 0.0
    assert attitude_error(quat.from_aircraft_angles(*back), q) < 1e-12
    # the same attitude as scipy's decoding (which also zeroes one angle)
    r = Rotation.from_euler("ZYX", np.radians([psi_deg, theta_deg, phi_deg]))
    assert (r.inv() * Rotation.from_euler("ZYX", back)).magnitude() < 1e-12


def test_as_aircraft_angles_bad_shape_raises():
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.as_aircraft_angles((0.0, 0.0, 1.0))


# ---------------------------------------------------- classical Euler z-x-z
def random_zxz(n, seed=SEED + 7):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(-math.pi, math.pi, n), rng.uniform(0.02, math.pi - 0.02, n),
                            rng.uniform(-math.pi, math.pi, n)])


ZXZ_GRID = random_zxz(40)


@pytest.mark.parametrize("i", range(len(ZXZ_GRID)))
def test_from_euler_zxz_matches_scipy(i):
    phi, theta, psi = ZXZ_GRID[i]
    q = quat.from_euler_zxz(phi, theta, psi)
    np.testing.assert_allclose(quat.cayley(q), Rotation.from_euler("ZXZ", [phi, theta, psi]).as_matrix().T,
                               rtol=0, atol=16 * EPS)


@pytest.mark.parametrize("i", range(len(ZXZ_GRID)))
def test_as_euler_zxz_matches_scipy(i):
    phi, theta, psi = ZXZ_GRID[i]
    x = Rotation.from_euler("ZXZ", [phi, theta, psi]).as_quat()
    q = np.array([-x[0], -x[1], -x[2], x[3]])
    np.testing.assert_allclose(quat.as_euler_zxz(q), [phi, theta, psi], rtol=0, atol=1e-13)


@pytest.mark.parametrize("theta", [1e-3, 1e-6, math.pi - 1e-6, math.pi],
                         ids=["near_zero", "very_near_zero", "near_pi", "pi"])
def test_as_euler_zxz_near_singular_attitude_round_trips(theta):
    q = quat.from_euler_zxz(0.5, theta, -1.1)
    back = quat.as_euler_zxz(q)
    assert 0.0 <= back[1] <= math.pi
    assert attitude_error(quat.from_euler_zxz(*back), q) < 1e-9


@pytest.mark.parametrize("theta", [0.0, math.pi], ids=["singular_zero", "singular_pi"])
@pytest.mark.parametrize("phi, psi", [(0.5, 0.35), (-2.1, 0.8), (0.0, 0.0), (3.0, 3.0)])
def test_as_euler_zxz_singular_attitude_round_trips(phi, theta, psi):
    # At theta = 0 (and pi) only phi +- psi is defined: psi = 0 is reported
    # and phi carries the whole angle.
    q = quat.from_euler_zxz(phi, theta, psi)
    back = quat.as_euler_zxz(q)
    assert back[1] == pytest.approx(theta, abs=1e-12)
    assert back[2] == 0.0
    assert attitude_error(quat.from_euler_zxz(*back), q) < 1e-12


def test_from_euler_zxz_is_product_of_single_axis_rotations():
    # (6.18): Q = Q3 . Q2 . Q1 about z by phi, x by theta, z by psi; compare
    # with the matrix product (6.11) written out: T43 T32 T21.
    def rz(a):
        return np.array([[math.cos(a), math.sin(a), 0], [-math.sin(a), math.cos(a), 0], [0, 0, 1]])

    def rx(a):
        return np.array([[1, 0, 0], [0, math.cos(a), math.sin(a)], [0, -math.sin(a), math.cos(a)]])

    for phi, theta, psi in ZXZ_GRID[:10]:
        np.testing.assert_allclose(quat.cayley(quat.from_euler_zxz(phi, theta, psi)), rz(psi) @ rx(theta) @ rz(phi),
                                   rtol=0, atol=16 * EPS)


# ------------------------------------------------------------ rotation_angle
@pytest.mark.parametrize("i", range(len(UNIT_QUATS) - 1))
def test_rotation_angle_matches_scipy(i):
    p, q = UNIT_QUATS[i], UNIT_QUATS[i + 1]
    assert quat.rotation_angle(p, q) == pytest.approx(attitude_error(p, q), abs=1e-14)


@pytest.mark.parametrize("i", range(len(UNIT_QUATS) - 1))
def test_rotation_angle_symmetric_in_sign_and_order(i):
    p, q = UNIT_QUATS[i], UNIT_QUATS[i + 1]
    a = quat.rotation_angle(p, q)
    assert quat.rotation_angle(p, -q) == a
    assert quat.rotation_angle(-p, q) == a
    assert quat.rotation_angle(q, p) == pytest.approx(a, abs=4 * EPS)
    assert 0.0 <= a <= math.pi


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-8, 1e-3, 1.0, math.pi / 2, 3.0, math.pi - 1e-9, math.pi],
                         ids=["identity", "tiny", "small_angle", "milli", "one", "quarter", "three", "near_pi",
                              "antipodal_attitude"])
def test_rotation_angle_single_axis_closed_form(angle):
    # relative accuracy holds even for tiny angles (atan2 with the bivector)
    q0 = UNIT_QUATS[3]
    q1 = quat.product(quat.from_axis_angle((0.3, -1.0, 2.0), angle), q0)
    assert quat.rotation_angle(q0, q1) == pytest.approx(angle, rel=1e-9, abs=8 * EPS)


def test_rotation_angle_scale_invariant():
    p, q = GENERAL_QUATS[0], GENERAL_QUATS[1]
    a = quat.rotation_angle(p, q)
    assert quat.rotation_angle(3.0 * p, 0.25 * q) == pytest.approx(a, rel=1e-14)
    assert a == pytest.approx(attitude_error(p, q), abs=1e-14)


def test_rotation_angle_bad_shape_raises():
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        quat.rotation_angle((0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0))
