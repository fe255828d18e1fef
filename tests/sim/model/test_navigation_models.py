"""The navigation loop's models (sim.model.navigation): Wahba's covariance of TRIAD and QUEST against its closed
form for two perpendicular vectors, and the magnetometer's field against ppigrf and against the World's IGRF."""

import datetime as dt
import math
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.model.navigation import magnetic_field, wahba_covariance
from sim.model.settings import Settings
from sim.model.world import FIELD_SAMPLE, World
from sim.world.frames import ecef_to_eci, eci_to_ecef, precession
from sim.world.time import gmst, julian_centuries_tt, parse_epoch

ORBIT = (600.0, 0.001, 51.6, 30.0, 10.0, 40.0)
EPOCH = "2025-03-01T06:00:00Z"


# ---------------------------------------------------------------- Wahba's covariance
def test_two_perpendicular_vectors_closed_form():
    """b1 = R x, b2 = R y with noises s1, s2: the information sum s_i^-2 (I - b_i b_i^T) is R diag(s2^-2, s1^-2,
    s1^-2 + s2^-2) R^T, so P = R diag(s2^2, s1^2, s1^2 s2^2 / (s1^2 + s2^2)) R^T (Shuster & Oh 1981, section V):
    each vector leaves the rotation about itself to the other one; a stack of problems, each alone."""
    rot = Rotation.from_rotvec([[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]]).as_matrix()
    sigma = np.array([[1e-3, 4e-3], [0.02, 0.005]])
    b = np.stack([rot[:, :, 0], rot[:, :, 1]], axis=1)           # (2 problems, 2 vectors, 3)
    p = wahba_covariance(b, sigma)
    assert p.shape == (2, 3, 3)
    for k in range(2):
        s1, s2 = sigma[k]
        expected = rot[k] @ np.diag([s2 ** 2, s1 ** 2, s1 ** 2 * s2 ** 2 / (s1 ** 2 + s2 ** 2)]) @ rot[k].T
        assert np.allclose(p[k], expected, rtol=1e-10, atol=0)
        assert np.allclose(wahba_covariance(b[k], sigma[k]), expected, rtol=1e-10, atol=0)


def test_equal_noises_scale_the_covariance_by_their_square():
    """P is proportional to sigma^2 when all noises are equal (the information to sigma^-2)."""
    b = Rotation.from_rotvec([0.4, 0.2, -0.9]).as_matrix()[:, :2].T
    one = wahba_covariance(b, [1.0, 1.0])
    assert np.allclose(np.linalg.eigvalsh(one), [0.5, 1.0, 1.0], rtol=1e-12, atol=0)
    assert np.allclose(wahba_covariance(b, [3e-3, 3e-3]), 9e-6 * one, rtol=1e-12, atol=0)


# ---------------------------------------------------------------- the magnetometer's field
def _state(world, t):
    return world.state(float(t))


def test_the_magnetometers_igrf_is_the_worlds_at_its_sample_instants():
    """Without a world field, magnetic_field computes IGRF itself: at the World's sample instants (where the
    torquers' interpolated field is the sample itself) it is the field of the World's --magnetic-field igrf,
    with the same coefficients (the epoch's) and the same turn to ECI."""
    epoch = parse_epoch(EPOCH)
    plain = World(Settings(orbit=ORBIT, epoch=EPOCH))
    igrf = World(Settings(orbit=ORBIT, epoch=EPOCH, magnetic_field="igrf"))
    for k in (0, 7, 31):
        state = _state(plain, k * FIELD_SAMPLE)
        assert state.b_eci is None
        own = np.array(magnetic_field(epoch, state))
        assert np.allclose(own, igrf.state(k * FIELD_SAMPLE).b_eci, rtol=1e-13, atol=0)
        # with a world field the magnetometer reads that one (the torquers' own)
        with_field = igrf.state(k * FIELD_SAMPLE + 3.0)
        assert magnetic_field(epoch, with_field) == with_field.b_eci


def test_the_magnetometers_igrf_is_ppigrfs():
    """The field at the spacecraft (T, ECI) against ppigrf's IGRF-14 in geocentric spherical components (nT),
    turned to ECI here; ppigrf dates by days between Jan-1 epochs, a fraction of a nT of secular change."""
    import ppigrf  # a dependency of the project: a broken install fails, it does not skip
    epoch = parse_epoch(EPOCH)
    world = World(Settings(orbit=ORBIT, epoch=EPOCH))
    times = (0.0, 1500.0, 4000.0)
    states, turns, points = [], [], []
    for t in times:
        state = _state(world, t)
        theta = gmst(epoch.days_utc(t))
        rot, p = (math.cos(theta), math.sin(theta)), precession(julian_centuries_tt(epoch.days_tt(t)))
        x, y, z = eci_to_ecef(state.r_km, rot, p)
        r = math.sqrt(x * x + y * y + z * z)
        states.append(state)
        turns.append((rot, p))
        points.append((r, math.acos(z / r), math.atan2(y, x)))
    r, colat, lon = np.array(points).T
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        br, bt, bp = (np.ravel(c) for c in ppigrf.igrf_gc(r, np.degrees(colat), np.degrees(lon),
                                                          dt.datetime(2025, 3, 1, 6)))
    for k, (state, (rot, p)) in enumerate(zip(states, turns)):
        c, s, cl, sl = math.cos(colat[k]), math.sin(colat[k]), math.cos(lon[k]), math.sin(lon[k])
        ecef = br[k] * np.array([s * cl, s * sl, c]) + bt[k] * np.array([c * cl, c * sl, -s]) + bp[k] * np.array(
            [-sl, cl, 0.0])
        expected = np.array(ecef_to_eci(tuple(ecef), rot, p))
        got = np.array(magnetic_field(epoch, state)) * 1e9
        assert np.linalg.norm(expected) > 2e4
        assert got == pytest.approx(expected, abs=0.5)
