"""Attitude determination (sim.gnc.estimation: TRIAD, q-method, QUEST) against scipy's Wahba solver,
and the stacked quaternion helpers (sim.gnc.attitude) against sim.core.quaternion and Markley & Crassidis."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import quaternion as Q
from sim.gnc import attitude as A
from sim.gnc import estimation as E


def _random_q(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _observations(rng, n, noise):
    q = _random_q(rng)
    r = rng.normal(size=(n, 3))
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    b = r @ Q.cayley(q).T + noise * rng.normal(size=(n, 3))
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return q, b, r, rng.uniform(0.2, 3.0, n)


def _wahba(b, r, w):
    """scipy's solution of Wahba's problem as a Cayley matrix: b ~ R r, so C = R.as_matrix()."""
    return Rotation.align_vectors(b, r, weights=w)[0].as_matrix()


# ------------------------------------------------------------------ the helpers
def test_stacked_product_cayley_and_rotation_vector_match_the_single_ones():
    rng = np.random.default_rng(0)
    qs, ss = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
    for q, s, got_p, got_c in zip(qs, ss, A.product(qs, ss), A.cayley(qs)):
        assert np.allclose(got_p, Q.product(q, s), rtol=0, atol=1e-15)
        assert np.allclose(got_c, Q.cayley(q), rtol=0, atol=1e-15)
    for a in rng.normal(size=(20, 3)) * np.repeat([[0.1], [1.0]], 10, axis=0):
        assert np.allclose(A.from_rotation_vector(a), Q.from_axis_angle(a, np.linalg.norm(a)), rtol=0, atol=1e-15)
        assert np.allclose(A.rotation_vector(A.from_rotation_vector(a)), a, rtol=1e-13, atol=1e-15)
    for a in (np.array([0.9e-4, 0.0, 0.0]), np.array([0.0, 1.1e-4, 0.0])):     # either side of the series' switch
        assert np.allclose(A.from_rotation_vector(a), Q.from_axis_angle(a, np.linalg.norm(a)), rtol=1e-14, atol=0)
        assert np.allclose(A.rotation_vector(Q.from_axis_angle(a, np.linalg.norm(a))), a, rtol=1e-14, atol=0)
    tiny = np.array([3e-9, -1e-9, 2e-9])
    assert np.allclose(A.rotation_vector(A.from_rotation_vector(tiny)), tiny, rtol=1e-12, atol=0)
    # C(δQ(a)) = exp(-[a×]): the error-state convention of the filter
    a = np.array([0.3, -0.1, 0.2])
    from scipy.linalg import expm
    assert np.allclose(A.cayley(A.from_rotation_vector(a)), expm(-A.cross_matrix(a)), rtol=0, atol=1e-15)


def test_from_cayley_inverts_cayley_in_every_branch():
    rng = np.random.default_rng(1)
    qs = rng.normal(size=(2000, 4))
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    qs = np.concatenate([qs, np.eye(4), -np.eye(4)])          # the four branches of Shepperd's choice at their peak
    got = A.from_cayley(A.cayley(qs))
    assert np.abs(np.abs(np.sum(got * qs, axis=1)) - 1.0).max() < 1e-15
    assert (got[:, 3] >= 0).all()


def test_hoffmann_product_is_markley_crassidis_otimes_on_the_conjugates():
    """Markley & Crassidis: A(q) = (q4^2 - |q|^2) I + 2 q q^T - 2 q4 [q×], q ⊗ p = [p4 q + q4 p - q x p; q4 p4 - q.p]."""
    rng = np.random.default_rng(2)

    def a_mc(q):
        v, s = q[:3], q[3]
        return (s * s - v @ v) * np.eye(3) + 2 * np.outer(v, v) - 2 * s * A.cross_matrix(v)

    def otimes(q, p):
        return np.r_[p[3] * q[:3] + q[3] * p[:3] - np.cross(q[:3], p[:3]), q[3] * p[3] - q[:3] @ p[:3]]

    for _ in range(20):
        q, p = _random_q(rng), _random_q(rng)
        assert np.allclose(a_mc(Q.conjugate(q)), Q.cayley(q), rtol=0, atol=1e-15)
        assert np.allclose(a_mc(otimes(q, p)), a_mc(q) @ a_mc(p), rtol=0, atol=1e-15)
        assert np.allclose(otimes(Q.conjugate(q), Q.conjugate(p)), Q.conjugate(Q.product(q, p)), atol=1e-15)
        assert np.allclose(A.cayley(A.product(q, p)), A.cayley(q) @ A.cayley(p), rtol=0, atol=1e-15)


# ------------------------------------------------------------------ Wahba's problem
@pytest.mark.parametrize("n", [2, 3, 5, 12])
@pytest.mark.parametrize("noise", [0.0, 1e-3, 0.1])
@pytest.mark.parametrize("method", [E.q_method, E.quest], ids=["q_method", "quest"])
def test_q_method_and_quest_solve_wahba_as_scipy(method, n, noise):
    rng = np.random.default_rng(100 * n + int(noise * 1e4))
    for _ in range(20):
        q, b, r, w = _observations(rng, n, noise)
        assert np.abs(Q.cayley(method(b, r, w)) - _wahba(b, r, w)).max() < 1e-10
        if noise == 0.0:
            assert Q.rotation_angle(method(b, r, w), q) < 1e-7


@pytest.mark.parametrize("method", [E.q_method, E.quest], ids=["q_method", "quest"])
@pytest.mark.parametrize("axis", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, -2, 3)])
def test_a_rotation_by_180_degrees(method, axis):
    """QUEST's [adj(rho I - S) z; det(rho I - S)] vanishes here: the sequential rotations must take over."""
    rng = np.random.default_rng(3)
    q = Q.from_axis_angle(axis, math.pi)
    r = rng.normal(size=(4, 3))
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    b = r @ Q.cayley(q).T
    assert Q.rotation_angle(method(b, r), q) < 1e-7
    assert np.abs(Q.cayley(method(b, r)) - _wahba(b, r, None)).max() < 1e-10


@pytest.mark.parametrize("method", [E.q_method, E.quest], ids=["q_method", "quest"])
def test_a_stack_of_problems_is_each_problem_alone(method):
    rng = np.random.default_rng(4)
    problems = [_observations(rng, 4, 0.01) for _ in range(30)]
    b = np.stack([p[1] for p in problems])
    r = np.stack([p[2] for p in problems])
    w = np.stack([p[3] for p in problems])
    stacked = method(b, r, w)
    for i in range(30):
        assert np.allclose(stacked[i], method(b[i], r[i], w[i]), rtol=0, atol=1e-15)


def test_quest_weights_matter():
    """A heavy weight on one observation pulls the solution onto it (the weights are not ignored)."""
    rng = np.random.default_rng(5)
    _, b, r, _ = _observations(rng, 3, 0.05)
    heavy = E.quest(b, r, [1e6, 1.0, 1.0])
    assert np.arccos(np.clip((Q.cayley(heavy) @ r[0]) @ b[0], -1, 1)) < 1e-5
    assert np.arccos(np.clip((Q.cayley(E.quest(b, r)) @ r[0]) @ b[0], -1, 1)) > 1e-3


# ------------------------------------------------------------------ TRIAD
def test_triad_is_scipy_with_the_first_vector_held_exactly():
    """scipy's align_vectors with an infinite first weight: the first pair exact, the second best-fit."""
    rng = np.random.default_rng(6)
    for _ in range(50):
        q, b, r, _ = _observations(rng, 2, 0.05)
        got = E.triad(b[0], b[1], r[0], r[1])
        ref = Rotation.align_vectors(b, r, weights=[np.inf, 1.0])[0].as_matrix()
        assert np.abs(Q.cayley(got) - ref).max() < 1e-10
        assert np.allclose(Q.cayley(got) @ r[0], b[0], rtol=0, atol=1e-14)


def test_triad_closed_form_without_noise_and_in_a_stack():
    """Noise-free vectors of any length give the attitude exactly; a stack is each problem alone."""
    rng = np.random.default_rng(7)
    qs = np.stack([_random_q(rng) for _ in range(40)])
    r1, r2 = rng.normal(size=(40, 3)) * 3.0, rng.normal(size=(40, 3)) * 1e-5   # a field in tesla, say
    b1, b2 = A.rotate(qs, r1), A.rotate(qs, r2)
    got = E.triad(b1, b2, r1, r2)
    for i in range(40):
        assert Q.rotation_angle(got[i], qs[i]) < 1e-9
        assert np.array_equal(got[i], E.triad(b1[i], b2[i], r1[i], r2[i]))
