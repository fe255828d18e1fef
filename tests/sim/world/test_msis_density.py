"""NRLMSIS 2.1 through sim.world.atmosphere.msis_density, against pymsis called directly (the oracle).

msis_density's contract (its docstring): altitude in m (pymsis takes km),
latitude and longitude in degrees, one date or one per row, fixed space
weather passed whole (so nothing is downloaded); floats give a float, rows
give a row.  pymsis.calculate's documented order is (dates, lons, lats, alts).
"""

import datetime as dt

import numpy as np
import pytest

import pymsis  # in the test extra: a missing install fails, it does not skip
from sim.world.atmosphere import msis_density

DATE = dt.datetime(2025, 3, 1, 12, 30)
WEATHER = dict(f107=120.0, f107a=110.0, ap=9.0)


def oracle(date, lon, lat, alt_km):
    """Total mass density from pymsis itself, one point."""
    out = pymsis.calculate(np.array([date], dtype="datetime64[ms]"), lon, lat, alt_km,
                           f107s=[WEATHER["f107"]], f107as=[WEATHER["f107a"]], aps=[[WEATHER["ap"]] * 7])
    return float(np.ravel(out)[pymsis.Variable.MASS_DENSITY])


@pytest.mark.parametrize("alt_m, lat, lon", [(450e3, 10.0, 20.0), (300e3, -60.0, 200.0), (800e3, 80.0, -45.0)])
def test_a_point_is_pymsis_in_km_and_degrees(alt_m, lat, lon):
    rho = msis_density(alt_m, lat, lon, DATE, **WEATHER)
    assert isinstance(rho, float)
    assert rho == pytest.approx(oracle(DATE, lon, lat, alt_m / 1e3), rel=1e-12, abs=0)


def test_rows_of_latitude_or_longitude_give_rows():
    lats = np.array([-30.0, 0.0, 45.0])
    rows = msis_density(400e3, lats, 15.0, DATE, **WEATHER)
    assert isinstance(rows, np.ndarray) and rows.shape == (3,)
    # pymsis answers in float32; sim's rows are float64, or every product with them (drag, dynamic
    # pressure on an ensemble's columns) would silently drop to single precision
    assert rows.dtype == np.float64
    np.testing.assert_allclose(rows, [oracle(DATE, 15.0, x, 400.0) for x in lats], rtol=1e-12)
    lons = np.array([0.0, 90.0, 180.0, 270.0])
    rows = msis_density(400e3, 15.0, lons, DATE, **WEATHER)
    assert isinstance(rows, np.ndarray) and rows.shape == (4,)
    np.testing.assert_allclose(rows, [oracle(DATE, x, 15.0, 400.0) for x in lons], rtol=1e-12)


def test_one_date_per_row():
    dates = np.array(["2025-01-01T00:00", "2025-07-01T06:00"], dtype="datetime64[ms]")
    rows = msis_density(np.array([400e3, 400e3]), 0.0, 0.0, dates, **WEATHER)
    np.testing.assert_allclose(rows, [oracle(d, 0.0, 0.0, 400.0) for d in dates], rtol=1e-12)
    assert rows[0] != rows[1]   # the season and the time of day change the thermosphere


def test_without_pymsis_the_message_names_the_model_and_the_package(monkeypatch):
    import builtins
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "pymsis":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    with pytest.raises(RuntimeError) as err:
        msis_density(400e3, 0.0, 0.0, DATE)
    assert "NRLMSIS" in str(err.value) and "pymsis" in str(err.value) and "attitude-sim[msis]" in str(err.value)
