"""Pointing modes (issue 31): the two-vector construction, Shepperd's quaternion, the rate feed-forward."""

import math

import numpy as np
import pytest

from oracle import seen_from, wgs84_site
from sim.core.ops import COLUMN
from sim.core.quaternion import cayley
from sim.core.angles import from_cayley_entries
from sim.gnc.pointing import (pointing_error, rate_between, references, secondary_axis,
                              two_vector)
from sim.world.orbit import KeplerOrbit

rng = np.random.default_rng(31)


def _unit(x):
    return x / np.linalg.norm(x)


@pytest.mark.parametrize("k", range(20))
def test_two_vector_points_the_axis_and_is_a_rotation(k):
    b1 = _unit(rng.normal(size=3))
    b2 = secondary_axis(tuple(b1))
    r1, r2 = rng.normal(size=3) * 7000.0, rng.normal(size=3)
    c = np.array(two_vector(tuple(b1), b2, tuple(r1), tuple(r2))).reshape(3, 3)
    assert np.allclose(c @ c.T, np.eye(3), atol=1e-14) and np.linalg.det(c) == pytest.approx(1.0, abs=1e-14)
    assert np.allclose(c @ _unit(r1), b1, atol=1e-12)
    # b2 lies in the plane of r1 and r2, on r2's side
    b2_inertial = c.T @ np.array(b2)
    assert abs(np.dot(b2_inertial, np.cross(r1, r2))) < 1e-12 * np.linalg.norm(np.cross(r1, r2))
    assert np.dot(b2_inertial - np.dot(b2_inertial, _unit(r1)) * _unit(r1), r2) > 0.0
    q = from_cayley_entries(tuple(c.ravel()))
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-14)
    assert np.allclose(cayley(q), c, atol=1e-14)   # Hoffmann's convention: C(Q) inertial -> body


def test_shepperd_every_pivot_and_columns():
    from scipy.spatial.transform import Rotation
    rots = Rotation.random(400, random_state=5)
    # Hoffmann's Q is the conjugate of scipy's; C(Q) is scipy's matrix transposed (shared/NOTES)
    mats = np.transpose(rots.as_matrix(), (0, 2, 1))
    cols = tuple(mats.reshape(-1, 9).T)
    q = np.array(from_cayley_entries(cols, COLUMN))
    want = rots.as_quat() * np.array([-1, -1, -1, 1])
    sign = np.sign((q * want.T).sum(axis=0))
    assert np.allclose(q * sign, want.T, atol=1e-14)
    for k in (0, 1, 2, 3):
        assert np.allclose(from_cayley_entries(tuple(mats[k].ravel())), q[:, k], atol=0)


def test_rate_between_is_the_body_rate():
    w = np.array([0.01, -0.02, 0.03])
    q0 = (0.1, 0.2, 0.3, math.sqrt(1 - 0.14))
    c0 = cayley(q0)
    h = 0.5
    # C(t + h) = exp(-[w x] h) C(t) for a constant body rate
    from scipy.linalg import expm
    wx = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    c1 = expm(-wx * h) @ c0
    assert np.allclose(rate_between(tuple(c0.ravel()), tuple(c1.ravel()), h), w, rtol=1e-12)


def test_nadir_mode_is_lvlh_and_moves_at_the_orbit_rate():
    orbit = KeplerOrbit(6878.137, 0.0, 1.7, 0.3, 0.0, 0.5)
    b1, b2 = (0.0, 0.0, 1.0), (1.0, 0.0, 0.0)
    r, v = orbit.state(100.0)
    c = np.array(two_vector(b1, b2, *references("nadir", r, v))).reshape(3, 3)
    from sim.world.frames import lvlh
    o1, o2, o3 = lvlh(r, v)
    assert np.allclose(c, np.array([o1, o2, o3]), atol=1e-14)
    h = 1.0
    cs = [two_vector(b1, b2, *references("nadir", *orbit.state(100.0 + s))) for s in (-h / 2, h / 2)]
    n = 2 * math.pi / orbit.period
    assert np.allclose(rate_between(cs[0], cs[1], h), (0.0, -n, 0.0), atol=1e-10)


def test_target_mode_points_at_the_target_above_its_horizon_and_at_nadir_below():
    r, v = (7000.0, 0.0, 0.0), (0.0, 7.5, 0.0)
    up = (1.0, 0.0, 0.0)
    target = (6378.0, 100.0, 0.0)
    r1, _ = references("target", r, v, target=target, target_up=up)
    assert np.allclose(_unit(np.array(r1)), _unit(np.subtract(target, r)), atol=1e-15)
    below = (-6378.0, 0.0, 0.0)
    r1, _ = references("target", r, v, target=below, target_up=(-1.0, 0.0, 0.0))
    assert np.allclose(r1, (-7000.0, 0.0, 0.0))


def test_pointing_error_is_the_angle_between_axis_and_reference():
    q = (0.0, 0.0, math.sin(0.1), math.cos(0.1))   # 0.2 rad about z
    assert pointing_error(q, (1.0, 0.0, 0.0), (1.0, 0.0, 0.0)) == pytest.approx(0.2, abs=1e-15)
    assert pointing_error(q, (0.0, 0.0, 1.0), (0.0, 0.0, 5.0)) == 0.0


def _pointing_sim(mode, **more):
    from sim.model.settings import Settings
    from sim.model.simulation import Simulation
    s = Settings(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), integrator="rk4", dt=0.5,
                 orbit=(500.0, 0.0, 97.4, 30.0, 0.0, 10.0), epoch="2024-03-20T03:00:00Z", pointing=mode,
                 controller="quaternion", gains=(2.0, 2.4, 1.0), dampers_on=True, dampers=(20.0, 24.0, 10.0),
                 angles_deg=(30.0, 20.0, -10.0), **more)
    return Simulation(s)


@pytest.mark.parametrize("mode", ["nadir", "sun", "velocity"])
def test_the_controller_converges_to_the_moving_command(mode):
    """From 40 deg off, the quaternion controller with the rate feed-forward holds the axis to within the
    half-step lag of a command held over the step (n dt / 2 = 0.016 deg at dt = 0.5 s in low orbit)."""
    sim = _pointing_sim(mode)
    assert sim.snapshot().pointing_error_deg > 20.0
    sim.step(1200)
    snap = sim.snapshot()
    assert snap.pointing_error_deg < 0.02
    ws = snap.world
    c = cayley(snap.attitude)
    want = {"nadir": ws.nadir, "sun": ws.sun, "velocity": _unit(np.array(ws.v_kms))}[mode]
    assert math.degrees(math.acos(min(1.0, float(np.dot(c @ want, (0.0, 0.0, 1.0)))))) < 0.02


def test_without_the_feed_forward_the_dampers_drag_the_pointing():
    # both in Python, whose _update_world runs between steps (the compiled loop makes the world itself)
    sim = _pointing_sim("nadir")
    sim._step_python(1200)
    with_ff = sim.snapshot().pointing_error_deg
    sim = _pointing_sim("nadir")
    orig = sim._update_world

    def no_ff():
        orig()
        sim._torque.rate_ref = None
    sim._update_world = no_ff
    sim._step_python(1200)
    assert sim.snapshot().pointing_error_deg > 5 * with_ff


def test_gravity_gradient_on_the_circular_orbit_is_todays():
    from sim.world.environment import gravity_gradient_at, gravity_gradient_torque, orbit_rate
    n = orbit_rate(500.0)
    big_r = 6878.137
    jr = (100.0, 1.0, -2.0, 1.0, 120.0, 3.0, -2.0, 3.0, 50.0)
    q = tuple(_unit(rng.normal(size=4)))
    for t in (0.0, 100.0, 3000.0):
        r = (big_r * math.sin(n * t), 0.0, -big_r * math.cos(n * t))
        assert np.allclose(gravity_gradient_at(q, r, jr), gravity_gradient_torque(q, t, n, jr), rtol=1e-12,
                           atol=1e-20)


def test_target_tracking_scenario_tracks_the_station_from_horizon_to_horizon():
    """The built-in pass: the station's elevation, computed here from geodetic geometry alone (WGS-84 by the
    textbook formulas, not sim.world.frames), rises above 0 and sets again; while it is above 10 deg the +z
    axis stays within 1 deg of the station, and the body rate peaks within 60 s of the highest elevation."""
    from sim import api
    from sim.world.frames import eci_to_ecef, precession
    from sim.world.time import gmst, julian_centuries_tt, parse_epoch

    scenario = api.load_scenario("target_tracking")
    r = api.run(scenario, every=5)
    t = r["t"]
    s = scenario.settings
    site, up = wgs84_site(s.target[0], s.target[1])
    epoch = parse_epoch(s.epoch)
    elevation = []
    for k, tk in enumerate(t):
        theta = gmst(epoch.days_utc(tk))
        rot, p = (np.cos(theta), np.sin(theta)), precession(julian_centuries_tt(epoch.days_tt(tk)))
        rk = eci_to_ecef((r["x_km"][k], r["y_km"][k], r["z_km"][k]), rot, p)
        elevation.append(np.degrees(seen_from(rk, site, up)))
    elevation = np.array(elevation)
    above = elevation > 0.0
    assert above.any() and not above[0] and not above[-1]  # a whole pass: rises and sets inside the run
    tracking = elevation > 10.0
    assert r["point_err_deg"][tracking].max() < 1.0
    rate = np.degrees(np.sqrt(r["wx"] ** 2 + r["wy"] ** 2 + r["wz"] ** 2))
    settled = tracking & (t > t[tracking][0] + 60.0)  # after the swing from nadir at rise
    assert abs(t[settled][np.argmax(rate[settled])] - t[np.argmax(elevation)]) < 60.0
    assert elevation.max() > 60.0  # near zenith: where the slew rate peaks


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["nadir", "sun", "velocity"])
def test_the_moving_command_written_is_continuous(mode):
    """qc1..qc4 of a pointing mode never jump between Q and -Q from one row to the next, over a whole orbit
    (a quaternion from a matrix comes out with either sign; the command keeps the sign it had)."""
    from sim import api

    r = api.run("nadir_pointing", duration=5700.0, every=10, pointing=mode, j2=False)
    qc = np.stack([r[f"qc{i}"] for i in range(1, 5)], axis=1)
    assert np.einsum("ij,ij->i", qc[1:], qc[:-1]).min() > 0.99
