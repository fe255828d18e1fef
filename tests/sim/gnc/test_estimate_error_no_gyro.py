"""sim.gnc.sensing.estimate_error of an MEKF body with no gyro (its true bias an empty (0, 3) array): the true bias
is taken as zero, so the bias error is minus the filter's estimate and the NEES is e^T P^-1 e of (0, -b̂) by
numpy's solve, the estimate on the true attitude."""

import numpy as np

from sim.gnc.sensing import estimate_error


def test_mekf_without_gyro_takes_a_zero_true_bias():
    rng = np.random.default_rng(3)
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    qe = np.array([q, -q])  # body 1 holds the same attitude as -Q
    m = rng.normal(size=(6, 6))
    p = m @ m.T + 6.0 * np.eye(6)  # symmetric positive definite, off-diagonal terms
    pe = np.array([p, p])
    fbias = np.array([[0.0, 0.0, 0.0], [2e-3, -1e-3, 5e-4]])
    e = np.empty(6)
    a, nees = estimate_error(tuple(q), qe, pe, np.zeros((0, 3)), fbias, True, 1, e)
    np.testing.assert_allclose(a, 0.0, atol=1e-12)
    want = np.array([0.0, 0.0, 0.0, -2e-3, 1e-3, -5e-4])
    np.testing.assert_allclose(e, want, atol=1e-15)
    np.testing.assert_allclose(nees, want @ np.linalg.solve(p, want), rtol=1e-9)
