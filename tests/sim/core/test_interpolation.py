"""SLERP and the bivector angle (sim.core.interpolation), Hoffmann Appendix C.

References: scipy.spatial.transform.Slerp (with Hoffmann's Q the conjugate of
scipy's quaternion), the closed form of a single-axis rotation, the Lagrange
identity |P^Q|^2 = |P|^2 |Q|^2 - (P.Q)^2, and arccos of the dot product.
Attitude errors are rotation angles from scipy, so Q and -Q compare equal.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from sim.core import interpolation as interp
from sim.core import quaternion as quat
from oracle import attitude_error, scipy_rotation, unit

EPS = np.finfo(float).eps
SEED = 777





def random_pairs(n, seed=SEED):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 4))
    b = rng.normal(size=(n, 4))
    return [(unit(x), unit(y)) for x, y in zip(a, b)]


PAIRS = random_pairs(20)
TS = np.linspace(0.0, 1.0, 11)
IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


# ----------------------------------------------------------- bivector (angle)
@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_bivector_norm_lagrange_identity(i):
    rng = np.random.default_rng(i)
    p, q = rng.normal(size=4), rng.normal(size=4)
    b = interp.bivector(p, q)
    assert b.shape == (6,)
    expected = (p @ p) * (q @ q) - (p @ q) ** 2
    assert b @ b == pytest.approx(expected, rel=1e-12, abs=1e-14)
    assert interp.bivector_norm(p, q) == pytest.approx(math.sqrt(expected), rel=1e-12)


def test_bivector_antisymmetric_and_zero_for_parallel():
    p, q = PAIRS[0]
    np.testing.assert_allclose(interp.bivector(p, q), -interp.bivector(q, p), atol=0)
    np.testing.assert_array_equal(interp.bivector(p, 2.0 * p), np.zeros(6))  # exact scaling


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_bivector_angle_equals_arccos_of_dot(i):
    p, q = PAIRS[i]
    c = float(p @ q)
    a = interp.bivector_angle(p, q)
    assert 0.0 <= a <= math.pi
    # half the angle from the chord, well conditioned everywhere (unit p, q)
    assert a == pytest.approx(2.0 * math.atan2(np.linalg.norm(p - q), np.linalg.norm(p + q)), abs=1e-14)
    if abs(c) <= 0.99:  # arccos is ill-conditioned near the ends
        assert a == pytest.approx(math.acos(c), abs=1e-14)


@pytest.mark.parametrize(
    "p, q, expected",
    [
        ((0, 0, 0, 1), (0, 0, 0, 1), 0.0),
        ((0, 0, 0, 1), (0, 0, 0, -1), math.pi),
        ((0, 0, 0, 1), (1, 0, 0, 0), math.pi / 2),
        ((0, 0, 0, 2), (0, 0, 3, 3), math.pi / 4),
    ],
    ids=["identity", "antipodal", "orthogonal", "non_unit"],
)
def test_bivector_angle_named(p, q, expected):
    assert interp.bivector_angle(p, q) == pytest.approx(expected, abs=4 * EPS)


@pytest.mark.parametrize("delta", [1e-12, 1e-9, 1e-6], ids=["tiny", "small", "milli_micro"])
def test_bivector_angle_accurate_near_ends(delta):
    # where arccos(dot) loses all digits, atan2(|P^Q|, P.Q) keeps them
    p = IDENTITY
    q = np.array([math.sin(delta), 0.0, 0.0, math.cos(delta)])
    assert interp.bivector_angle(p, q) == pytest.approx(delta, rel=1e-9)
    assert interp.bivector_angle(p, -q) == pytest.approx(math.pi - delta, rel=1e-15, abs=1e-15)


# ------------------------------------------------------------------- slerp
@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_slerp_endpoints_exact(i):
    qi, qe = PAIRS[i]
    np.testing.assert_allclose(interp.slerp(qi, qe, 0.0), qi, rtol=0, atol=4 * EPS)
    end = interp.slerp(qi, qe, 1.0)
    # qe, or -qe on the short path (the same attitude)
    sign = 1.0 if qi @ qe >= 0 else -1.0
    np.testing.assert_allclose(end, sign * qe, rtol=0, atol=4 * EPS)
    np.testing.assert_allclose(interp.slerp(qi, qe, 1.0, shortest_path=False), qe, rtol=0, atol=4 * EPS)


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_slerp_matches_scipy(i):
    qi, qe = PAIRS[i]
    rots = Rotation.concatenate([scipy_rotation(qi), scipy_rotation(qe)])
    ref = Slerp([0.0, 1.0], rots)(TS)
    for t, r in zip(TS, ref):
        q = interp.slerp(qi, qe, t)
        assert (r.inv() * scipy_rotation(q)).magnitude() < 1e-13


@pytest.mark.parametrize("i", range(len(PAIRS)))
@pytest.mark.parametrize("shortest", [True, False], ids=["short", "long"])
def test_slerp_constant_angular_rate(i, shortest):
    # equal t steps give equal rotation-angle increments from qi
    qi, qe = PAIRS[i]
    total = attitude_error(qi, interp.slerp(qi, qe, 1.0, shortest))
    for t in TS:
        q = interp.slerp(qi, qe, t, shortest)
        assert quat.norm(q) == pytest.approx(1.0, abs=8 * EPS)
        # along the short path the angle from qi is t * total; along the long
        # path the rotation angle from qi is min(t A, 2 pi - t A), A = 4D angle * 2
        a4 = interp.bivector_angle(qi, qe)
        if shortest:
            expected = t * total
        else:
            expected = min(2 * t * a4, 2 * math.pi - 2 * t * a4)
        assert attitude_error(qi, q) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_slerp_short_path_never_exceeds_half_turn(i):
    # with dot < 0 the short path uses -qe: the total rotation is <= 180 deg
    # and the interpolant stays in qi's hemisphere
    qi, qe = PAIRS[i]
    if qi @ qe > 0:
        qe = -qe
    total = attitude_error(qi, qe)
    for t in TS:
        q = interp.slerp(qi, qe, t)
        assert q @ qi >= -1e-15
        assert attitude_error(qi, q) <= total + 1e-12
        assert attitude_error(qi, q) <= math.pi


@pytest.mark.parametrize("angle_deg", [60.0, 179.0, 181.0, 270.0, 300.0, 350.0])
def test_slerp_single_axis_closed_form(angle_deg):
    # qi = identity, qe = rotation by A about an axis: the short path turns
    # by t A if A <= 180 deg, else by -t (360 - A); the long path turns by t A.
    axis = (0.2, -0.5, 1.0)
    a = math.radians(angle_deg)
    qe = quat.from_axis_angle(axis, a)
    short_a = a if a <= math.pi else a - 2 * math.pi
    for t in TS:
        assert attitude_error(interp.slerp(IDENTITY, qe, t), quat.from_axis_angle(axis, t * short_a)) < 1e-13
        assert attitude_error(interp.slerp(IDENTITY, qe, t, shortest_path=False),
                              quat.from_axis_angle(axis, t * a)) < 1e-13


def test_slerp_long_way_goes_the_other_direction():
    # -Q(90 deg about z) = Q(-270 deg about z), dot with identity < 0.  The
    # short path turns +90 deg (at t = 2/3: +60 deg), the long path -270 deg
    # (at t = 2/3: -180 deg).
    qe_far = -quat.from_axis_angle((0, 0, 1), math.pi / 2)
    q_short = interp.slerp(IDENTITY, qe_far, 2 / 3, shortest_path=True)
    q_long = interp.slerp(IDENTITY, qe_far, 2 / 3, shortest_path=False)
    assert attitude_error(q_short, quat.from_axis_angle((0, 0, 1), math.pi / 3)) < 1e-13
    assert attitude_error(q_long, quat.from_axis_angle((0, 0, 1), math.pi)) < 1e-13


@pytest.mark.parametrize("angle_deg", [358.0, 359.0, 359.5])
def test_slerp_long_way_near_full_turn(angle_deg):
    a = math.radians(angle_deg)
    qe = quat.from_axis_angle((0, 0, 1), a)
    for t in (0.25, 0.5, 0.75, 1.0 - 1e-9):
        q = interp.slerp(IDENTITY, qe, t, shortest_path=False)
        assert attitude_error(q, quat.from_axis_angle((0, 0, 1), t * a)) < 1e-9


@pytest.mark.parametrize("qi", [IDENTITY, unit((0.1, -0.7, 0.3, 0.2)), np.array([1.0, 0.0, 0.0, 0.0])],
                         ids=["identity", "oblique", "x_180"])
def test_slerp_antipodal_no_nan(qi):
    # dot = -1 (qe = -qi: the same attitude)
    qe = -qi
    for t in TS:
        q = interp.slerp(qi, qe, t)
        assert np.all(np.isfinite(q))
        assert attitude_error(q, qi) < 1e-15  # short path: no motion at all
        q_long = interp.slerp(qi, qe, t, shortest_path=False)
        assert np.all(np.isfinite(q_long))
        assert quat.norm(q_long) == pytest.approx(1.0, abs=8 * EPS)
        # a full 360 deg turn: the rotation angle from qi is min(2 pi t, 2 pi (1 - t))
        assert attitude_error(q_long, qi) == pytest.approx(2 * math.pi * min(t, 1 - t), abs=1e-12)
    np.testing.assert_allclose(interp.slerp(qi, qe, 1.0, shortest_path=False), qe, atol=4 * EPS)


@pytest.mark.parametrize("qi", [IDENTITY, unit((0.1, -0.7, 0.3, 0.2))], ids=["identity", "oblique"])
def test_slerp_equal_endpoints_no_nan(qi):
    # dot = +1: no division by sin(0)
    for shortest in (True, False):
        for t in TS:
            q = interp.slerp(qi, qi.copy(), t, shortest)
            assert np.all(np.isfinite(q))
            np.testing.assert_allclose(q, qi, atol=4 * EPS)


@pytest.mark.parametrize("angle", [1e-10, 1e-6, 1e-3, math.radians(1.5), math.radians(1.99)],
                         ids=["tiny", "small", "milli", "just_linear", "edge_linear"])
def test_slerp_linear_branch_still_accurate(angle):
    # 4D angles below 1 deg (rotations below 2 deg) are interpolated linearly
    # and renormalised; the deviation from the exact great circle is of order
    # angle^3 / 16 ~ 2e-7 rad at the edge: tolerance 1e-6 rad there.
    axis = (1.0, 1.0, -0.5)
    q0 = unit((0.3, 0.1, -0.2, 0.9))
    q1 = quat.product(quat.from_axis_angle(axis, angle), q0)
    for t in TS:
        q = interp.slerp(q0, q1, t)
        assert quat.norm(q) == pytest.approx(1.0, abs=8 * EPS)
        exact = quat.product(quat.from_axis_angle(axis, t * angle), q0)
        assert attitude_error(q, exact) < max(1e-6 * (angle / math.radians(2)) ** 3, 1e-15)


@pytest.mark.parametrize("t, expected", [(-0.5, 0.0), (1.5, 1.0)], ids=["below", "above"])
def test_slerp_clamps_t(t, expected):
    qi, qe = PAIRS[0]
    np.testing.assert_allclose(interp.slerp(qi, qe, t), interp.slerp(qi, qe, expected), atol=0)


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_slerp_stays_on_great_circle_between_endpoints(i):
    # every interpolant is a combination a qi + b qe' with a, b >= 0
    # (qe' = qe or -qe): the path lies on the arc between the endpoints
    qi, qe = PAIRS[i]
    end = interp.slerp(qi, qe, 1.0)
    m = np.column_stack([qi, end])
    for t in TS[1:-1]:
        q = interp.slerp(qi, qe, t)
        coef, *_ = np.linalg.lstsq(m, q, rcond=None)
        np.testing.assert_allclose(m @ coef, q, atol=1e-14)
        assert np.all(coef >= -1e-14)


def test_slerp_does_not_mutate_inputs():
    qi = np.array([0.1, 0.2, 0.3, 0.9])
    qe = np.array([-0.5, 0.1, 0.2, -0.8])  # dot < 0: the short path flips qe
    qi, qe = qi / np.linalg.norm(qi), qe / np.linalg.norm(qe)
    keep_i, keep_e = qi.copy(), qe.copy()
    for t in TS:
        interp.slerp(qi, qe, t)
        interp.slerp(qi, qe, t, shortest_path=False)
    path = interp.SlerpPath(qi, qe)
    path(0.5)
    np.testing.assert_array_equal(qi, keep_i)
    np.testing.assert_array_equal(qe, keep_e)


def test_slerp_path_reports_angle():
    # the prepared angle is the 4D angle after the shortest-path choice
    qi = IDENTITY
    qe = quat.from_axis_angle((0, 0, 1), math.radians(300.0))
    assert interp.SlerpPath(qi, qe).angle == pytest.approx(math.radians(30.0), abs=1e-14)
    assert interp.SlerpPath(qi, qe, shortest_path=False).angle == pytest.approx(math.radians(150.0), abs=1e-14)


def test_sine_cosine_are_those_of_the_inputs_rescaled_to_a_largest_component_of_one():
    # p = 2 (1, 0, 0, 1), q = 3 (0, 1, 0, 1): |P^Q| = |(1, 0, 1, 0, -1, 0)| = sqrt 3, P.Q = 1
    s, c = interp.sine_cosine((2.0, 0.0, 0.0, 2.0), (0.0, 3.0, 0.0, 3.0))
    assert s == pytest.approx(math.sqrt(3.0), rel=1e-15) and c == pytest.approx(1.0, rel=1e-15)
    s, c = interp.sine_cosine((1e200, 0.0, 0.0, 1e200), (0.0, 1e-200, 0.0, 1e-200))
    assert s == pytest.approx(math.sqrt(3.0), rel=1e-15) and c == pytest.approx(1.0, rel=1e-15)


def test_a_full_turn_without_shortest_path_goes_about_body_x_the_right_hand_way():
    """From Q to -Q the direction is undefined; the path turns about body x by a = 2 pi t, so at
    t = 1/4 it is Hoffmann's (2.1) quarter turn cos(a/2) - x sin(a/2), written out here."""
    identity = (0.0, 0.0, 0.0, 1.0)
    q = interp.slerp(identity, (0.0, 0.0, 0.0, -1.0), 0.25, shortest_path=False)
    np.testing.assert_allclose(q, [-math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)], atol=1e-15)
    np.testing.assert_allclose(interp.slerp(identity, (0.0, 0.0, 0.0, -1.0), 1.0, shortest_path=False),
                               [0.0, 0.0, 0.0, -1.0], atol=0)


def test_a_half_turn_keeps_the_end_quaternion_the_docstring_names():
    """qi . qe = 0 (a 180 deg turn): |-qe - qi| equals |qe - qi|, so qe is not replaced (strictly
    shorter only) and the middle of the path is (qi + qe) / |qi + qe|."""
    qi, qe = (0.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 0.0)
    np.testing.assert_allclose(interp.slerp(qi, qe, 0.5), [math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5)], atol=1e-15)


def test_a_command_reaches_its_target_and_stops_moving_at_the_end_of_its_slerp_time():
    from sim.core.command import CommandInterpolator

    command = CommandInterpolator((0.0, 0.0, 0.0, 1.0))
    command.command((0.0, 0.0, math.radians(90.0)), t=2.0, slerp_time=1.0)
    assert command.moving
    halfway = command.update(2.5)
    assert command.moving
    np.testing.assert_allclose(halfway, [-math.sin(math.pi / 8), 0.0, 0.0, math.cos(math.pi / 8)], atol=1e-15)
    assert command.update(3.0) == command.target and not command.moving
    command.command((0.0, 0.0, 0.0), t=3.0, slerp_time=1.0)
    command.update(4.5)  # past the end: at the target, done
    assert command.qc == command.target and not command.moving
