"""The atmosphere's density (sim.world.atmosphere): Vallado's table, its exponential law, and NRLMSIS when installed."""

import datetime as dt
import math

import numpy as np
import pytest

from sim.core.ops import COLUMN
from sim.world.atmosphere import EXPONENTIAL_TABLE, exponential_density, msis_density


@pytest.mark.parametrize("row", EXPONENTIAL_TABLE, ids=lambda r: f"{r[0]:g}km")
def test_the_density_at_a_base_altitude_is_the_table_s(row):
    assert exponential_density(row[0] * 1e3) == row[1]


def test_within_a_band_the_density_falls_by_e_every_scale_height():
    """Vallado's exponential law: d ln(rho) / dh = -1/H inside a band (here 500-600 km, H = 63.822 km)."""
    r1, r2 = exponential_density(510e3), exponential_density(510e3 + 63.822e3 / 2)
    assert math.log(r1 / r2) == pytest.approx(0.5, rel=1e-12)


def test_the_bands_join_within_a_few_percent():
    """The published table is continuous to 0.14 % (at 25 km; elsewhere 1e-4): a mistyped digit shows as a jump."""
    for (h1, rho1, _) in EXPONENTIAL_TABLE[1:]:
        below = exponential_density(h1 * 1e3 - 1e-6)
        assert below == pytest.approx(rho1, rel=2e-3, abs=0), h1


@pytest.mark.parametrize("h_km, ussa76", [(100, 5.604e-7), (200, 2.541e-10), (300, 1.916e-11),
                                          (400, 2.803e-12), (500, 5.215e-13), (1000, 3.561e-15)])
def test_the_table_agrees_with_the_us_standard_atmosphere_1976_to_a_factor_of_two(h_km, ussa76):
    """Two different models (CIRA-72 and USSA 1976, NOAA/NASA/USAF 1976 Table I): the same order, never 10x apart."""
    assert 0.5 < exponential_density(h_km * 1e3) / ussa76 < 2.0


def test_below_sea_level_it_is_the_sea_level_density_and_above_1000_km_the_last_band_goes_on():
    assert exponential_density(-100.0) == 1.225
    assert exponential_density(1268e3) == pytest.approx(3.019e-15 / math.e, rel=1e-12, abs=0)


def test_columns_agree_with_floats():
    h = np.array([-5.0, 0.0, 12e3, 99.999e3, 100e3, 420e3, 999e3, 2000e3])
    col = exponential_density(h, COLUMN)
    # numpy's exp against libm's: the same to the last place or one ulp
    assert np.allclose(col, [exponential_density(float(x)) for x in h], rtol=4e-16, atol=0)


def test_msis_is_near_the_table_and_follows_the_solar_flux():
    import pymsis  # noqa: F401  (in the test extra: a missing install fails, it does not skip)
    date = dt.datetime(2025, 3, 1, 12)
    rho = msis_density(450e3, 10.0, 20.0, date)
    assert 0.2 < rho / exponential_density(450e3) < 5.0
    quiet = msis_density(450e3, 10.0, 20.0, date, f107=70.0, f107a=70.0)
    active = msis_density(450e3, 10.0, 20.0, date, f107=250.0, f107a=250.0)
    assert quiet < rho < active  # a hotter thermosphere is denser at a given height
    rows = msis_density(np.array([300e3, 450e3]), 10.0, 20.0, date)
    assert rows.shape == (2,) and rows[1] == pytest.approx(rho, rel=1e-12, abs=0) and rows[0] > rows[1]
