"""Wahba's problem (sim.gnc.estimation: the q-method and QUEST) beyond test_attitude_determination.py: the sign
convention of the result, unweighted stacks, vectors of any length and QUEST's fast Newton iteration from
Shuster & Oh's upper bound lambda_0 = sum a_i |b_i| |r_i|; scipy's Rotation.align_vectors is the oracle."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import quaternion as Q
from sim.gnc import estimation as E

METHODS = pytest.mark.parametrize("method", [E.q_method, E.quest], ids=["q_method", "quest"])


def _problems(seed, count, n, noise, lengths=False):
    """``count`` problems of ``n`` observations: true Q (count, 4), b (count, n, 3), r (count, n, 3)."""
    rng = np.random.default_rng(seed)
    truth = Rotation.random(count, random_state=seed)
    r = rng.normal(size=(count, n, 3))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    b = np.stack([truth[i].apply(r[i]) for i in range(count)]) + noise * rng.normal(size=(count, n, 3))
    b /= np.linalg.norm(b, axis=-1, keepdims=True)
    if lengths:  # the same direction pairs, of lengths far from 1 (a field in tesla, a position in km, ...)
        b = b * rng.uniform(0.5, 4.0, (count, n, 1))
        r = r * rng.uniform(0.5, 4.0, (count, n, 1))
    # scipy's quaternion is scalar last and turns r onto b: b = R r, so R's matrix is C(Q) and Q = R's quaternion
    return truth.as_quat(), b, r


def _wahba(b, r, w=None):
    return Rotation.align_vectors(b, r, weights=w)[0].as_matrix()


@METHODS
def test_the_solution_is_the_truth_with_a_non_negative_scalar_part(method):
    """Q and -Q are one attitude; both solvers promise q4 >= 0, so the noise-free solution is the truth itself
    (scipy's quaternion with its sign chosen so), whatever sign the eigen-solver or the adjugate gave."""
    truth, b, r = _problems(11, 60, 3, 0.0)
    expected = np.where(truth[:, 3:] < 0.0, -truth, truth)
    assert (expected[:, 3] > 0.05).sum() > 40 and (truth[:, 3] < 0.0).sum() > 10   # both signs in the draw
    got = method(b, r)
    assert (got[:, 3] >= 0.0).all()
    assert np.abs(got - expected).max() < 1e-9
    for i in range(0, 60, 7):   # one problem alone as well
        assert np.abs(method(b[i], r[i]) - expected[i]).max() < 1e-9


@METHODS
def test_an_unweighted_stack_is_each_problem_alone(method):
    """Weights omitted (all 1) on a stack of N problems of n observations, N != n."""
    truth, b, r = _problems(12, 5, 3, 0.02)
    stacked = method(b, r)
    assert stacked.shape == (5, 4)
    for i in range(5):
        assert np.abs(Q.cayley(stacked[i]) - _wahba(b[i], r[i])).max() < 1e-10
        assert np.abs(stacked[i] - method(b[i], r[i])).max() < 1e-14


def test_davenport_k_of_an_unweighted_stack():
    """K = [[S - sigma I, z], [z^T, sigma]] from B = sum b_i r_i^T, z = sum b_i x r_i (Markley & Crassidis ch. 5),
    written out here per problem; q^T K q = tr(A(q) B^T) at the truth."""
    truth, b, r = _problems(13, 4, 3, 0.05)
    k, big_b, _, z, sigma = E.davenport_k(b, r)
    assert k.shape == (4, 4, 4)
    for i in range(4):
        bi = sum(np.outer(b[i, j], r[i, j]) for j in range(3))
        zi = sum(np.cross(b[i, j], r[i, j]) for j in range(3))
        ki = np.block([[bi + bi.T - np.trace(bi) * np.eye(3), zi[:, None]], [zi[None, :], np.trace(bi)]])
        assert np.allclose(k[i], ki, rtol=0, atol=1e-14)
        assert np.allclose(big_b[i], bi, rtol=0, atol=1e-14) and np.allclose(z[i], zi, rtol=0, atol=1e-14)
        assert sigma[i] == pytest.approx(np.trace(bi), abs=1e-14)


@METHODS
def test_vectors_of_any_length_solve_wahba_as_scipy(method):
    """Non-unit vectors: Wahba's loss sum a_i |b_i - A r_i|^2 / 2 as scipy's; QUEST starts its Newton iteration
    from lambda_0 = sum a_i |b_i| |r_i|, still an upper bound of the largest eigenvalue."""
    truth, b, r = _problems(14, 30, 4, 0.05, lengths=True)
    w = np.random.default_rng(14).uniform(0.2, 3.0, (30, 4))
    got = method(b, r, w)
    for i in range(30):
        assert np.abs(Q.cayley(got[i]) - _wahba(b[i], r[i], w[i])).max() < 1e-9


@pytest.mark.parametrize("lengths", [False, True], ids=["unit", "any length"])
def test_quest_converges_in_two_newton_steps_from_its_upper_bound(lengths):
    """Shuster & Oh (1981): lambda_0 lies so near the largest eigenvalue for measurements of ordinary accuracy
    that one or two Newton steps reach it; each problem of a stack starts from its own lambda_0."""
    truth, b, r = _problems(15, 40, 4, 1e-3, lengths)
    w = np.random.default_rng(15).uniform(0.2, 3.0, (40, 4))
    got = E.quest(b, r, w, iterations=2)
    for i in range(40):
        assert np.abs(Q.cayley(got[i]) - _wahba(b[i], r[i], w[i])).max() < 1e-10


def test_each_problem_of_a_stack_stops_its_newton_iteration_by_itself():
    """The module's promise: row i of a stack is computed as if alone, bit for bit.  Problems of very different
    accuracy and weight (1e6 for a star tracker's 1 mrad) converge after different numbers of Newton steps; a
    row that has converged must not take the steps its neighbours still need."""
    for seed, noise in ((21, 1e-6), (22, 1e-3), (23, 0.1), (24, 0.5)):
        truth, b, r = _problems(seed, 30, 4, noise, lengths=True)
        w = np.random.default_rng(seed).uniform(0.2, 3.0, (30, 4))
        w[::3] *= 1e6
        stacked = E.quest(b, r, w)
        for i in range(30):
            assert np.array_equal(stacked[i], E.quest(b[i], r[i], w[i]))


def test_quests_tolerance_is_relative_to_the_eigenvalue():
    """A row stops once a Newton step is at most ``tolerance`` times lambda: with tolerance 1 every first step
    qualifies, so the iteration stops after it, as with iterations=1, whatever the weights' scale (1e6 here,
    lambda ~ 1e6); with the default it goes on to the converged solution (scipy's)."""
    truth, b, r = _problems(25, 20, 3, 0.5)
    w = 1e6 * np.random.default_rng(25).uniform(0.2, 3.0, (20, 3))
    one_step = E.quest(b, r, w, iterations=1)
    assert np.array_equal(E.quest(b, r, w, tolerance=1.0), one_step)
    converged = E.quest(b, r, w)
    assert np.abs(converged - one_step).max() > 1e-6      # one step from lambda_0 is not enough at 0.5 rad noise
    for i in range(20):
        assert np.abs(Q.cayley(converged[i]) - _wahba(b[i], r[i], w[i])).max() < 1e-9
