"""The air of a run with drag in NRLMSIS (atmosphere = "msis"): one body's World gives the density of
pymsis at the body's place and date (epoch + t), and an ensemble's World on rows (one orbit and one epoch
per body) gives each of its identical bodies that same density."""

import math

import numpy as np
import pymsis  # in the test extra: a missing install fails, it does not skip
import pytest

from sim.core.ops import COLUMN
from sim.model.settings import Settings
from sim.model.world import World
from sim.world.atmosphere import MSIS_DEFAULTS
from sim.world.orbit import R_EARTH_KM, KeplerOrbit
from sim.world.time import Epoch, parse_epoch

ORBIT = (450.0, 0.001, 51.6, 30.0, 10.0, 20.0)
EPOCH = "2025-03-20T06:00:00Z"
T = 120.0  # s: a sample instant of the world (FIELD_SAMPLE divides it), so no interpolation


def _settings():
    return Settings(body="cubesat_3u", dt=0.5, epoch=EPOCH, orbit=ORBIT, drag=True, atmosphere="msis")


def test_one_bodys_density_is_pymsis_at_its_place_and_date():
    ws = World(_settings()).state(T)
    date = np.datetime64("2025-03-20T06:00:00", "ms") + np.timedelta64(int(T * 1e3), "ms")
    out = pymsis.calculate(np.array([date]), math.degrees(ws.lon), math.degrees(ws.lat), ws.alt_km,
                           f107s=[MSIS_DEFAULTS["f107"]], f107as=[MSIS_DEFAULTS["f107a"]],
                           aps=[[MSIS_DEFAULTS["ap"]] * 7])
    assert 300.0 < ws.alt_km < 500.0  # km, geodetic
    assert ws.density == pytest.approx(float(np.ravel(out)[pymsis.Variable.MASS_DENSITY]), rel=1e-5)


def test_an_ensembles_world_gives_each_identical_body_the_one_bodys_density():
    settings = _settings()
    one = World(settings).state(T).density
    n = 2
    alt, e, i, raan, argp, nu = ORBIT
    rows = [np.full(n, math.radians(x)) for x in (i, raan, argp, nu)]
    orbit = KeplerOrbit(np.full(n, R_EARTH_KM + alt), np.full(n, e), *rows, j2=settings.j2, ops=COLUMN)
    e0 = parse_epoch(EPOCH)
    epoch = Epoch(settings.epoch, np.full(n, e0.jd_day), np.full(n, e0.jd_frac), e0.year)
    many = World(settings, COLUMN, orbit=orbit, epoch=epoch).state(T).density
    assert np.asarray(many) == pytest.approx(np.full(n, one), rel=1e-9)
