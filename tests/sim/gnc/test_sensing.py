"""The compiled sensors (sim.gnc.sensing) against their models written out in numpy from the seed's own normals:
what a seed gives is the same numbers as before the sensors were compiled (issue 42), drawn from
``Generator(PCG64(SeedSequence([seed, body, sensor_id])))`` in blocks, consumed in order."""

import math

import numpy as np
import pytest
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

from sim.gnc import attitude as A
from sim.gnc import sensors as S

SEED, BODIES, SAMPLES = 11, [0, 4, 9], 300     # 300 samples: more than one block of 256


def _normals(sensor_id, width, body, n=SAMPLES):
    """The seed's standard normals of one body's stream, drawn at once: ``(n, width)``."""
    g = np.random.Generator(np.random.PCG64(np.random.SeedSequence([SEED, body, sensor_id])))
    return g.standard_normal((n, width))


def _attitudes():
    return Rotation.random(len(BODIES), random_state=3).as_quat()


def test_gyro_is_farrenkopfs_discrete_model_on_the_seeds_normals():
    """beta+ = beta + s_u sqrt(dt) N_u, w~ = w + (beta + beta+)/2 + sqrt(s_v^2/dt + s_u^2 dt/12) N_v: bit for bit
    with the identity sensor matrix (no scale factor or misalignment), as every scenario flies it."""
    arw, rrw, dt = 2e-4, 3e-6, 0.1
    gyro = S.Gyro(S.GyroModel(arw=arw, rrw=rrw, bias=(1e-3, -2e-3, 5e-4)), SEED, BODIES)
    w = np.array([[0.01, -0.02, 0.03], [0.0, 0.1, 0.0], [-0.3, 0.2, 0.1]])
    got = np.stack([gyro.measure(w, dt) for _ in range(SAMPLES)], axis=1)
    for i, body in enumerate(BODIES):
        n = _normals(S.GYRO, 6, body)
        bias = np.array([1e-3, -2e-3, 5e-4])
        for k in range(SAMPLES):
            new = bias + rrw * math.sqrt(dt) * n[k, 3:]
            expect = w[i] + 0.5 * (bias + new) + math.sqrt(arw * arw / dt + rrw * rrw * dt / 12.0) * n[k, :3]
            assert np.array_equal(got[i, k], expect), (body, k)
            bias = new
        assert np.array_equal(gyro.bias[i], bias)


def test_gyro_with_scale_misalignment_counts_and_limit():
    """``M = (I + diag(s))(I - [m x])`` applied to the rates, then whole counts of the quantum, then the limit."""
    model = S.GyroModel(arw=1e-3, scale_factor=(1e-3, -2e-3, 3e-3), misalignment=(1e-2, 0.0, -2e-2),
                        quantum=1e-4, max_rate=0.25)
    gyro = S.Gyro(model, SEED, BODIES)
    w = np.array([0.1, -0.2, 0.3])
    got = np.stack([gyro.measure(w, 0.05) for _ in range(50)], axis=1)
    m = np.diag(1.0 + np.array(model.scale_factor)) @ expm(-A.cross_matrix(np.array(model.misalignment)))
    for i, body in enumerate(BODIES):
        n = _normals(S.GYRO, 6, body, 50)
        raw = (m @ w) + math.sqrt(1e-6 / 0.05) * n[:, :3]
        expect = np.clip(np.round(raw / 1e-4) * 1e-4, -0.25, 0.25)
        # the misalignment to first order (I - [m x]) against its exponential: 2.5e-4 rad/s at most here
        np.testing.assert_allclose(got[i], expect, atol=3e-4)
        np.testing.assert_allclose(got[i] / 1e-4, np.round(got[i] / 1e-4), atol=1e-9)
    assert np.max(np.abs(got)) == 0.25


def test_star_tracker_is_the_seeds_small_rotation_and_dropout():
    """Q_m = dQ(T sigma N) . Q: its Cayley matrix is exp(-[e x]) C(Q) (scipy's expm), kept when N_4 >= Phi^-1(p)."""
    model = S.StarTrackerModel(noise_cross_arcsec=30.0, noise_about_arcsec=200.0, boresight=(0.0, 1.0, 1.0),
                               sun_exclusion_deg=0.0, earth_exclusion_deg=0.0, dropout=0.3)
    tracker = S.StarTracker(model, SEED, BODIES)
    q = _attitudes()
    got = [tracker.measure(q) for _ in range(SAMPLES)]
    axes = S.sensor_axes(model.boresight)
    sigma = np.array([30.0, 30.0, 200.0]) * S.ARCSEC
    threshold = -0.5244005127080407      # Phi^-1(0.3)
    for i, body in enumerate(BODIES):
        n = _normals(S.STAR_TRACKER, 4, body)
        for k in (0, 1, 255, 256, 299):
            e = axes @ (sigma * n[k, :3])
            expect = expm(-A.cross_matrix(e)) @ A.cayley(q[i])
            np.testing.assert_allclose(A.cayley(got[k][0][i]), expect, atol=1e-15)
        assert [bool(g[1][i]) for g in got] == list(n[:, 3] >= threshold)


def test_coarse_sun_cells_and_magnetometer_on_the_seeds_normals():
    """I_i = max(0, max(0, n_i . C(Q) s) sunlit + sigma N_i); b~ = C(Q) B + bias + sigma N."""
    q = _attitudes()
    sun = np.array([0.6, 0.0, 0.8])
    cells = S.CoarseSunSensors(S.CoarseSunModel(noise=0.05), SEED, BODIES)
    got = np.stack([cells.measure(q, sun, 0.7) for _ in range(SAMPLES)], axis=1)
    field = np.array([2e-5, -1e-5, 3e-5])
    mag = S.Magnetometer(S.MagnetometerModel(noise=1e-7, bias=(1e-6, 0.0, -2e-6)), SEED, BODIES)
    got_b = np.stack([mag.measure(q, field) for _ in range(SAMPLES)], axis=1)
    for i, body in enumerate(BODIES):
        c = A.cayley(q[i])
        signal = np.maximum(np.array(S.CoarseSunModel().normals) @ (c @ sun), 0.0) * 0.7
        np.testing.assert_allclose(got[i], np.maximum(signal + 0.05 * _normals(S.COARSE_SUN, 6, body), 0.0),
                                   rtol=0, atol=1e-15)
        np.testing.assert_allclose(got_b[i], c @ field + [1e-6, 0.0, -2e-6] + 1e-7 * _normals(S.MAGNETOMETER, 3, body),
                                   rtol=0, atol=1e-19)   # C(Q) by two formulas: 1e-15 of |B|


@pytest.mark.parametrize("cells, expect, valid", [
    ([0.6, 0.0, 0.0, 0.0, 0.8, 0.0], [0.6, 0.0, 0.8], True),
    ([0.0, 0.1, 0.0, 0.0, 0.0, 0.1], [-math.sqrt(0.5), 0.0, -math.sqrt(0.5)], False),   # |s| = 0.14 < 0.2
    ([0.0] * 6, [0.0, 0.0, 0.0], False),                                              # dark: 0, not NaN
])
def test_coarse_sun_vector_of_the_cube(cells, expect, valid):
    s, ok = S.coarse_sun_vector(np.array(cells), S.CoarseSunModel().normals, 0.2)
    np.testing.assert_allclose(s, expect, atol=1e-15)
    assert bool(ok) is valid


@pytest.mark.parametrize("mekf", [True, False], ids=["mekf", "triad"])
def test_the_estimate_columns_are_the_error_its_sigmas_and_the_nees(mekf):
    """sim.gnc.sensing.estimate_columns against scipy and numpy: the error a of Q_true = δQ(a) . Q̂ (scipy's
    rotation vector of C(Q_true) C(Q̂)^T = exp(-[a×])), 3 sigma from P's diagonal, the biases, and the NEES
    e^T P^-1 e by numpy's inverse (the MEKF's 6x6 over (a, β - β̂), TRIAD's 3x3 over a)."""
    from oracle import scipy_rotation
    from sim.gnc import sensing

    rng = np.random.default_rng(5)
    n, d = 3, 6 if mekf else 3
    q_true = _attitudes()
    turn = Rotation.from_rotvec(rng.normal(scale=0.01, size=(n, 3)))
    qe = np.ascontiguousarray((Rotation.from_quat(q_true) * turn).as_quat())
    root = rng.normal(size=(n, d, d))
    p = np.ascontiguousarray(root @ np.swapaxes(root, 1, 2) * 1e-4 + 1e-6 * np.eye(d))
    beta, beta_est = rng.normal(size=(n, 3)) * 1e-4, rng.normal(size=(n, 3)) * 1e-4
    err, out = np.empty((n, 3)), np.empty((n, 17))
    sensing.estimate_columns(np.ascontiguousarray(q_true), qe, p, beta, beta_est, mekf, err, out)
    deg = 180.0 / math.pi
    for j in range(n):
        # C(Q_true) C(Q̂)^T = exp(-[a×]); C(Q) is the transpose of scipy_rotation(Q)'s matrix (tests/oracle.py)
        want = -(scipy_rotation(q_true[j]).inv() * scipy_rotation(qe[j])).as_rotvec()
        assert err[j] == pytest.approx(want, abs=1e-13)
        assert out[j, :4] == pytest.approx(qe[j], abs=0.0)
        assert out[j, 4:7] == pytest.approx(want * deg, abs=1e-11)
        assert out[j, 7:10] == pytest.approx(3.0 * np.sqrt(np.diag(p[j])[:3]) * deg, rel=1e-15)
        assert out[j, 10:13] == pytest.approx(beta[j], abs=0.0)
        e = np.concatenate([want, beta[j] - beta_est[j]]) if mekf else want
        assert out[j, 16] == pytest.approx(e @ np.linalg.inv(p[j]) @ e, rel=1e-9)
        if mekf:
            assert out[j, 13:16] == pytest.approx(beta_est[j], abs=0.0)
        else:
            assert np.isnan(out[j, 13:16]).all()


def test_a_tracker_is_blinded_by_the_lit_sun_in_its_cone_and_by_the_earths_limb_in_its_own():
    """sim.gnc.sensing.tracker_sees_rows against the geometry written out: the Sun (a point) blinds the tracker
    only when lit and less than its exclusion angle off the boresight; the Earth when its limb, asin(R / |r|)
    from its centre, comes within the Earth exclusion angle.  A random attitude; the directions built in body
    axes and turned to inertial with scipy (C(Q) is scipy's matrix of the conjugate, transposed)."""
    from sim.gnc import sensing
    q = Rotation.random(random_state=5).as_quat()[None]
    c = Rotation.from_quat(q[0] * [-1.0, -1.0, -1.0, 1.0]).as_matrix().T     # inertial -> body
    boresight = np.array([0.0, 0.6, 0.8])
    side = np.cross(boresight, [1.0, 0.0, 0.0])
    side /= np.linalg.norm(side)

    def off(deg):   # a body direction deg off the boresight, in inertial axes
        return c.T @ (math.cos(math.radians(deg)) * boresight + math.sin(math.radians(deg)) * side)

    none, radius = np.empty((0, 3)), 6.371e6
    for deg in (5.0, 25.0, 35.0, 90.0, 170.0):
        for lit in (0.0, 0.5, 1.0):
            sees = sensing.tracker_sees_rows(q, boresight, off(deg)[None], np.array([lit]), math.radians(30.0),
                                             none, 0.0, radius)
            assert bool(sees[0]) == (not (deg < 30.0 and lit > 0.0)), (deg, lit)
    for deg in (40.0, 45.0, 55.0, 120.0):   # the Earth at twice its radius: its limb 30 deg from its centre
        earth = 2.0 * radius * off(deg)
        sees = sensing.tracker_sees_rows(q, boresight, none, np.array([1.0]), 0.0, earth[None],
                                         math.radians(20.0), radius)
        assert bool(sees[0]) == (deg - 30.0 >= 20.0), deg
