"""The set-up shared by the column world's tests (tests/sim/world/test_world_columns.py) and the compiled world's
(tests/sim/model/test_world_kernel.py): three bodies on orbits near a scenario's, as one COLUMN world and as three
one-body worlds."""

import math

import numpy as np

from sim.core.ops import COLUMN
from sim.model.world import World
from sim.world.orbit import R_EARTH_KM, KeplerOrbit
from sim.world.time import parse_epoch


def three_orbits(settings) -> tuple:
    """``(rows, ones)``: the :class:`~sim.model.world.World` over COLUMN ops of three orbits (the settings' own,
    40 km higher and 3 deg ahead, 25 km lower and 2 deg behind), and the one-body World of each."""
    alt, e, i, raan, argp, nu = settings.orbit
    alts, nus = np.array([alt, alt + 40.0, alt - 25.0]), np.radians([nu, nu + 3.0, nu - 2.0])
    rad = math.radians
    epoch = parse_epoch(settings.epoch)
    columns = KeplerOrbit(R_EARTH_KM + alts, np.full(3, e), np.full(3, rad(i)), np.full(3, rad(raan)),
                          np.full(3, rad(argp)), nus, j2=settings.j2, ops=COLUMN)
    rows = World(settings, COLUMN, orbit=columns, epoch=epoch)
    ones = [World(settings, orbit=KeplerOrbit(R_EARTH_KM + alts[k], e, rad(i), rad(raan), rad(argp), float(nus[k]),
                                              j2=settings.j2), epoch=epoch) for k in range(3)]
    return rows, ones
