"""The sensors (sim.gnc.sensors): noise statistics against closed forms, blinding and exclusion, reproducible draws."""

import math

import numpy as np
import pytest

from sim.gnc import attitude as A
from sim.gnc import sensors as S

SUN = np.array([1.0, 0.0, 0.0])


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


# ------------------------------------------------------------------ reproducible draws
def test_streams_in_blocks_are_the_draws_one_at_a_time():
    streams = S.Streams(7, [0, 3], S.GYRO, 6, block=5)
    got = np.stack([streams.next() for _ in range(12)], axis=1)       # (2, 12, 6)
    for i, body in enumerate([0, 3]):
        g = np.random.Generator(np.random.PCG64(np.random.SeedSequence([7, body, S.GYRO])))
        assert np.array_equal(got[i], np.stack([g.standard_normal(6) for _ in range(12)]))


def test_a_block_read_in_place_continues_the_stream():
    """What the compiled loop does (sim.model.craft_nav): read the present block from its next index on, say where
    it stopped (``taken_to``); the samples taken after are the draws one at a time, and none is read twice."""
    streams = S.Streams(7, [0, 3], S.GYRO, 6, block=5)
    one = S.Streams(7, [0, 3], S.GYRO, 6, block=5)
    got = [streams.next()]
    block, k = streams.present()
    assert k == 1 and block.shape == (2, 5, 6)
    got += [block[:, i, :] for i in range(k, 4)]
    streams.taken_to(4)
    got += [streams.next() for _ in range(7)]                          # the rest of the block, then new ones
    assert np.array_equal(np.stack(got, axis=1), np.stack([one.next() for _ in range(11)], axis=1))
    with pytest.raises(ValueError):
        streams.taken_to(0)                                            # back: samples taken twice
    block, k = streams.present()
    with pytest.raises(ValueError):
        streams.taken_to(block.shape[1] + 1)                           # past the block


@pytest.mark.parametrize("make", [
    lambda body: S.Gyro(S.GyroModel(arw=1e-4, rrw=1e-6, bias_sigma=1e-3), seed=5, body=body),
    lambda body: S.StarTracker(S.StarTrackerModel(dropout=0.3), seed=5, body=body),
    lambda body: S.Magnetometer(S.MagnetometerModel(noise=1e-7), seed=5, body=body),
    lambda body: S.FineSunSensor(S.FineSunModel(), seed=5, body=body),
    lambda body: S.CoarseSunSensors(S.CoarseSunModel(), seed=5, body=body),
], ids=["gyro", "star_tracker", "magnetometer", "fine_sun", "coarse_sun"])
def test_a_body_draws_the_same_alone_and_in_a_column(make):
    """Body 3 alone (as in ``run``) and as member 3 of ten (as in an ensemble) measures bit for bit alike."""
    alone, column = make(3), make(range(10))
    rng = np.random.default_rng(0)
    for _ in range(300):     # past one block of draws
        q = A.from_rotation_vector(rng.normal(size=3))
        qs = np.tile(q, (10, 1))
        w = rng.normal(size=3) * 0.1
        if isinstance(alone, S.Gyro):
            one, many = alone.measure(w, 0.1), column.measure(np.tile(w, (10, 1)), 0.1)[3]
        elif isinstance(alone, S.Magnetometer):
            one, many = alone.measure(q, SUN * 3e-5), column.measure(qs, SUN * 3e-5)[3]
        elif isinstance(alone, S.CoarseSunSensors):
            one, many = alone.measure(q, SUN, 0.7), column.measure(qs, SUN, 0.7)[3]
        else:
            (one, ok1), (many_all, ok_all) = alone.measure(q, SUN), column.measure(qs, SUN)
            many = many_all[3]
            assert ok1 == ok_all[3]
        assert np.array_equal(one, many)
    assert not np.array_equal(column.streams.next()[0], column.streams.next()[1])   # bodies differ


# ------------------------------------------------------------------ gyro
def test_gyro_angle_and_bias_variance_grow_as_farrenkopf():
    """The integrated rate error's variance is sigma_v^2 t + sigma_u^2 t^3 / 3, the bias's sigma_u^2 t."""
    arw, rrw, dt, n = 1e-3, 1e-4, 0.1, 2000
    gyro = S.Gyro(S.GyroModel(arw=arw, rrw=rrw), seed=11, body=range(n))
    angle = np.zeros((n, 3))
    checked = 0
    for k in range(1, 1001):
        angle += gyro.measure(np.zeros(3), dt) * dt
        t = k * dt
        if k in (10, 100, 1000):
            # 6,000 samples of a variance: relative standard error sqrt(2 / 6000) = 1.8 %; allow 4.5 of them
            expected = arw ** 2 * t + rrw ** 2 * t ** 3 / 3.0
            assert np.mean(angle ** 2) == pytest.approx(expected, rel=0.08), t
            assert np.mean(gyro.bias ** 2) == pytest.approx(rrw ** 2 * t, rel=0.08), t
            checked += 1
    assert checked == 3


@pytest.mark.slow
def test_gyro_discrete_model_is_exact_for_long_samples():
    """At dt = 10 s the trapezoid of the bias alone would give sigma_u^2 t^3 / 4 after one sample: the
    sigma_u^2 dt / 12 of Farrenkopf's discrete form makes it t^3 / 3 at every sample."""
    rrw, dt, n = 1e-4, 10.0, 20000
    gyro = S.Gyro(S.GyroModel(rrw=rrw), seed=12, body=range(n))
    angle = np.zeros((n, 3))
    for k in (1, 2, 3):
        angle += gyro.measure(np.zeros(3), dt) * dt
        assert np.mean(angle ** 2) == pytest.approx(rrw ** 2 * (k * dt) ** 3 / 3.0, rel=0.04), k


@pytest.mark.slow
def test_gyro_white_noise_alone_has_allan_slope_minus_one_half():
    """With sigma_u = 0 the Allan deviation of the rate falls as tau^-1/2 and equals sigma_v / sqrt(tau)."""
    arw, dt = 2e-4, 0.01
    gyro = S.Gyro(S.GyroModel(arw=arw), seed=2)
    rates = np.array([gyro.measure(np.zeros(3), dt) for _ in range(100_000)])[:, 0]
    for m in (1, 10, 100):
        means = rates[: len(rates) // m * m].reshape(-1, m).mean(axis=1)
        adev = math.sqrt(0.5 * np.mean(np.diff(means) ** 2))
        assert adev == pytest.approx(arw / math.sqrt(m * dt), rel=0.06), m


def test_gyro_scale_misalignment_bias_quantisation_and_saturation():
    m = (2e-5, -1e-5, 3e-5)
    model = S.GyroModel(bias=(1e-3, -2e-3, 0.5e-3), scale_factor=(1e-3, -2e-3, 0.0), misalignment=m)
    w = np.array([0.3, -0.2, 0.1])
    # the sensor axes turned by the small rotation m: Hoffmann's coordinate rotation (2.1), to first order
    turned = A.cayley(A.from_rotation_vector(np.array(m))) @ w
    expected = np.array([1.001, 0.998, 1.0]) * turned + model.bias
    assert np.allclose(S.Gyro(model).measure(w, 0.1), expected, rtol=0, atol=1e-9)
    quantised = S.Gyro(S.GyroModel(quantum=1e-3, max_rate=0.25)).measure(w, 0.1)
    assert np.allclose(quantised, [0.25, -0.2, 0.1], rtol=0, atol=1e-15)       # clipped, then whole counts
    counts = S.Gyro(S.GyroModel(quantum=1e-3)).measure([0.12345, -0.0004, 0.0006], 0.1) / 1e-3
    assert np.array_equal(counts, np.round(counts)) and list(np.round(counts)) == [123, -0, 1]


def test_gyro_random_initial_bias_has_its_sigma():
    gyro = S.Gyro(S.GyroModel(bias=(1e-3, 0, 0), bias_sigma=1e-4), seed=3, body=range(4000))
    assert np.mean(gyro.bias[:, 0]) == pytest.approx(1e-3, abs=1e-4 * 5 / math.sqrt(4000))
    assert np.std(gyro.bias, axis=0) == pytest.approx([1e-4] * 3, rel=0.05)


# ------------------------------------------------------------------ star tracker
def test_star_tracker_noise_across_and_about_the_boresight():
    model = S.StarTrackerModel(noise_cross_arcsec=5.0, noise_about_arcsec=40.0, boresight=(0, 1, 1))
    tracker = S.StarTracker(model, seed=4, body=range(20000))
    q = A.from_rotation_vector([0.3, -0.2, 1.0])
    q_m, valid = tracker.measure(np.tile(q, (20000, 1)))
    assert valid.all()
    # the error rotation Q_m = δQ(n) . Q, read back independently of the tracker's own construction
    n = A.rotation_vector(A.product(q_m, A.conjugate(q))) / S.ARCSEC
    bore = _unit([0, 1, 1])
    assert np.std(n @ bore) == pytest.approx(40.0, rel=0.03)
    across = n - np.outer(n @ bore, bore)
    assert np.sqrt(np.mean(np.sum(across ** 2, axis=1)) / 2) == pytest.approx(5.0, rel=0.03)
    assert np.allclose(np.cov(n.T) * S.ARCSEC ** 2, model.covariance(), rtol=0, atol=0.05 * (40 * S.ARCSEC) ** 2)


def test_star_tracker_sun_exclusion_and_umbra():
    model = S.StarTrackerModel(boresight=(1, 0, 0), sun_exclusion_deg=45.0, earth_exclusion_deg=0.0)
    tracker = S.StarTracker(model)
    q = np.array([0.0, 0.0, 0.0, 1.0])       # body = inertial: the boresight points along inertial x
    near = [math.cos(math.radians(30)), math.sin(math.radians(30)), 0.0]
    far = [math.cos(math.radians(60)), math.sin(math.radians(60)), 0.0]
    assert not tracker.measure(q, sun=near)[1]
    assert tracker.measure(q, sun=far)[1]
    assert tracker.measure(q, sun=near, sunlit=0.0)[1]        # the Sun hidden: no glare
    # the attitude turns the boresight: a coordinate rotation by 90 deg about z puts body x on inertial y
    q90 = A.from_rotation_vector([0, 0, math.pi / 2])
    assert np.allclose(A.cayley(q90).T @ [1, 0, 0], [0, 1, 0])
    assert not tracker.measure(q90, sun=[0, 1, 0])[1] and tracker.measure(q90, sun=[1, 0, 0])[1]


def test_star_tracker_earth_limb_exclusion():
    """The Earth of angular radius asin(R/r) blinds the tracker within the exclusion angle of its limb."""
    model = S.StarTrackerModel(boresight=(1, 0, 0), sun_exclusion_deg=0.0, earth_exclusion_deg=20.0)
    tracker = S.StarTracker(model)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    r = (6378.137 + 500.0) * 1e3
    rho = math.degrees(math.asin(6378.137e3 / r))            # 68.0 deg at 500 km
    for off, ok in ((rho + 19.0, False), (rho + 21.0, True), (150.0, True), (10.0, False)):
        earth = r * np.array([math.cos(math.radians(off)), math.sin(math.radians(off)), 0.0])
        assert bool(tracker.measure(q, earth=earth)[1]) is ok, off


@pytest.mark.slow
def test_star_tracker_dropouts_at_their_rate():
    tracker = S.StarTracker(S.StarTrackerModel(dropout=0.2), seed=9, body=range(50000))
    _, valid = tracker.measure(np.tile([0, 0, 0, 1.0], (50000, 1)))
    assert 1 - valid.mean() == pytest.approx(0.2, abs=5 * math.sqrt(0.2 * 0.8 / 50000))


@pytest.mark.parametrize("rate, dt, count", [(10.0, 0.1, 1000), (1.0, 0.1, 100), (4.0, 0.1, 400), (10.0, 0.01, 1000)])
def test_sample_due_counts_the_samples(rate, dt, count):
    assert sum(S.sample_due(k * dt, dt, rate) for k in range(round(100.0 / dt))) == count


# ------------------------------------------------------------------ sun sensors
def test_coarse_sun_sensors_follow_the_cosine_law_and_go_dark_in_umbra():
    cells = S.CoarseSunSensors(S.CoarseSunModel(noise=0.0))
    q = A.from_rotation_vector([0.2, -0.4, 0.7])
    s_b = A.cayley(q) @ SUN
    normals = np.array(S.CoarseSunModel().normals)
    for lit in (1.0, 0.4, 0.0):
        assert np.allclose(cells.measure(q, SUN, lit), np.maximum(normals @ s_b, 0.0) * lit, rtol=0, atol=1e-15)
    s, valid = S.coarse_sun_vector(cells.measure(q, SUN, 0.4), normals)
    assert valid and np.allclose(s, s_b, atol=1e-14)
    noisy = S.CoarseSunSensors(S.CoarseSunModel(noise=0.01), seed=1, body=range(1000))
    dark = noisy.measure(np.tile(q, (1000, 1)), SUN, 0.0)
    assert not S.coarse_sun_vector(dark, normals, 0.2)[1].any()
    assert (dark >= 0.0).all() and (dark > 0.0).any()       # a photocell's current is never negative


def test_fine_sun_sensor_is_blind_in_umbra_and_outside_its_view_and_noisier_in_penumbra():
    model = S.FineSunModel(boresight=(1, 0, 0), fov_deg=60.0, noise_deg=0.05, min_sunlit=0.1)
    n = 20000
    sensor = S.FineSunSensor(model, seed=6, body=range(n))
    q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    for lit in (1.0, 0.25):
        s, valid = sensor.measure(q, SUN, lit)
        assert valid.all()
        angle = np.degrees(np.arccos(np.clip(s @ SUN, -1, 1)))
        # the angle off the Sun line of a 2-D isotropic Gaussian error: mean square 2 sigma^2
        assert math.sqrt(np.mean(angle ** 2) / 2) == pytest.approx(0.05 / lit, rel=0.03)
    assert not sensor.measure(q, SUN, 0.0)[1].any()
    assert not sensor.measure(q, SUN, 0.05)[1].any()
    side = [math.cos(math.radians(70)), math.sin(math.radians(70)), 0.0]
    assert not sensor.measure(q, side, 1.0)[1].any()


# ------------------------------------------------------------------ magnetometer
def test_magnetometer_measures_the_field_in_body_axes_with_bias_and_noise():
    n = 20000
    bias = (1e-7, -2e-7, 0.0)
    mag = S.Magnetometer(S.MagnetometerModel(noise=5e-8, bias=bias), seed=8, body=range(n))
    q = A.from_rotation_vector([0.5, 0.1, -0.3])
    field = np.array([2e-5, -1e-5, 3e-5])
    b = mag.measure(np.tile(q, (n, 1)), field)
    truth = A.cayley(q) @ field + bias
    assert np.allclose(b.mean(axis=0), truth, rtol=0, atol=5 * 5e-8 / math.sqrt(n))
    assert np.allclose(b.std(axis=0), 5e-8, rtol=0.03)
