"""The Sun (issue 31): the Astronomical Almanac's formula against astropy's get_sun (GCRS), 1950-2050."""

import numpy as np

import tests.astropy_offline  # noqa: F401
from sim.core.ops import COLUMN
from sim.world.sun import AU_KM, sun_direction, sun_position


def test_sun_direction_within_a_hundredth_of_a_degree_over_a_century():
    from astropy.coordinates import get_sun
    from astropy.time import Time
    jd = np.linspace(Time("1950-01-01").jd, Time("2050-12-31").jd, 500)
    sun = get_sun(Time(jd, format="jd", scale="tt"))
    want = sun.cartesian.xyz.value
    want = want / np.linalg.norm(want, axis=0)
    s, r = sun_direction(jd - 2451545.0, COLUMN)
    angle = np.degrees(np.arccos(np.clip((np.array(s) * want).sum(axis=0), -1.0, 1.0)))
    assert angle.max() < 0.012
    assert np.abs(r - sun.distance.to("AU").value).max() < 2e-4


def test_one_float_is_one_column_entry():
    days = np.array([-15000.0, 0.25, 9000.5])
    s, r = sun_direction(days, COLUMN)
    for k, d in enumerate(days):
        sf, rf = sun_direction(float(d))
        assert np.allclose([x[k] for x in s], sf, rtol=0, atol=1e-15) and abs(rf - r[k]) < 1e-15
    p = sun_position(100.0)
    assert np.linalg.norm(p) == np.float64(sun_direction(100.0)[1] * AU_KM) or abs(
        np.linalg.norm(p) / (sun_direction(100.0)[1] * AU_KM) - 1) < 1e-15
