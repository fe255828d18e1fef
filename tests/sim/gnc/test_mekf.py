"""The multiplicative EKF (sim.gnc.estimation.Mekf) against the discrete Riccati equation, chi-square
consistency over a Monte Carlo, matrix exponentials (scipy) and itself run alone."""

import math

import numpy as np
import pytest
from scipy.linalg import expm, solve_discrete_are
from scipy.stats import chi2

from sim.gnc import attitude as A
from sim.gnc import estimation as E
from sim.gnc import sensors as S

ARW, RRW = 1e-4, 1e-6                 # rad/sqrt(s), rad/s^(3/2): a coarse gyro, so the test converges in minutes
DT, TRACKER_EVERY = 0.1, 10           # gyro at 10 Hz, star tracker at 1 Hz
W = np.array([0.002, -0.003, 0.001])  # constant body rates: a constant transition matrix
SIGMA_A, SIGMA_B = 1e-3, 1e-4         # initial 1 sigma: attitude (rad) and bias (rad/s)
TRACKER = S.StarTrackerModel(noise_cross_arcsec=10.0, noise_about_arcsec=40.0, rate_hz=1.0, boresight=(0, 1, 1),
                             sun_exclusion_deg=0.0, earth_exclusion_deg=0.0)
RUNS, STEPS = 200, 6000               # 200 filters over 600 s


def _f(w):
    f = np.zeros((6, 6))
    f[:3, :3] = -A.cross_matrix(w)
    f[:3, 3:] = -np.eye(3)
    return f


def _van_loan(w, dt):
    """Φ and Q_d over dt from one matrix exponential (Van Loan 1978), for the noises G diag(σv², σu²) G^T."""
    g = np.diag([-1.0] * 3 + [1.0] * 3)
    qc = g @ np.diag([ARW ** 2] * 3 + [RRW ** 2] * 3) @ g.T
    m = np.zeros((12, 12))
    m[:6, :6] = -_f(w)
    m[:6, 6:] = qc
    m[6:, 6:] = _f(w).T
    e = expm(m * dt)
    phi = e[6:, 6:].T
    return phi, phi @ e[:6, 6:]


def _truth(k):
    return A.from_rotation_vector(W * k * DT)


def _filters(n, seed):
    """n filters whose initial errors are drawn from their initial covariance, a gyro and a tracker each."""
    rng = np.random.default_rng(seed)
    e0 = rng.normal(size=(n, 6)) * ([SIGMA_A] * 3 + [SIGMA_B] * 3)
    q0 = A.product(A.from_rotation_vector(-e0[:, :3]), _truth(0))       # Q_true = δQ(a) . Q̂
    p0 = np.diag([SIGMA_A ** 2] * 3 + [SIGMA_B ** 2] * 3)
    filt = E.Mekf(q0, -e0[:, 3:], p0, ARW, RRW)
    gyro = S.Gyro(S.GyroModel(arw=ARW, rrw=RRW), seed=seed, body=range(n))
    tracker = S.StarTracker(TRACKER, seed=seed, body=range(n))
    return filt, gyro, tracker


@pytest.fixture(scope="module")
def monte_carlo():
    filt, gyro, tracker = _filters(RUNS, 12)
    errors, nees, sigmas = [], [], []
    for k in range(1, STEPS + 1):
        filt.propagate(gyro.measure(W, DT), DT)
        if k % TRACKER_EVERY == 0:
            q_m, valid = tracker.measure(np.tile(_truth(k), (RUNS, 1)))
            filt.update_attitude(q_m, TRACKER.covariance(), valid)
            errors.append(filt.error(_truth(k), gyro.bias))
            nees.append(filt.nees(_truth(k), gyro.bias))
            sigmas.append(filt.sigma)
    return np.array(errors), np.array(nees), np.array(sigmas)


def _riccati():
    """The a-posteriori steady state of the discrete Riccati equation over one tracker period (1 s)."""
    phi, qd = _van_loan(W, DT * TRACKER_EVERY)
    h = np.hstack([np.eye(3), np.zeros((3, 3))])
    r = TRACKER.covariance()
    p_minus = solve_discrete_are(phi.T, h.T, qd, r)
    return p_minus - p_minus @ h.T @ np.linalg.solve(h @ p_minus @ h.T + r, h @ p_minus)


def test_transition_is_the_matrix_exponential():
    for w in (W, np.array([0.5, -1.0, 2.0]), np.array([1e-7, 0.0, -2e-7]), np.zeros(3)):
        for dt in (0.1, 1.0):
            assert np.allclose(E.transition(w, dt), expm(_f(w) * dt), rtol=0, atol=1e-13), (w, dt)


def test_process_noise_is_van_loans_without_rotation():
    assert np.allclose(E.process_noise(ARW, RRW, 1.0), _van_loan(np.zeros(3), 1.0)[1], rtol=1e-12, atol=0)


def test_propagation_with_a_perfect_gyro_follows_the_exact_motion():
    rates = np.array([0.3, -0.5, 0.8])
    filt = E.Mekf(np.array([0.0, 0.0, 0.0, 1.0]), np.zeros(3), np.eye(6) * 1e-6, ARW, RRW)
    for _ in range(1000):
        filt.propagate(rates, 0.01)
    # the exact solution of dQ/dt = 1/2 V(Q)^T [w; 0] for constant w, by scipy's rotation (inertial -> body)
    from scipy.spatial.transform import Rotation
    body_turn = Rotation.from_rotvec(rates * 10.0)
    assert np.allclose(A.cayley(filt.q), body_turn.as_matrix().T, rtol=0, atol=1e-12)


@pytest.mark.jit_speed  # 200 filters x 6000 steps: 8 minutes as Python
def test_steady_state_sigma_is_the_riccati_equations(monte_carlo):
    """Attitude errors over the last 200 s of 200 runs: their RMS per axis within 10 % of the Riccati sigma."""
    errors, _, sigmas = monte_carlo
    p_plus = _riccati()
    expected = np.sqrt(np.diag(p_plus))
    tail = errors[-200:]
    rms = np.sqrt(np.mean(tail ** 2, axis=(0, 1)))
    assert rms[:3] == pytest.approx(expected[:3], rel=0.10)
    assert rms[3:] == pytest.approx(expected[3:], rel=0.10)
    # and the filter's own covariance has converged onto it
    assert sigmas[-1].mean(axis=0) == pytest.approx(expected, rel=0.02)


@pytest.mark.jit_speed  # 200 filters x 6000 steps: 8 minutes as Python
def test_average_nees_lies_in_the_95_percent_chi_square_band(monte_carlo):
    """Bar-Shalom's test: the NEES averaged over 200 runs, 6 states, in [chi2(1200).ppf(0.025), .ppf(0.975)] / 200."""
    _, nees, _ = monte_carlo
    low, high = chi2.ppf([0.025, 0.975], df=6 * RUNS) / RUNS
    mean = nees.mean(axis=1)                       # one average over the runs per tracker update
    picked = mean[::60]                            # 10 times, a minute apart (the errors' correlation time)
    inside = (picked >= low) & (picked <= high)
    assert inside.sum() >= 9, (low, high, picked)
    assert low <= mean[-300:].mean() <= high


def test_column_filters_equal_filters_run_alone():
    """Filter i of a column of 8 gives what the same filter gives by itself (bit for bit or to 1e-15)."""
    column, gyro, tracker = _filters(8, 21)
    q0, b0, p0 = column.q, column.bias, column.p
    alone = [E.Mekf(q0[i], b0[i], p0[i], ARW, RRW) for i in range(8)]
    for k in range(1, 201):
        rates = gyro.measure(W, DT)
        column.propagate(rates, DT)
        for i, f in enumerate(alone):
            f.propagate(rates[i], DT)
        if k % TRACKER_EVERY == 0:
            q_m, valid = tracker.measure(np.tile(_truth(k), (8, 1)))
            valid = valid & (np.arange(8) != k // TRACKER_EVERY % 8)      # each filter misses some updates
            column.update_attitude(q_m, TRACKER.covariance(), valid)
            column.update_vector(A.rotate(_truth(k), [1.0, 0, 0]), [1.0, 0, 0], 1e-6, valid)
            for i, f in enumerate(alone):
                f.update_attitude(q_m[i], TRACKER.covariance(), valid[i])
                f.update_vector(A.rotate(_truth(k), [1.0, 0, 0]), [1.0, 0, 0], 1e-6, valid[i])
    for i, f in enumerate(alone):
        assert np.allclose(column.q[i], f.q, rtol=0, atol=1e-15)
        assert np.allclose(column.bias[i], f.bias, rtol=0, atol=1e-18)
        assert np.allclose(column.p[i], f.p, rtol=1e-15, atol=0)


def test_an_invalid_measurement_leaves_the_filter_as_it_was():
    filt, _, _ = _filters(3, 5)
    q, b, p = filt.q, filt.bias, filt.p
    filt.update_attitude(np.tile(_truth(0), (3, 1)), TRACKER.covariance(), [True, False, True])
    assert np.array_equal(filt.q[1], q[1]) and np.array_equal(filt.p[1], p[1]) and np.array_equal(filt.bias[1], b[1])
    assert not np.array_equal(filt.q[0], q[0]) and (np.diag(filt.p[0])[:3] < np.diag(p[0])[:3]).all()


@pytest.mark.slow
def test_sun_and_magnetometer_vectors_alone_estimate_the_attitude():
    """Two vector sensors, sequential updates: the errors shrink and stay within the filter's 3 sigma."""
    n = 100
    filt, gyro, _ = _filters(n, 33)
    sun, field = np.array([0.6, 0.8, 0.0]), np.array([1e-5, -2e-5, 3e-5])
    fine = S.FineSunSensor(S.FineSunModel(boresight=(1, 0, 0), fov_deg=90.0, noise_deg=0.02), seed=33,
                           body=range(n))
    mag = S.Magnetometer(S.MagnetometerModel(noise=5e-8), seed=33, body=range(n))
    for k in range(1, 3001):
        filt.propagate(gyro.measure(W, DT), DT)
        qt = np.tile(_truth(k), (n, 1))
        s_m, ok = fine.measure(qt, sun)
        filt.update_vector(s_m, sun, math.radians(0.02) ** 2, ok)
        filt.update_vector(mag.measure(qt, field), field, 5e-8 ** 2)
    err = filt.error(_truth(3000), gyro.bias)
    sig = filt.sigma
    assert (sig[:, :3] < SIGMA_A / 3).all()
    assert np.mean(np.abs(err) < 3 * sig) > 0.97
    assert np.mean(filt.nees(_truth(3000), gyro.bias)) == pytest.approx(6.0, rel=0.25)
