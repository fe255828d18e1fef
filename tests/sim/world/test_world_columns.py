"""An ensemble's World (COLUMN ops, one orbit per body) in target pointing: each row is the one-body World of that
row's orbit (the one-body target elevation is checked against textbook geodesy in tests/sim/world/test_target_elevation.py)."""

import math

import numpy as np
import pytest

from sim import api
from sim.core.ops import COLUMN
from sim.model.world import World
from sim.world.orbit import R_EARTH_KM, KeplerOrbit
from sim.world.time import parse_epoch


def test_each_row_of_a_column_world_in_target_mode_is_its_own_one_body_world():
    s = api.load_scenario("target_tracking").settings
    alt, e, i, raan, argp, nu = s.orbit
    alts, nus = np.array([alt, alt + 40.0, alt - 25.0]), np.radians([nu, nu + 3.0, nu - 2.0])
    rad = math.radians
    epoch = parse_epoch(s.epoch)
    columns = KeplerOrbit(R_EARTH_KM + alts, np.full(3, e), np.full(3, rad(i)), np.full(3, rad(raan)),
                          np.full(3, rad(argp)), nus, j2=s.j2, ops=COLUMN)
    world = World(s, COLUMN, orbit=columns, epoch=epoch)
    for t in (0.0, 300.0, 700.0):
        state = world.state(t)
        for k in range(3):
            one = World(s, orbit=KeplerOrbit(R_EARTH_KM + alts[k], e, rad(i), rad(raan), rad(argp), float(nus[k]),
                                             j2=s.j2), epoch=epoch).state(t)
            assert state.target_elevation[k] == pytest.approx(one.target_elevation, abs=1e-12)
            assert np.allclose([x[k] for x in state.qc], one.qc, atol=1e-12)
