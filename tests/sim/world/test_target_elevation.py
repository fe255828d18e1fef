"""The spacecraft's elevation seen from a ground target (sim.gnc.pointing.elevation, which the World reports in
target pointing): against the closed form of a line of sight built at a chosen elevation and azimuth in a local
horizon frame, on floats and numpy columns, and along the built-in pass against WGS-84 geometry written here."""

import math

import numpy as np
import pytest

from oracle import seen_from, wgs84_site
from sim.core.ops import COLUMN
from sim.gnc.pointing import elevation

rng = np.random.default_rng(35)


def _horizon_frame(seed):
    """A local vertical ``up`` and two horizontal unit vectors, of no special orientation in ECI."""
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return q[:, 0], q[:, 1], q[:, 2]


ELEVATIONS_DEG = [-89.0, -40.0, -5.0, 0.0, 0.5, 30.0, 60.0, 89.99, 90.0]


@pytest.mark.parametrize("el_deg", ELEVATIONS_DEG)
def test_elevation_of_a_line_of_sight_at_a_known_angle(el_deg):
    """g anywhere, r = g + rho (cos E (cos A e1 + sin A e2) + sin E up): the elevation is E, for any range rho
    (km) and azimuth A; at the zenith exactly 90 deg (no horizontal component at all)."""
    up, e1, e2 = _horizon_frame(int(el_deg * 100) % 997)
    g = np.array([4100.0, -2300.0, 4400.0])
    for rho, az in ((600.0, 0.3), (2500.0, 2.0), (0.2, -1.1)):
        e, a = math.radians(el_deg), az
        r = g + rho * (math.cos(e) * (math.cos(a) * e1 + math.sin(a) * e2) + math.sin(e) * up)
        got = elevation(tuple(r), tuple(g), tuple(up))
        assert got == pytest.approx(e, abs=1e-9)


def test_the_zenith_and_the_nadir_are_plus_and_minus_90_degrees():
    up, _, _ = _horizon_frame(3)
    g = 6371.0 * up
    assert elevation(tuple(g + 500.0 * up), tuple(g), tuple(up)) == math.pi / 2
    assert elevation(tuple(g - 500.0 * up), tuple(g), tuple(up)) == -math.pi / 2


def test_columns_give_each_row_as_floats():
    up, e1, e2 = _horizon_frame(4)
    g = rng.normal(size=(3, 50)) * 5000.0
    r = g + rng.normal(size=(3, 50)) * 1000.0
    up_columns = np.repeat(up[:, None], 50, axis=1)
    got = elevation(tuple(r), tuple(g), tuple(up_columns), COLUMN)
    assert got.shape == (50,)
    for k in range(50):
        d = r[:, k] - g[:, k]
        assert got[k] == pytest.approx(math.asin(d @ up / np.linalg.norm(d)), abs=1e-12)


def test_the_worlds_target_elevation_along_the_built_in_pass():
    """World.state's target_elevation: the spacecraft's elevation over the station's WGS-84 horizon, computed here
    from the textbook geodetic formulas and sim.world.frames' ECEF turn (as tests/sim/world/test_pointing.py does)."""
    from sim import api
    from sim.model.world import World
    from sim.world.frames import eci_to_ecef, precession
    from sim.world.time import gmst, julian_centuries_tt, parse_epoch

    s = api.load_scenario("target_tracking").settings
    world = World(s)
    site, up = wgs84_site(s.target[0], s.target[1])
    epoch = parse_epoch(s.epoch)
    seen = []
    for t in np.arange(0.0, 1200.0, 60.0):
        state = world.state(float(t))
        theta = gmst(epoch.days_utc(t))
        rot, p = (np.cos(theta), np.sin(theta)), precession(julian_centuries_tt(epoch.days_tt(t)))
        seen_from_site = seen_from(eci_to_ecef(state.r_km, rot, p), site, up)
        assert state.target_elevation == pytest.approx(seen_from_site, abs=1e-9)
        seen.append(state.target_elevation)
    assert min(seen) < 0.0 < max(seen)   # below and above the horizon
